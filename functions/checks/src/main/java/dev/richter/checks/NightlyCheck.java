package dev.richter.checks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Counters;
import dev.richter.common.model.LegItem;
import dev.richter.common.model.Marker;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Run;
import dev.richter.common.model.StepRef;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerResult;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.RunLayout;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nightly small-traffic safety check of one scope (team), DESIGN.md §1 step 7.
 *
 * <p>Per team: static checks of its latest plan; a replay of that plan's scenarios at
 * {@link #REPLAY_QPS} QPS for {@link #REPLAY_DURATION_S} s (exactly {@code qps × duration}
 * requests, one worker, stage {@code nightly}); dynamic checks on the replay including the exact
 * count and the trace-based safety checks on the replay's spans ({@link SafetyGate}); a comparison with the previous night: a check that got worse (PASS → WARN/FAIL,
 * WARN → FAIL, or newly failing) is a regression and emits {@code Check Regressed}. Results are
 * kept in the registry table under {@code nightly#<yyyy-MM-dd>}.
 */
public final class NightlyCheck {
    /** Replay rate, requests per second. */
    public static final double REPLAY_QPS = 2;
    /** Replay duration, seconds. */
    public static final int REPLAY_DURATION_S = 10;
    /** Stage name of nightly replays in the run-metrics table. */
    public static final String STAGE = "nightly";

    private final Repositories repositories;
    private final RunMetricsRepository metrics;
    private final EventPublisher events;
    private final RunFlags flags;
    private final SafetyInputs safety;

    NightlyCheck(Repositories repositories, EventPublisher events, SafetyInputs safety) {
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.events = events;
        this.flags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.safety = safety;
    }

    /** {@code {scopes: [{teamId, runId, date}]}}: every team with registered services and a plan. */
    public Map<String, Object> scopes(long nowMs) {
        String date = LocalDate.ofInstant(Instant.ofEpochMilli(nowMs), ZoneOffset.UTC).toString();
        List<Map<String, String>> scopes = new ArrayList<>();
        for (String team : repositories.teamsWithServices()) {
            repositories.latestPlan(team).ifPresent(plan -> scopes.add(Map.of("teamId", team, "planId", plan.planId(),
                    "date", date, "runId", "nightly-" + team + "-" + date + "-" + nowMs)));
        }
        return Map.of("scopes", scopes);
    }

    /** Static checks and the replay's worker references (one leg: a 10 s replay): {@code {outcome, results, workers}}. */
    public Map<String, Object> staticChecks(JsonNode scope, long nowMs) {
        String team = scope.path("teamId").asText();
        String runId = scope.path("runId").asText();
        Plan plan = repositories.getPlan(team, scope.path("planId").asText())
                .orElseThrow(() -> new IllegalArgumentException("plan " + scope.path("planId").asText() + " not found"));
        Map<String, RegisteredService> services = new LinkedHashMap<>();
        List<RegisteredService> registered = repositories.listServices(team);
        registered.forEach(s -> services.put(s.name(), s));
        List<CheckResult> results = new ArrayList<>(RunChecks.staticChecks(plan, services, Marker.DEFAULT));
        results.addAll(safety.staticChecks(team, registered));
        repositories.createRun(new Run(runId, plan.planId(), team, "RUNNING", "", STAGE, 0, nowMs, false, "", ""));
        metrics.putChecks(runId, "static", results);
        List<?> workers = List.of();
        Map<String, Object> monitor = Map.of();
        if (CheckResult.worst(results) != CheckResult.Outcome.FAIL) {
            Plan replay = new Plan(plan.planId(), team, plan.name(), plan.scenarios(), plan.preTest(), plan.formal(),
                    plan.abortPolicy(), plan.coreModules(), REPLAY_QPS, plan.requestTimeoutMs(), plan.createdAtMs());
            var started = RunLayout.start(new StepRef(runId, team, STAGE, 0, REPLAY_QPS,
                    REPLAY_DURATION_S), replay, registered, nowMs, false, Quotas.fromEnv());
            metrics.putStepPlan(RunLayout.stepPlan(started, replay));
            workers = started.legs().stream().flatMap(leg -> started.workerIndexes().stream().map(k ->
                    new WorkerRef(runId, team, STAGE, 0, leg.legIndex(), k))).toList();
            LegItem first = started.legs().get(0);
            monitor = Map.of("probeTargets", started.probeTargets(), "coreModules", started.coreModules(),
                    "abortPolicy", started.abortPolicy(), "startAt", first.startAt(),
                    "endMs", started.legs().get(started.legs().size() - 1).endMs());
        }
        return Map.of("outcome", CheckResult.worst(results), "results", results, "workers", workers,
                "replay", !workers.isEmpty(), "monitor", monitor);
    }

    /**
     * Ends a scope whose nightly check failed in one of its states ({@code nightly-failed}): the run's abort flag is
     * set (its replay's workers stop within their abort poll) and the run is marked {@code FAILED} with the error, so
     * no nightly run stays {@code RUNNING}.
     *
     * @param scope the scope ({@code runId}) and the caught error ({@code error: {Error, Cause}})
     * @return {@code {runId, status: "FAILED", reason}}
     */
    public Map<String, Object> failed(JsonNode scope) {
        String runId = scope.path("runId").asText();
        JsonNode error = scope.path("error");
        String reason = "nightly check failed: " + error.path("Error").asText("unknown error");
        if (repositories.getRun(runId).isPresent()) {
            flags.requestAbort(runId, reason);
            repositories.updateRun(runId, Map.of("status", "FAILED", "outcome", "ERROR", "failureReason", reason));
        }
        return Map.of("runId", runId, "status", "FAILED", "reason", reason);
    }

    /**
     * Dynamic checks of the replay: those of the pre-test gate, the exact request count, and the trace-based
     * safety checks on the replay's window ({@link SafetyGate}). The replay settles as a pre-test does
     * ({@link Plan#settleS}: the plan's stated settle, else the default, at most half of its {@value #REPLAY_DURATION_S}
     * s): it is the night's first marked load on the scope, so its marked path is as cold as a pre-test's, and a cold
     * start judged as a failure would raise a {@code Check Regressed} on a night when nothing regressed. Its isolation
     * checks and exact count judge every request.
     */
    public Map<String, Object> dynamicChecks(JsonNode scope) {
        String runId = scope.path("runId").asText();
        String team = scope.path("teamId").asText();
        List<WorkerResult> replay = metrics.workerResults(runId).stream().filter(r -> r.stage().equals(STAGE)).toList();
        int expectedWorkers = scope.path("static").path("workers").size();
        List<CheckResult> results = new ArrayList<>();
        if (expectedWorkers > 0) {
            Integer stated = repositories.getPlan(team, scope.path("planId").asText()).map(Plan::preTestSettleS).orElse(null);
            int settleS = Plan.settleS(stated, REPLAY_DURATION_S);
            results.addAll(RunChecks.preTestChecks(expectedWorkers, replay, settleS, metrics.windowOutcomes(runId, STAGE),
                    false, ""));
            long expected = Math.round(REPLAY_QPS * REPLAY_DURATION_S);
            long sent = replay.stream().map(WorkerResult::counters).reduce(Counters.ZERO, Counters::plus).sent();
            results.add(new CheckResult("exact-count", sent == expected ? CheckResult.Outcome.PASS : CheckResult.Outcome.FAIL,
                    "nightly replay", sent + " requests sent, " + expected + " planned (" + REPLAY_QPS + " QPS x " + REPLAY_DURATION_S + " s)"));
            results.addAll(safety.dynamicChecks(team, repositories.listServices(team), replay, "nightly replay"));
        }
        var run = repositories.getRun(runId);
        if (run.isPresent() && run.get().abortRequested()) {
            results.add(new CheckResult("aborted", CheckResult.Outcome.FAIL, "nightly replay",
                    "the replay was aborted: " + run.get().abortReason()));
        }
        metrics.putChecks(runId, "dynamic", results);
        boolean aborted = run.isPresent() && run.get().abortRequested();
        repositories.updateRun(runId, aborted ? Map.of("status", "COMPLETED", "outcome", "ABORTED")
                : Map.of("status", "COMPLETED"));
        return Map.of("outcome", CheckResult.worst(results), "results", results);
    }

    /**
     * Compares tonight's check results with the previous night's and stores tonight's.
     *
     * @return {@code {teamId, date, regressions: [...]}}; each regression was emitted as {@code Check Regressed}
     */
    public Map<String, Object> compare(JsonNode scope) {
        String team = scope.path("teamId").asText();
        String date = scope.path("date").asText();
        List<CheckResult> tonight = new ArrayList<>();
        for (String phase : List.of("static", "dynamic")) {
            for (JsonNode r : scope.path(phase).path("results")) {
                tonight.add(Json.MAPPER.convertValue(r, CheckResult.class));
            }
        }
        List<String> previous = repositories.latestRegistryDocs(team, "nightly#", 1);
        List<CheckResult> before = previous.isEmpty() ? List.of()
                : List.of(Json.read(previous.get(0), NightlyResult.class).results().toArray(CheckResult[]::new));
        List<Map<String, String>> regressions = regressions(before, tonight);
        repositories.putRegistryDoc(team, "nightly#" + date + "#" + scope.path("runId").asText(),
                new NightlyResult(team, date, scope.path("runId").asText(), tonight));
        for (Map<String, String> r : regressions) {
            Map<String, Object> detail = new LinkedHashMap<>(r);
            detail.put("teamId", team);
            detail.put("date", date);
            events.publish("Check Regressed", detail);
        }
        return Map.of("teamId", team, "date", date, "regressions", regressions);
    }

    /** One night's results of a team. */
    public record NightlyResult(String teamId, String date, String runId, List<CheckResult> results) {}

    /**
     * Checks that got worse: same (name, subject) with a worse outcome, or a new non-PASS check.
     * A check missing tonight is not a regression (scope changed).
     */
    static List<Map<String, String>> regressions(List<CheckResult> before, List<CheckResult> tonight) {
        Map<String, CheckResult> prev = new LinkedHashMap<>();
        before.forEach(c -> prev.put(c.name() + "|" + c.subject(), c));
        List<Map<String, String>> out = new ArrayList<>();
        for (CheckResult now : tonight) {
            CheckResult was = prev.get(now.name() + "|" + now.subject());
            CheckResult.Outcome wasOutcome = was == null ? CheckResult.Outcome.PASS : was.outcome();
            if (now.outcome().compareTo(wasOutcome) > 0) {
                out.add(Map.of("check", now.name(), "subject", now.subject(), "was", wasOutcome.name(),
                        "now", now.outcome().name(), "evidence", now.evidence()));
            }
        }
        return out;
    }
}
