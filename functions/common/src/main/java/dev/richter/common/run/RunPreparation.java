package dev.richter.common.run;

import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.model.Marker;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerTask;
import dev.richter.common.sizing.Quotas;
import dev.richter.common.sizing.StepLayout;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * Turns a plan and the team's registry into the run's stages and, when a step starts, its legs,
 * worker references and probe targets. Plain Java: no AWS types.
 *
 * <p>Rules: load goes only to services the plan's team registered (an unknown service is a
 * {@link PlanNotRunnableException}); a step runs {@code ceil(qps / perWorkerQps)} workers in each of its
 * legs ({@link StepLayout}); traffic never travels in the state machine's state: a worker gets a
 * {@link WorkerRef} and reads the stored {@link StepPlan}, the plan and the registry
 * ({@link #workerTask}); the plan's modules (scenario services and core modules) are probed (HTTP health,
 * TCP connect, Prometheus when it has a scrape path); other registered services of the team are not.
 */
public final class RunPreparation {
    /** Probe deadline per target, milliseconds (shorter than the probe function's own timeout). */
    public static final int PROBE_TIMEOUT_MS = 1_000;
    /** A request sent later than this after its due time is counted late, milliseconds. */
    public static final int LATENESS_TOLERANCE_MS = 100;
    /** In-flight cap per worker; a due request beyond it is counted dropped. */
    public static final int MAX_IN_FLIGHT = 2_000;

    private RunPreparation() {}

    /** The stage names, in run order. */
    public static final String PRE_TEST = "pre-test";
    public static final String FORMAL = "formal";

    /**
     * A step as the state machine carries it before it starts.
     *
     * @param runId     run id
     * @param teamId    team
     * @param stage     {@link #PRE_TEST} or {@link #FORMAL}
     * @param stepIndex index within the stage
     * @param qps       target rate, requests per second
     * @param durationS duration, seconds
     */
    public record StepRef(String runId, String teamId, String stage, int stepIndex, double qps, int durationS) {}

    /**
     * A started step as the state machine carries it: small and independent of the traffic's size.
     *
     * @param skip          true when the run's abort flag is set: the step is not run
     * @param stepStartMs   epoch ms when the step's first request is due
     * @param stepEndsAtMs  epoch ms when the step's last request is due at the latest
     * @param workerCount   load-driver workers in every leg
     * @param legMs         length of every leg but the last, milliseconds
     * @param workerIndexes {@code [0, workerCount)}: the items of each leg's worker Map
     * @param legs          the legs: the items of the step's leg Map
     * @param probeTargets  probe targets (shape of the probe function's {@code targets})
     * @param coreModules   modules whose DAMAGED verdict aborts the run
     * @param abortPolicy   the plan's abort policy in the fault decider's shape:
     *                      {@code {conditions: [{type: anyDamagedCoreModule} | {type: errorRateOver, errorRate: 0..1, forSeconds}]}}
     */
    public record StartedStep(String runId, String teamId, String stage, int stepIndex, double qps, int durationS,
                              boolean skip, long stepStartMs, long stepEndsAtMs, int workerCount, long legMs,
                              List<Integer> workerIndexes, List<LegItem> legs,
                              List<Map<String, Object>> probeTargets, List<String> coreModules,
                              Map<String, Object> abortPolicy) {}

    /**
     * One leg as an item of the leg Map (one child execution).
     *
     * @param legIndex 0-based
     * @param startMs  epoch ms of the first due time the leg owns
     * @param endMs    epoch ms where its due times end (exclusive); the monitor loop of the leg stops there
     * @param launchAt when the leg's workers are launched (ISO-8601 UTC, the Wait state's {@code TimestampPath}):
     *                 {@link Quotas#workerLeadMs()} before {@code startMs}, or at once for the first leg
     * @param startAt  when the leg's monitor loop starts (ISO-8601 UTC): at once for the first leg, else {@code startMs}
     *                 (when the previous leg's loop stops)
     * @param last     true for the step's last leg
     */
    public record LegItem(int legIndex, long startMs, long endMs, String launchAt, String startAt, boolean last) {}

    /**
     * What a worker of a leg is handed by the state machine: where to find its step, never the traffic.
     *
     * @param runId       run id
     * @param teamId      team
     * @param stage       stage
     * @param stepIndex   step within the stage
     * @param legIndex    leg within the step
     * @param workerIndex worker within the leg, {@code [0, workerCount)}
     */
    public record WorkerRef(String runId, String teamId, String stage, int stepIndex, int legIndex, int workerIndex) {}

    /**
     * A started step as stored for its workers (run-metrics table, sk {@link #sortKey()}).
     *
     * @param runId               run id
     * @param teamId              team
     * @param planId              the plan whose scenarios the workers replay
     * @param stage               stage
     * @param stepIndex           step within the stage
     * @param qps                 the whole step's rate, requests per second
     * @param durationS           step duration, seconds
     * @param perWorkerQps        rate of one worker (kept so a reader can recompute the layout)
     * @param workerCount         workers in every leg
     * @param stepStartMs         epoch ms when request 0 is due
     * @param legMs               length of every leg but the last, milliseconds
     * @param legCount            legs of the step
     * @param requestTimeoutMs    deadline of each request, milliseconds
     * @param maxInFlight         in-flight cap per worker
     * @param latenessToleranceMs a request sent later than this after its due time is late
     */
    public record StepPlan(String runId, String teamId, String planId, String stage, int stepIndex, double qps,
                           int durationS, double perWorkerQps, int workerCount, long stepStartMs, long legMs,
                           int legCount, int requestTimeoutMs, int maxInFlight, int latenessToleranceMs) {
        /** {@code step#<stage>#<stepIndex %03d>}. */
        public String sortKey() {
            return sortKey(stage, stepIndex);
        }

        /** The run-metrics sort key of a stage's step. */
        public static String sortKey(String stage, int stepIndex) {
            return String.format("step#%s#%03d", stage, stepIndex);
        }
    }

    /**
     * Starts a step: its legs, each with the same workers, sharing one schedule that starts
     * {@link Quotas#workerLeadMs()} from now (so the first leg's workers are warm when request 0 is due).
     *
     * @param step     the step
     * @param plan     the run's plan
     * @param services the team's registered services
     * @param nowMs    current epoch ms
     * @param aborted  the run's abort flag: when set, the step is skipped (no legs)
     * @param quotas   the limits and lead times
     * @throws IllegalArgumentException when the step cannot be laid out (see {@link StepLayout#of})
     */
    public static StartedStep start(StepRef step, Plan plan, List<RegisteredService> services, long nowMs,
                                    boolean aborted, Quotas quotas) {
        Set<String> modules = new HashSet<>(plan.coreModules());
        plan.scenarios().forEach(sc -> modules.add(sc.service()));
        List<Map<String, Object>> targets = probeTargets(services.stream().filter(s -> modules.contains(s.name())).toList());
        if (aborted) {
            return new StartedStep(step.runId(), step.teamId(), step.stage(), step.stepIndex(), step.qps(),
                    step.durationS(), true, nowMs, nowMs, 0, 0, List.of(), List.of(), targets, plan.coreModules(),
                    abortPolicy(plan.abortPolicy()));
        }
        StepLayout layout = StepLayout.of(step.qps(), step.durationS(), plan.perWorkerQps(), plan.requestTimeoutMs(), quotas);
        long startMs = nowMs + quotas.workerLeadMs();
        List<LegItem> legs = new ArrayList<>();
        for (StepLayout.Leg leg : layout.legs()) {
            long legStart = startMs + leg.startOffsetMs();
            long launch = leg.legIndex() == 0 ? nowMs : Math.max(nowMs, legStart - quotas.workerLeadMs());
            legs.add(new LegItem(leg.legIndex(), legStart, startMs + leg.endOffsetMs(), iso(launch),
                    iso(leg.legIndex() == 0 ? nowMs : legStart), leg.last()));
        }
        return new StartedStep(step.runId(), step.teamId(), step.stage(), step.stepIndex(), step.qps(),
                step.durationS(), false, startMs, startMs + step.durationS() * 1000L, layout.workers(), layout.legMs(),
                IntStream.range(0, layout.workers()).boxed().toList(), legs, targets, plan.coreModules(),
                abortPolicy(plan.abortPolicy()));
    }

    /** The stored form of a started (not skipped) step, for its workers. */
    public static StepPlan stepPlan(StartedStep started, Plan plan) {
        return new StepPlan(started.runId(), started.teamId(), plan.planId(), started.stage(), started.stepIndex(),
                started.qps(), started.durationS(), plan.perWorkerQps(), started.workerCount(), started.stepStartMs(),
                started.legMs(), started.legs().size(), plan.requestTimeoutMs(), MAX_IN_FLIGHT, LATENESS_TOLERANCE_MS);
    }

    /**
     * The task of one worker of one leg, with the plan's scenarios resolved against the registry.
     *
     * @throws IllegalArgumentException  when the reference does not fit the step (leg or worker out of range)
     * @throws PlanNotRunnableException  when a scenario's service is no longer registered
     */
    public static WorkerTask workerTask(StepPlan step, WorkerRef ref, Plan plan, List<RegisteredService> services) {
        if (ref.legIndex() < 0 || ref.legIndex() >= step.legCount() || ref.workerIndex() < 0
                || ref.workerIndex() >= step.workerCount()) {
            throw new IllegalArgumentException("worker " + ref.workerIndex() + " of leg " + ref.legIndex()
                    + " is outside step " + step.stage() + "/" + step.stepIndex() + " (" + step.workerCount()
                    + " workers, " + step.legCount() + " legs)");
        }
        StepLayout.Leg leg = StepLayout.leg(ref.legIndex(), step.legMs(), step.durationS() * 1000L);
        return new WorkerTask(step.runId(), step.teamId(), step.stage(), step.stepIndex(), step.qps(), step.durationS(),
                ref.workerIndex(), step.workerCount(), step.stepStartMs(), step.requestTimeoutMs(), step.maxInFlight(),
                step.latenessToleranceMs(), Marker.DEFAULT, scenarios(plan, services), ref.legIndex(),
                leg.startOffsetMs(), ref.legIndex() == step.legCount() - 1 ? Long.MAX_VALUE : leg.endOffsetMs(),
                MonitorHeartbeat.STALE_AFTER_MS);
    }

    /** Where workers load the stored sets their scenarios name ({@link StoredSets} on DynamoDB). */
    public interface SetSource {
        /** The team's traffic set as a scenario's request list ({@link StoredSets#replayRequests}), or empty. */
        Optional<List<ReplayRequest>> trafficSet(String teamId, String setId);

        /** The team's data set's {@code ok} rows, or empty. */
        Optional<DataSetRows> dataSet(String teamId, String dataSetId);
    }

    /**
     * The usable rows of a data set.
     *
     * @param columns column names
     * @param indexes each row's index in the data set (what {@code unique} partitions by)
     * @param rows    each row's values as text, one per column
     */
    public record DataSetRows(List<String> columns, List<Integer> indexes, List<List<String>> rows) {}

    /** A source that has no sets (plans of inline requests only). */
    public static final SetSource NO_SETS = new SetSource() {
        @Override
        public Optional<List<ReplayRequest>> trafficSet(String teamId, String setId) {
            return Optional.empty();
        }

        @Override
        public Optional<DataSetRows> dataSet(String teamId, String dataSetId) {
            return Optional.empty();
        }
    };

    /**
     * The task of one worker of one leg, with the plan's scenarios resolved against the registry and their traffic
     * sets and data sets loaded by id from {@code sets}. Rows of a {@code unique} data set are partitioned: with n
     * workers and L legs, worker k of leg l keeps the rows whose index {@code % (n × L) == l × n + k}, so no two
     * workers (and no two legs) of the step send the same row; a {@code sequential} set is given whole, rotated so
     * each worker starts at its own share; a {@code random} set whole.
     *
     * @throws IllegalArgumentException  when the reference does not fit the step (leg or worker out of range)
     * @throws PlanNotRunnableException  when a scenario's service is no longer registered, or a set it names is absent
     */
    public static WorkerTask workerTask(StepPlan step, WorkerRef ref, Plan plan, List<RegisteredService> services, SetSource sets) {
        WorkerTask task = workerTask(step, ref, plan, services);
        int partitions = step.workerCount() * step.legCount();
        int partition = ref.legIndex() * step.workerCount() + ref.workerIndex();
        List<Scenario> resolved = new ArrayList<>();
        for (int i = 0; i < plan.scenarios().size(); i++) {
            Plan.ScenarioSpec spec = plan.scenarios().get(i);
            Scenario base = task.scenarios().get(i);
            List<ReplayRequest> requests = base.requests();
            if (spec.trafficSetId() != null && !spec.trafficSetId().isBlank()) {
                requests = sets.trafficSet(plan.teamId(), spec.trafficSetId()).orElseThrow(() -> new PlanNotRunnableException(
                        "scenario '" + spec.name() + "' replays traffic set '" + spec.trafficSetId() + "', which is not stored"));
            }
            if (!spec.slots().isEmpty()) {
                requests = requests.stream().map(r -> fillSlots(r, spec.slots())).toList();
            }
            List<Scenario.DataRows> data = new ArrayList<>();
            for (Plan.DataBinding b : spec.data()) {
                DataSetRows rows = sets.dataSet(plan.teamId(), b.dataSetId()).orElseThrow(() -> new PlanNotRunnableException(
                        "scenario '" + spec.name() + "' draws from data set '" + b.dataSetId() + "', which is not stored"));
                List<List<String>> kept = new ArrayList<>();
                for (int r = 0; r < rows.rows().size(); r++) {
                    if (!b.mode().equals("unique") || Math.floorMod(rows.indexes().get(r), partitions) == partition) {
                        kept.add(rows.rows().get(r));
                    }
                }
                if (b.mode().equals("sequential") && !kept.isEmpty()) {
                    Collections.rotate(kept, -(int) ((long) kept.size() * partition / partitions));
                }
                data.add(new Scenario.DataRows(b.dataSetId(), b.mode(), rows.columns(), kept));
            }
            resolved.add(new Scenario(base.name(), base.service(), base.targetBaseUrl(), base.weight(), requests, data));
        }
        return new WorkerTask(task.runId(), task.teamId(), task.stage(), task.stepIndex(), task.qps(), task.durationS(),
                task.workerIndex(), task.workerCount(), task.stepStartEpochMs(), task.requestTimeoutMs(), task.maxInFlight(),
                task.latenessToleranceMs(), task.marker(), resolved, task.legIndex(), task.legStartOffsetMs(), task.legEndOffsetMs(),
                task.monitorStaleAfterMs());
    }

    /**
     * A traffic-set request with its scrubbed slots ({@code {{slot:<name>}}}, DESIGN.md "Traffic sets") replaced by the
     * scenario's templates for them, in the path, header values and a text body; slots without a template stay.
     */
    static ReplayRequest fillSlots(ReplayRequest r, Map<String, String> slots) {
        UnaryOperator<String> fill = text -> {
            if (text == null || !text.contains("{{slot:")) {
                return text;
            }
            String out = text;
            for (var e : slots.entrySet()) {
                out = out.replace("{{slot:" + e.getKey() + "}}", e.getValue());
            }
            return out;
        };
        Map<String, String> headers = new LinkedHashMap<>();
        r.headers().forEach((k, v) -> headers.put(k, fill.apply(v)));
        String body = r.bodyBase64();
        if (body != null && !body.isEmpty()) {
            byte[] bytes = Base64.getDecoder().decode(body);
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (text.contains("{{slot:") && Arrays.equals(text.getBytes(StandardCharsets.UTF_8), bytes)) {
                body = Base64.getEncoder().encodeToString(fill.apply(text).getBytes(StandardCharsets.UTF_8));
            }
        }
        return new ReplayRequest(r.method(), fill.apply(r.path()), headers, body);
    }

    /**
     * The plan's scenarios with their targets' base URLs.
     *
     * @throws PlanNotRunnableException naming the scenario when its service is not registered
     */
    public static List<Scenario> scenarios(Plan plan, List<RegisteredService> services) {
        Map<String, RegisteredService> byName = new LinkedHashMap<>();
        services.forEach(s -> byName.put(s.name(), s));
        List<Scenario> out = new ArrayList<>();
        for (Plan.ScenarioSpec s : plan.scenarios()) {
            RegisteredService target = byName.get(s.service());
            if (target == null) {
                throw notRegistered(plan, s);
            }
            out.add(new Scenario(s.name(), s.service(), target.baseUrl(), s.weight(),
                    s.requests().stream().map(RunPreparation::replayRequest).toList()));
        }
        return out;
    }

    private static PlanNotRunnableException notRegistered(Plan plan, Plan.ScenarioSpec s) {
        return new PlanNotRunnableException("scenario '" + s.name() + "' targets service '" + s.service()
                + "' which team '" + plan.teamId() + "' has not registered");
    }

    private static String iso(long epochMs) {
        return Instant.ofEpochMilli(epochMs).toString();
    }

    /** The run's steps per stage: {@code preTest} (one step) and {@code formal} (the plan's steps in order). */
    public record Stages(String runId, String planId, String teamId, List<StepRef> preTest, List<StepRef> formal) {}

    /**
     * Checks that every scenario targets a registered service and lays out the stages.
     *
     * @throws PlanNotRunnableException naming the scenario and service when a service is not registered
     */
    public static Stages prepare(String runId, Plan plan, Function<String, Optional<RegisteredService>> registry) {
        for (Plan.ScenarioSpec s : plan.scenarios()) {
            if (registry.apply(s.service()).isEmpty()) {
                throw notRegistered(plan, s);
            }
        }
        List<StepRef> formal = new ArrayList<>();
        for (int i = 0; i < plan.formal().size(); i++) {
            Plan.StepSpec st = plan.formal().get(i);
            formal.add(new StepRef(runId, plan.teamId(), FORMAL, i, st.qps(), st.durationS()));
        }
        StepRef pre = new StepRef(runId, plan.teamId(), PRE_TEST, 0, plan.preTest().qps(), plan.preTest().durationS());
        return new Stages(runId, plan.planId(), plan.teamId(), List.of(pre), formal);
    }

    /** The plan's abort settings as the fault decider's condition list. */
    static Map<String, Object> abortPolicy(Plan.AbortSettings p) {
        List<Map<String, Object>> conditions = new ArrayList<>();
        if (p.abortOnDamagedCoreModule()) {
            conditions.add(Map.of("type", "anyDamagedCoreModule"));
        }
        if (p.maxErrorRatePct() < 100) {
            conditions.add(Map.of("type", "errorRateOver", "errorRate", p.maxErrorRatePct() / 100.0,
                    "forSeconds", Math.max(1, p.errorRateWindowS())));
        }
        return Map.of("conditions", conditions);
    }

    private static ReplayRequest replayRequest(Plan.RequestSpec r) {
        String body = r.bodyBase64() != null ? r.bodyBase64()
                : r.body() == null ? null : Base64.getEncoder().encodeToString(r.body().getBytes(StandardCharsets.UTF_8));
        return new ReplayRequest(r.method(), r.path(), r.headers(), body);
    }

    /**
     * The probe targets of the step's services: the HTTP health endpoint, a TCP connect, the Prometheus scrape and the
     * gRPC health check, each when registered. HTTPS and TLS targets carry the service's {@code caPem} when it has one.
     */
    static List<Map<String, Object>> probeTargets(List<RegisteredService> services) {
        List<Map<String, Object>> targets = new ArrayList<>();
        for (RegisteredService s : services) {
            URI base = URI.create(s.baseUrl());
            boolean https = "https".equals(base.getScheme());
            int port = base.getPort() > 0 ? base.getPort() : (https ? 443 : 80);
            if (s.healthPath() != null && !s.healthPath().isBlank()) {
                targets.add(target(s, "http", https, "url", join(s.baseUrl(), s.healthPath())));
            }
            targets.add(new LinkedHashMap<>(Map.of("module", s.name(), "kind", "tcp", "host", base.getHost(),
                    "port", port, "timeoutMs", PROBE_TIMEOUT_MS)));
            if (s.prometheusPath() != null && !s.prometheusPath().isBlank()) {
                targets.add(target(s, "prometheus", https, "url", join(s.baseUrl(), s.prometheusPath())));
            }
            if (s.grpc() != null) {
                Map<String, Object> g = target(s, "grpc", s.grpc().tls(), "host", base.getHost());
                g.put("port", s.grpc().port());
                g.put("service", s.grpc().service());
                g.put("tls", s.grpc().tls());
                targets.add(g);
            }
        }
        return targets;
    }

    private static Map<String, Object> target(RegisteredService s, String kind, boolean tls, String key, Object value) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("module", s.name());
        t.put("kind", kind);
        t.put(key, value);
        t.put("timeoutMs", PROBE_TIMEOUT_MS);
        if (tls && s.caPem() != null) t.put("caPem", s.caPem());
        return t;
    }

    private static String join(String base, String path) {
        return base.endsWith("/") && path.startsWith("/") ? base + path.substring(1) : base + path;
    }
}
