package dev.richter.common.model;

import java.util.List;
import java.util.Map;

/**
 * A load-test plan (DESIGN.md §1 step 4): scenarios, the mandatory pre-test step, the formal
 * stage's QPS steps in order, the abort policy and the modules whose damage matters.
 *
 * @param planId        plan id, {@code plan-<uuid>}
 * @param teamId        owning team
 * @param name          human name
 * @param scenarios     weighted scenarios (weights normalized over the plan)
 * @param preTest       the pre-test step (low QPS, short)
 * @param formal        the formal stage's steps, run in order
 * @param abortPolicy   when the fault decider stops the run
 * @param coreModules   modules (registered service names) whose DAMAGED verdict aborts the run
 * @param perWorkerQps  maximum rate of one load-driver worker; workers = ceil(stepQps / perWorkerQps)
 * @param requestTimeoutMs deadline of each replayed request, milliseconds
 * @param createdAtMs   epoch milliseconds of creation
 */
public record Plan(String planId, String teamId, String name, List<ScenarioSpec> scenarios, StepSpec preTest,
                   List<StepSpec> formal, AbortPolicy abortPolicy, List<String> coreModules, double perWorkerQps,
                   int requestTimeoutMs, long createdAtMs) {

    public Plan {
        scenarios = scenarios == null ? List.of() : List.copyOf(scenarios);
        formal = formal == null ? List.of() : List.copyOf(formal);
        coreModules = coreModules == null ? List.of() : List.copyOf(coreModules);
        abortPolicy = abortPolicy == null ? AbortPolicy.DEFAULT : abortPolicy;
    }

    /**
     * One scenario as the user wrote it.
     *
     * @param name     scenario name
     * @param service  registered service name the traffic goes to (load goes only to the team's registered services)
     * @param weight   share of the plan's QPS, &gt; 0
     * @param requests the inline traffic set
     */
    public record ScenarioSpec(String name, String service, double weight, List<RequestSpec> requests) {
        public ScenarioSpec {
            requests = requests == null ? List.of() : List.copyOf(requests);
        }
    }

    /**
     * One request of an inline traffic set.
     *
     * @param method     HTTP method
     * @param path       path and query, starting with {@code /}
     * @param headers    headers, one value each
     * @param body       text body (UTF-8), or null
     * @param bodyBase64 binary body, base64, or null; wins over {@code body}
     */
    public record RequestSpec(String method, String path, Map<String, String> headers, String body, String bodyBase64) {
        public RequestSpec {
            headers = headers == null ? Map.of() : Map.copyOf(headers);
        }
    }

    /**
     * One QPS level held for a duration.
     *
     * @param qps       target rate of the whole step, requests per second (may be below 1)
     * @param durationS how long the level is held, seconds
     */
    public record StepSpec(double qps, int durationS) {}

    /**
     * When a run is aborted (DESIGN.md §4).
     *
     * @param abortOnDamagedCoreModule abort as soon as any core module is DAMAGED (default true)
     * @param maxErrorRatePct          abort when the load driver's error rate exceeds this percentage ... (default 50)
     * @param errorRateWindowS         ... for this many consecutive seconds (default 5)
     */
    public record AbortPolicy(boolean abortOnDamagedCoreModule, double maxErrorRatePct, int errorRateWindowS) {
        /** Defaults: abort on a DAMAGED core module, or error rate over 50 % for 5 s. */
        public static final AbortPolicy DEFAULT = new AbortPolicy(true, 50.0, 5);
    }
}
