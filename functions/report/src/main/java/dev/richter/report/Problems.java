package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerKey;
import dev.richter.common.model.WorkerResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import static dev.richter.common.model.CheckResult.Outcome.FAIL;
import static dev.richter.common.model.CheckResult.Outcome.WARN;


/**
 * The problems-to-follow list at the top of a report: every FAIL and WARN check, every module that was SUSPECT or
 * DAMAGED, late and missing workers, missing evidence, the plan's entries without traces, traffic too uniform to
 * trust, and defences that failed; each with what to do next. FAILs first, then in the order above.
 */
public final class Problems {
    private Problems() {}

    /** What to do next about a check, by check name; {@link #DEFAULT_NEXT} for others. */
    static final Map<String, String> NEXT_BY_CHECK = Map.ofEntries(
            Map.entry("target-registered", "register the service (POST /services) or correct the scenario's service name"),
            Map.entry("isolation-enforced", "for each refusal the evidence names: a write to a table, key space, topic or"
                    + " queue with no shadow, add its shadow to that service's datastores (POST /services, datastores"
                    + " {kind, production, shadow}); an exit with no mock, add its mock (PUT /safety, mocks) or take it"
                    + " into the scope; report mode, set isolation.mode to enforce; a service with no proof, attach"
                    + " Richter's extension to its JVM"),
            Map.entry("target-answers", "start the service or correct its base URL in the registry: the pre-test fails otherwise"),
            Map.entry("marker-configured", "configure the marker's header and key"),
            Map.entry("run-not-aborted", "read the abort reason and rerun once its cause is fixed"),
            Map.entry("workers-reported", "a load-driver invocation died or timed out: read LoadDriverFunction's logs for the step"),
            Map.entry("marker-sent", "every request must carry the marker: check the plan's headers do not override it"),
            Map.entry("no-connect-errors", "the target refused connections: check it is up and listening on its registered base URL"),
            Map.entry("pre-test-success-rate", "fix what the target answers at low load (the evidence lists the HTTP errors) before"
                    + " measuring capacity"),
            Map.entry("trace-source", "configure a readable trace source (PUT /safety traceSource) so the marker, mock and link"
                    + " checks can run"),
            Map.entry("marker-propagation", "carry the marker across the named hop (baggage on the outgoing client, context on"
                    + " executor hand-offs) before sending marked traffic again"),
            Map.entry("mocked-exit", "marked traffic reached a real exit: make the caller answer it from its mock (ExitMocks SDK)"
                    + " before the next run"),
            Map.entry("shadow-writes", "route the named datastore call to its shadow (the agent extension in enforce mode, a"
                    + " declared shadow for the target) before sending marked traffic again"),
            Map.entry("discovered-datastores", "declare a shadow for the named datastore (POST /services datastores): the"
                    + " service's traces show it in use"),
            Map.entry("safety-config", "store the team's safety configuration (PUT /safety): trace source, exits, mocks"),
            Map.entry("mock-present", "add a usable mock for the exit (PUT /safety mocks)"),
            Map.entry("shadow-storage", "fix the datastore's shadow target: it must exist, differ from production and match its schema"),
            Map.entry("mq-shadow-switch", "switch the topic's shadow switch on and map it to a shadow topic"),
            Map.entry("middleware-version", "move the component into the range verified to carry the marker, or verify the new"
                    + " version and widen the rule"),
            Map.entry("guarded-middleware", "move the named service's marked calls to a client Richter's agent extension guards"
                    + " (agent/README.md, What is guarded), or send them only to in-scope services that prove their isolation"),
            Map.entry("monitoring-evidence", "fix the probe target (metrics path, scrape format, gRPC service name) so the module is"
                    + " observed"));
    static final String DEFAULT_NEXT = "read the evidence and fix its cause";

    /**
     * Every alert of the team's own Alertmanager that fired during the run, once per module and alert: where it fired
     * (the module) and at what step, e.g. {@code ShopShedding fired on order at 2026-12-02T15:30:02Z (formal 2 · 40 QPS)}.
     */
    public static List<Report.Problem> alerts(List<RunEvent> events, List<StepFigures> steps) {
        List<Report.Problem> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (RunEvent e : events) {
            if (!e.kind().equals(RunEvent.ALERT_FIRED) || !seen.add(e.module() + "\u0000" + e.name())) continue;
            String step = ResilienceVerdict.stepAt(steps, e.atMs()).map(f -> " (" + StepLabels.label(f) + ")").orElse("");
            out.add(new Report.Problem(FAIL, "alert", e.name() + " on " + e.module(),
                    e.name() + " fired on " + e.module() + " at " + Instant.ofEpochMilli(e.atMs()) + step
                            + (e.detail().isEmpty() ? "" : ", " + e.detail()),
                    "the team's own alert: read its runbook and " + e.module() + "'s dashboards from that time, with the"
                            + " load of that step beside it"));
        }
        return out;
    }

    /**
     * @param staticChecks     static check results
     * @param dynamicChecks    dynamic check results
     * @param verdictChanges   the verdict timeline
     * @param steps            every step's figures, pre-test first
     * @param missingEvidence  monitoring defects
     * @param graph            the call graph (its entries without traces)
     * @param distinctRequests distinct requests the plan replays
     * @param resilience       the resilience findings (FAILS and WEAK ones are listed)
     */
    public static List<Report.Problem> of(List<CheckResult> staticChecks, List<CheckResult> dynamicChecks,
                                          List<Verdict> verdictChanges, List<StepFigures> steps,
                                          List<MissingEvidence> missingEvidence, CallGraph graph, int distinctRequests,
                                          Report.Resilience resilience) {
        List<Report.Problem> out = new ArrayList<>();
        List<CheckResult> checks = new ArrayList<>(staticChecks);
        checks.addAll(dynamicChecks);
        for (CheckResult c : checks) {
            if (c.outcome() == CheckResult.Outcome.PASS || c.name().equals("monitoring-evidence") && !missingEvidence.isEmpty()) {
                continue;
            }
            out.add(new Report.Problem(c.outcome(), "check", c.name() + " (" + c.subject() + ")", c.evidence(), next(c),
                    "check:" + c.name() + ":" + c.subject()));
        }
        Map<String, Verdict> worst = new LinkedHashMap<>();
        for (Verdict v : verdictChanges) {
            if (v.state() == Verdict.State.HEALTHY) {
                continue;
            }
            Verdict known = worst.get(v.module());
            if (known == null || v.state().compareTo(known.state()) > 0) {
                worst.put(v.module(), v);
            }
        }
        for (Verdict v : worst.values()) {
            String when = Instant.ofEpochMilli(v.atMs()) + ResilienceVerdict.stepAt(steps, v.atMs())
                    .map(f -> " (" + StepLabels.label(f) + ")").orElse("");
            boolean load = v.module().equals(ReportBuilder.LOAD_MODULE);
            out.add(new Report.Problem(v.state() == Verdict.State.DAMAGED ? FAIL : WARN, "module", v.module(),
                    v.state() + " from " + when + ": " + v.reason(),
                    load ? "this is the load driver's own evidence (its per-second error rate and latency), not a probe:"
                            + " read the errors and latency charts around that time to see what the target answered"
                            : "read " + v.module() + "'s logs, resource metrics and traces from that time; a DAMAGED core module"
                            + " aborts the run (plan coreModules)"));
        }
        for (StepFigures f : steps) {
            String step = StepLabels.label(f);
            if (!f.missingWorkers().isEmpty()) {
                out.add(new Report.Problem(FAIL, "worker", step, f.missingWorkers().size() + " of " + f.workersExpected()
                        + " workers stored no result (" + String.join(", ", f.missingWorkers()) + "); the step's figures"
                        + " count only the workers that did", "read LoadDriverFunction's logs for those invocations (timeout,"
                        + " out of memory, crash) and rerun; a leg too long for the Lambda timeout is cut by LoadDriverTimeoutSeconds"));
            }
            for (StepFigures.LateWorker w : f.lateWorkers()) {
                out.add(new Report.Problem(WARN, "worker", w.worker(), "ready " + w.startLagMs() + " ms after its first due"
                        + " time; " + w.lateRequests() + " requests sent late", "raise WorkerLeadMs (cold starts) or lower"
                        + " perWorkerQps so workers are warm before their first request"));
            }
            if (f.counters().unchecked() > 0) {
                out.add(new Report.Problem(WARN, "unchecked", step, f.counters().unchecked() + " answers not checked: their"
                        + " bodies were over Richter's kept-body limit (65536 bytes), so the expectation's JSON checks could"
                        + " not run; they count as ok by status and headers, not as the target's failures",
                        "check a smaller resource, or state the answer's shape with status, headers and maxBytes, which"
                                + " need no kept body"));
            }
            if (f.unsentAtTimeLimit() > 0) {
                out.add(new Report.Problem(FAIL, "worker", step, f.unsentAtTimeLimit() + " requests left unsent when a"
                        + " worker's Lambda time ran out", "lower LoadDriverTimeoutSeconds' legs or raise the function's timeout"
                        + " so every leg fits"));
            }
        }
        for (MissingEvidence m : missingEvidence) {
            out.add(new Report.Problem(WARN, "missing evidence", m.module(), m.describe(), NEXT_BY_CHECK.get("monitoring-evidence")));
        }
        if (graph.read() && !graph.entriesWithoutTraces().isEmpty()) {
            out.add(new Report.Problem(WARN, "coverage", String.join(", ", graph.entriesWithoutTraces()),
                    "the plan sends traffic to entries with no traces in the links: their call graph, exits and mocks are unknown",
                    "ingest traces of these entries (POST /traces or the team's trace source), then check exits and mocks"));
        }
        if (distinctRequests < ReportBuilder.MIN_DISTINCT_REQUESTS) {
            out.add(new Report.Problem(WARN, "data", "traffic set", "the plan replays " + distinctRequests + " distinct request"
                    + (distinctRequests == 1 ? "" : "s") + " (fewer than " + ReportBuilder.MIN_DISTINCT_REQUESTS + ")",
                    "import recorded traffic (HAR, access logs) or generate varied requests with a data-construction flow"));
        }
        for (Report.Finding f : resilience.findings()) {
            if (f.status() == Report.Status.FAILS || f.status() == Report.Status.WEAK) {
                out.add(new Report.Problem(WARN, "resilience", f.defence(), ResilienceVerdict.words(f.status()) + ": " + f.line(),
                        switch (f.defence()) {
                            case ResilienceVerdict.SHEDDING -> "reject over-capacity work at the door with 429/503 and a"
                                    + " Retry-After (seconds or an IMF-fixdate), before it queues";
                            case ResilienceVerdict.DEADLINES -> "give every call a deadline below the caller's and propagate it"
                                    + " downstream, so slow work ends instead of piling up";
                            case Degradation.DEFENCE -> "make a fallback answer say so (a status or a field the caller"
                                    + " checks), state it in the plan's expect, and alert on the breaker opening";
                            case ResilienceVerdict.RETRIES -> "cap retries (a retry budget, exponential backoff with jitter) and"
                                    + " retry in one layer only";
                            default -> "isolate the damaged module's calls (separate pools, timeouts, circuit breakers)";
                        }));
            }
        }
        out.sort(Comparator.comparing((Report.Problem p) -> p.severity() != FAIL));
        return out;
    }

    private static String next(CheckResult c) {
        if (c.name().equals(ReportBuilder.LINK_CHECK)) {
            if (ReportBuilder.linksNotCompared(c)) {
                return "send real (unmarked) traffic through the same entries, or ingest production traces, so marked links"
                        + " can be compared";
            }
            return c.outcome() == FAIL ? "find why marked traffic takes this edge (shadow switch, test-only branch) before the"
                    + " next run" : "add requests to the traffic set that exercise this edge";
        }
        return NEXT_BY_CHECK.getOrDefault(c.name(), DEFAULT_NEXT);
    }

    /**
     * Seconds of a worker's last sends that may never reach a stored window when it dies: the window being filled and
     * the one waiting for the next 1 s flush.
     */
    static final int UNFLUSHED_S = 2;

    /** The most requests a worker of {@code worker}'s step sends in {@link #UNFLUSHED_S}; 0 when its step is unknown. */
    static long unflushedBound(WorkerKey worker, List<StepPlan> started) {
        return started.stream().filter(s -> s.stage().equals(worker.stage()) && s.stepIndex() == worker.stepIndex()).findFirst()
                .map(s -> (long) Math.ceil(UNFLUSHED_S * s.qps() / Math.max(1, s.workerCount()))).orElse(0L);
    }

    /** {@code first} then {@code more}, as one list. */
    static List<Report.Problem> with(List<Report.Problem> first, List<Report.Problem> more) {
        List<Report.Problem> out = new ArrayList<>(first);
        out.addAll(more);
        return out;
    }

    /**
     * Where the report's request counts and the target's own count can differ, named: windows a worker could not
     * store (its counts are exact, the time series misses those seconds), and requests sent by workers that stored no
     * result (their stored windows show them; the step's counts do not include them).
     *
     * @param results            the stored worker results
     * @param windowSentByWorker requests sent per worker from its stored windows, keyed by worker
     * @param started            the started steps (their rate and workers bound what a worker's unflushed windows held)
     */
    static List<Report.Problem> accounting(List<WorkerResult> results, Map<WorkerKey, Long> windowSentByWorker,
                                           List<StepPlan> started) {
        List<Report.Problem> out = new ArrayList<>();
        for (WorkerResult r : results) {
            List<Long> seconds = r.unstoredWindowSeconds();
            if (!seconds.isEmpty()) {
                out.add(new Report.Problem(WARN, "windows", r.workerName(), seconds.size() + " per-second windows not stored"
                        + " (epoch seconds " + seconds.get(0) + (seconds.size() > 1 ? " to " + seconds.get(seconds.size() - 1) : "")
                        + "): the step's counts are exact (the worker's result holds them); the time series and Richter's"
                        + " EMF metrics miss those seconds", "read LoadDriverFunction's log for the DynamoDB errors at those"
                        + " times (throttling of the run-metrics table)"));
            }
        }
        Set<WorkerKey> reported = new HashSet<>();
        results.forEach(r -> reported.add(r.key()));
        Map<WorkerKey, Long> unreported = new TreeMap<>();
        windowSentByWorker.forEach((worker, sent) -> {
            if (!reported.contains(worker) && sent > 0) {
                unreported.put(worker, sent);
            }
        });
        if (!unreported.isEmpty()) {
            long total = unreported.values().stream().mapToLong(Long::longValue).sum();
            long upTo = total;
            for (WorkerKey worker : unreported.keySet()) {
                upTo += unflushedBound(worker, started);
            }
            out.add(new Report.Problem(FAIL, "worker", "requests not counted", total + " requests were sent by workers that"
                    + " stored no result (" + unreported.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue())
                    .collect(Collectors.joining(", ")) + ", from their stored windows; up to "
                    + UNFLUSHED_S + " s of each worker's last sends were never flushed): the target received between "
                    + total + " and " + upTo + " more requests than the step's counts", "read LoadDriverFunction's log for"
                    + " those invocations (crash, timeout, out of memory); compare with the target's own request count"));
        }
        return out;
    }
}
