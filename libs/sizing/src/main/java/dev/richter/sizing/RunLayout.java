package dev.richter.sizing;

import dev.richter.common.model.Expectation;
import dev.richter.common.model.Plan;
import dev.richter.common.model.EvidenceSources;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.Stages;
import dev.richter.common.model.StartedStep;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.StepRef;
import dev.richter.common.model.LegItem;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Turns a plan and the team's registry into the run's stages ({@link Stages}) and, when a step starts, its legs,
 * worker references and probe targets ({@link StartedStep}). Plain Java: no AWS types. The run-preparation function
 * calls it at the start of a run and of each step; the run estimate and the nightly check lay out runs with it too.
 *
 * <p>Rules: load goes only to services the plan's team registered (an unknown service is a
 * {@link PlanNotRunnableException}); a step runs {@code ceil(qps / perWorkerQps)} workers in each of its
 * legs ({@link StepLayout}); traffic never travels in the state machine's state: a worker gets a
 * {@code WorkerRef} and reads the stored {@link StepPlan}, the plan and the registry
 * ({@link WorkerTasks#workerTask}); the plan's modules (scenario services and core modules) are probed (HTTP health,
 * TCP connect, Prometheus when it has a scrape path); other registered services of the team are not.
 */
public final class RunLayout {
    /** Probe deadline per target, milliseconds (shorter than the probe function's own timeout). */
    public static final int PROBE_TIMEOUT_MS = 1_000;
    /** A request sent later than this after its due time is counted late, milliseconds. */
    public static final int LATENESS_TOLERANCE_MS = 100;
    private RunLayout() {}

    /**
     * Starts a step: its legs, each with the same workers, sharing one schedule that starts
     * {@link Quotas#workerLeadMs()} from now (so the first leg's workers are warm when request 0 is due).
     *
     * @param step     the step
     * @param plan     the run's plan
     * @param services the team's registered services
     * @param nowMs    current epoch ms
     * @param aborted  true when the step is not to run (the run's abort flag is set, or a warm-up step after the warm-up
     *                 was steady): the step is skipped (no legs)
     * @param quotas   the limits and lead times
     * @throws IllegalArgumentException when the step cannot be laid out (see {@link StepLayout#of})
     */
    public static StartedStep start(StepRef step, Plan plan, List<RegisteredService> services, long nowMs,
                                    boolean aborted, Quotas quotas) {
        return start(step, plan, services, EvidenceSources.none(plan.teamId()), nowMs, aborted, quotas);
    }

    /**
     * Starts a step as {@link #start(StepRef, Plan, List, long, boolean, Quotas)} does, its probe targets including the
     * team's own evidence of the step's modules ({@link #evidenceTargets}).
     */
    public static StartedStep start(StepRef step, Plan plan, List<RegisteredService> services, EvidenceSources evidence,
                                    long nowMs, boolean aborted, Quotas quotas) {
        Set<String> modules = new HashSet<>(plan.coreModules());
        plan.scenarios().forEach(sc -> modules.add(sc.service()));
        List<Map<String, Object>> targets = probeTargets(services.stream().filter(s -> modules.contains(s.name())).toList());
        targets.addAll(evidenceTargets(evidence, new java.util.TreeSet<>(modules)));
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

    /**
     * The stored form of a started (not skipped) step, for its workers. Its in-flight cap per worker (a due request
     * beyond it is counted dropped) is sized from the plan's rate and expected latency by Little's law, within what one
     * worker holds ({@link InFlightSizing#of}).
     */
    public static StepPlan stepPlan(StartedStep started, Plan plan) {
        int maxInFlight = InFlightSizing.of(plan.perWorkerQps(), plan.expectedLatencyMs()).inFlightCap();
        return new StepPlan(started.runId(), started.teamId(), plan.planId(), started.stage(), started.stepIndex(),
                started.qps(), started.durationS(), plan.perWorkerQps(), started.workerCount(), started.stepStartMs(),
                started.legMs(), started.legs().size(), plan.requestTimeoutMs(), maxInFlight, LATENESS_TOLERANCE_MS);
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
                    s.requests().stream().map(r -> replayRequest(r, s.expectFor(r))).toList()));
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

    /**
     * Checks that every scenario targets a registered service and lays out the stages, in run order: the pre-test
     * step, the warm-up's ramp ({@link Plan#warmUpSteps()}; none when its {@code durationS} is 0), the formal steps.
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
        List<Plan.StepSpec> slots = plan.formalSlots();
        for (int i = 0; i < slots.size(); i++) {
            Plan.StepSpec st = slots.get(i);
            formal.add(new StepRef(runId, plan.teamId(), Stages.FORMAL, i, st.qps(), st.durationS()));
        }
        StepRef pre = new StepRef(runId, plan.teamId(), Stages.PRE_TEST, 0, plan.preTest().qps(), plan.preTest().durationS());
        List<StepRef> warmUp = new ArrayList<>();
        List<Plan.StepSpec> rungs = plan.warmUpSteps();
        for (int i = 0; i < rungs.size(); i++) {
            warmUp.add(new StepRef(runId, plan.teamId(), Stages.WARM_UP, i, rungs.get(i).qps(), rungs.get(i).durationS()));
        }
        return new Stages(runId, plan.planId(), plan.teamId(), warmUp, List.of(pre), formal);
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

    private static ReplayRequest replayRequest(Plan.RequestSpec r, Expectation expect) {
        String body = r.bodyBase64() != null ? r.bodyBase64()
                : r.body() == null ? null : Base64.getEncoder().encodeToString(r.body().getBytes(StandardCharsets.UTF_8));
        return new ReplayRequest(r.method(), r.path(), r.headers(), body, expect);
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

    /**
     * The probe targets of the team's own evidence for the step's modules: one {@code promql} target per registered
     * query of a module in the step, one {@code cloudwatch-metric} target per CloudWatch metric of such a module, one
     * {@code alertmanager} target per Alertmanager and module (the probe shapes of {@code ProbeTarget.PromQuery},
     * {@code CloudWatchMetric} and {@code Alerts}), each with the probe deadline. CloudWatch alarms reach the decider
     * through their state-change events instead.
     */
    static List<Map<String, Object>> evidenceTargets(EvidenceSources evidence, java.util.SortedSet<String> modules) {
        List<Map<String, Object>> targets = new ArrayList<>();
        for (EvidenceSources.PrometheusSource p : evidence.prometheus()) {
            for (EvidenceSources.BusinessMetric q : p.queries()) {
                if (!modules.contains(q.module())) continue;
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("module", q.module());
                t.put("kind", "promql");
                t.put("url", p.url());
                t.put("name", q.name());
                t.put("promql", q.promql());
                t.put("timeoutMs", PROBE_TIMEOUT_MS);
                if (q.expect() != null) t.put("expect", q.expect());
                targets.add(t);
            }
        }
        EvidenceSources.CloudWatchSource cw = evidence.cloudwatch();
        for (EvidenceSources.CloudWatchMetric m : cw == null ? List.<EvidenceSources.CloudWatchMetric>of() : cw.metrics()) {
            if (!modules.contains(m.module())) continue;
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("module", m.module());
            t.put("kind", "cloudwatch-metric");
            t.put("name", m.name());
            if (cw.region() != null) t.put("region", cw.region());
            t.put("namespace", m.namespace());
            t.put("metricName", m.metricName());
            t.put("dimensions", m.dimensions());
            t.put("stat", m.stat());
            t.put("periodS", m.periodS());
            t.put("timeoutMs", PROBE_TIMEOUT_MS);
            if (m.expect() != null) t.put("expect", m.expect());
            targets.add(t);
        }
        for (EvidenceSources.AlertmanagerSource a : evidence.alertmanager()) {
            for (String module : modules) {
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("module", module);
                t.put("kind", "alertmanager");
                t.put("url", a.url());
                t.put("source", a.name());
                t.put("matchers", a.matchers());
                t.put("moduleLabel", a.moduleLabel());
                t.put("timeoutMs", PROBE_TIMEOUT_MS);
                targets.add(t);
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
