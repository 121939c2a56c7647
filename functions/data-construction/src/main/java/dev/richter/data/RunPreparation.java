package dev.richter.data;

import dev.richter.common.model.Marker;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerTask;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns a plan and the team's registry into the run's stages and, when a step starts, its
 * worker tasks and probe targets. Plain Java: no AWS types.
 *
 * <p>Rules: load goes only to services the plan's team registered (an unknown service is a
 * {@link PlanNotRunnableException}); a step of {@code qps} runs {@code ceil(qps / perWorkerQps)}
 * workers (at least one), each phase-shifted by the load driver from its index; the plan's modules
 * (scenario services and core modules) are probed (HTTP health, TCP connect, Prometheus when it has a
 * scrape path); other registered services of the team are not.
 */
public final class RunPreparation {
    /** Delay between a step's start call and its first due request, milliseconds: lets the Map fan out its workers. */
    public static final long STEP_START_DELAY_MS = 1_000;
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
     * A started step: everything the Parallel of workers and monitor loop needs.
     *
     * @param skip         true when the run's abort flag is set: the step is not run
     * @param stepEndsAtMs epoch ms when the last request is due; the monitor loop stops after it
     * @param workers      one task per load-driver worker
     * @param probeTargets probe targets (shape of the probe function's {@code targets})
     * @param coreModules  modules whose DAMAGED verdict aborts the run
     * @param abortPolicy  the plan's abort policy in the fault decider's shape:
     *                     {@code {conditions: [{type: anyDamagedCoreModule} | {type: errorRateOver, errorRate: 0..1, forSeconds}]}}
     */
    public record StartedStep(String runId, String teamId, String stage, int stepIndex, double qps, int durationS,
                              boolean skip, long stepEndsAtMs, List<WorkerTask> workers,
                              List<Map<String, Object>> probeTargets, List<String> coreModules,
                              Map<String, Object> abortPolicy) {}

    /** The run's steps per stage: {@code preTest} (one step) and {@code formal} (the plan's steps in order). */
    public record Stages(String runId, String planId, String teamId, List<StepRef> preTest, List<StepRef> formal) {}

    /**
     * Checks that every scenario targets a registered service and lays out the stages.
     *
     * @throws PlanNotRunnableException naming the scenario and service when a service is not registered
     */
    public static Stages prepare(String runId, Plan plan, Function<String, java.util.Optional<RegisteredService>> registry) {
        for (Plan.ScenarioSpec s : plan.scenarios()) {
            if (registry.apply(s.service()).isEmpty()) {
                throw new PlanNotRunnableException("scenario '" + s.name() + "' targets service '" + s.service()
                        + "' which team '" + plan.teamId() + "' has not registered");
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

    /**
     * Builds a started step: worker tasks sharing one start time, and probe targets.
     *
     * @param step        the step
     * @param plan        the run's plan
     * @param services    the team's registered services
     * @param nowMs       current epoch ms
     * @param aborted     the run's abort flag
     */
    public static StartedStep start(StepRef step, Plan plan, List<RegisteredService> services, long nowMs,
                                    boolean aborted) {
        long startMs = nowMs + STEP_START_DELAY_MS;
        long endsAtMs = startMs + step.durationS() * 1000L;
        java.util.Set<String> modules = new java.util.HashSet<>(plan.coreModules());
        plan.scenarios().forEach(sc -> modules.add(sc.service()));
        List<Map<String, Object>> targets = probeTargets(services.stream().filter(s -> modules.contains(s.name())).toList());
        if (aborted) {
            return new StartedStep(step.runId(), step.teamId(), step.stage(), step.stepIndex(), step.qps(),
                    step.durationS(), true, nowMs, List.of(), targets, plan.coreModules(), abortPolicy(plan.abortPolicy()));
        }
        Map<String, RegisteredService> byName = new LinkedHashMap<>();
        services.forEach(s -> byName.put(s.name(), s));
        List<Scenario> scenarios = plan.scenarios().stream()
                .map(s -> new Scenario(s.name(), s.service(), byName.get(s.service()).baseUrl(), s.weight(),
                        s.requests().stream().map(RunPreparation::replayRequest).toList()))
                .toList();
        int workerCount = workersFor(step.qps(), plan.perWorkerQps());
        List<WorkerTask> workers = new ArrayList<>();
        for (int k = 0; k < workerCount; k++) {
            workers.add(new WorkerTask(step.runId(), step.teamId(), step.stage(), step.stepIndex(), step.qps(),
                    step.durationS(), k, workerCount, startMs, plan.requestTimeoutMs(), MAX_IN_FLIGHT,
                    LATENESS_TOLERANCE_MS, Marker.DEFAULT, scenarios));
        }
        return new StartedStep(step.runId(), step.teamId(), step.stage(), step.stepIndex(), step.qps(),
                step.durationS(), false, endsAtMs, workers, targets, plan.coreModules(), abortPolicy(plan.abortPolicy()));
    }

    /** The plan's abort policy as the fault decider's condition list. */
    static Map<String, Object> abortPolicy(Plan.AbortPolicy p) {
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

    /** Workers for a step: {@code ceil(stepQps / perWorkerQps)}, at least 1 (DESIGN.md §5). */
    public static int workersFor(double stepQps, double perWorkerQps) {
        if (perWorkerQps <= 0) {
            throw new IllegalArgumentException("perWorkerQps must be > 0, was " + perWorkerQps);
        }
        return Math.max(1, (int) Math.ceil(stepQps / perWorkerQps - 1e-9));
    }

    private static ReplayRequest replayRequest(Plan.RequestSpec r) {
        String body = r.bodyBase64() != null ? r.bodyBase64()
                : r.body() == null ? null : Base64.getEncoder().encodeToString(r.body().getBytes(StandardCharsets.UTF_8));
        return new ReplayRequest(r.method(), r.path(), r.headers(), body);
    }

    private static List<Map<String, Object>> probeTargets(List<RegisteredService> services) {
        List<Map<String, Object>> targets = new ArrayList<>();
        for (RegisteredService s : services) {
            java.net.URI base = java.net.URI.create(s.baseUrl());
            int port = base.getPort() > 0 ? base.getPort() : ("https".equals(base.getScheme()) ? 443 : 80);
            if (s.healthPath() != null && !s.healthPath().isBlank()) {
                targets.add(Map.of("module", s.name(), "kind", "http", "url", join(s.baseUrl(), s.healthPath()),
                        "timeoutMs", PROBE_TIMEOUT_MS));
            }
            targets.add(Map.of("module", s.name(), "kind", "tcp", "host", base.getHost(), "port", port,
                    "timeoutMs", PROBE_TIMEOUT_MS));
            if (s.prometheusPath() != null && !s.prometheusPath().isBlank()) {
                targets.add(Map.of("module", s.name(), "kind", "prometheus", "url", join(s.baseUrl(), s.prometheusPath()),
                        "timeoutMs", PROBE_TIMEOUT_MS));
            }
        }
        return targets;
    }

    private static String join(String base, String path) {
        return base.endsWith("/") && path.startsWith("/") ? base + path.substring(1) : base + path;
    }
}
