package dev.richter.common;

/**
 * Physical DynamoDB table names, read from the environment variables that {@code template.yaml}
 * sets on every function (e.g. {@code RUNS_TABLE}); defaults are the local stack's names.
 *
 * @param registry teams' services, mocks and rules ({@code REGISTRY_TABLE}; pk {@code teamId}, sk {@code itemKey})
 * @param plans load-test plans ({@code PLANS_TABLE}; pk {@code planId})
 * @param runs runs with status, current stage/step and abort flag ({@code RUNS_TABLE}; pk {@code runId})
 * @param runMetrics worker results and per-second windows ({@code RUN_METRICS_TABLE}; pk {@code runId}, sk {@code sk})
 * @param verdicts decider state and verdicts ({@code VERDICTS_TABLE}; pk {@code runId}, sk {@code sk})
 * @param links closure table ({@code LINKS_TABLE}; pk {@code pk}, sk {@code sk}, GSI {@code reverse})
 * @param reports finished reports ({@code REPORTS_TABLE}; pk {@code runId})
 * @param audit audit log of key operations ({@code AUDIT_TABLE}; pk {@code teamId}, sk {@code sk})
 * @param leases runs' leases on their target services and idempotency keys of run starts ({@code LEASES_TABLE};
 *               pk {@code leaseKey}; see {@link dev.richter.runs.RunLeases})
 */
public record TableNames(String registry, String plans, String runs, String runMetrics, String verdicts,
                         String links, String reports, String audit, String leases) {

    /** Names without a leases table of its own: {@code richter-leases}. */
    public TableNames(String registry, String plans, String runs, String runMetrics, String verdicts,
                      String links, String reports, String audit) {
        this(registry, plans, runs, runMetrics, verdicts, links, reports, audit, "richter-leases");
    }

    /** Names from the environment, falling back to {@code richter-<table>}. */
    public static TableNames fromEnv() {
        return new TableNames(
                env("REGISTRY_TABLE", "richter-registry"),
                env("PLANS_TABLE", "richter-plans"),
                env("RUNS_TABLE", "richter-runs"),
                env("RUN_METRICS_TABLE", "richter-run-metrics"),
                env("VERDICTS_TABLE", "richter-verdicts"),
                env("LINKS_TABLE", "richter-links"),
                env("REPORTS_TABLE", "richter-reports"),
                env("AUDIT_TABLE", "richter-audit"),
                env("LEASES_TABLE", "richter-leases"));
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
