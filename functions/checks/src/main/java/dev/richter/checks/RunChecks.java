package dev.richter.checks;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Counters;
import dev.richter.common.model.Marker;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.WorkerResult;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The run's gate checks. Plain Java, no AWS types.
 *
 * <p>Static (before the pre-test): every scenario's service is registered (FAIL otherwise); it
 * answers a TCP connect within {@link #CONNECT_TIMEOUT_MS} (WARN otherwise: the pre-test is what
 * proves a target, and it fails with the reason); the marker is configured. Dynamic (on the pre-test's results):
 * every expected worker reported; every sent request carried the marker; no connection was
 * refused; the success rate is at least {@link #MIN_PRE_TEST_SUCCESS_PCT}; the run was not aborted.
 * The full middleware/shadow/mock and trace-based checks come with the safety-checks issue.
 */
public final class RunChecks {
    /** Deadline of the static reachability connect, milliseconds. */
    public static final int CONNECT_TIMEOUT_MS = 1_000;
    /** Minimum pre-test success rate (ok / sent) for the formal stage to start, percent. */
    public static final double MIN_PRE_TEST_SUCCESS_PCT = 99.0;

    private RunChecks() {}

    /** Static checks of the plan against the team's registry. */
    public static List<CheckResult> staticChecks(Plan plan, Map<String, RegisteredService> services, Marker marker) {
        List<CheckResult> out = new ArrayList<>();
        Set<String> targeted = plan.scenarios().stream().map(Plan.ScenarioSpec::service).collect(Collectors.toCollection(TreeSet::new));
        for (String name : targeted) {
            RegisteredService s = services.get(name);
            if (s == null) {
                out.add(new CheckResult("target-registered", Outcome.FAIL, name, "service is not registered by team " + plan.teamId()));
                continue;
            }
            out.add(reachable(s));
        }
        boolean markerOk = marker.header() != null && !marker.header().isBlank() && marker.key() != null && !marker.key().isBlank();
        out.add(new CheckResult("marker-configured", markerOk ? Outcome.PASS : Outcome.FAIL, "plan " + plan.planId(),
                markerOk ? "header " + marker.header() + " member " + marker.key() + "=" + marker.value() : "no marker header/key"));
        return out;
    }

    /** TCP reachability of the service's base URL. */
    static CheckResult reachable(RegisteredService s) {
        URI u = URI.create(s.baseUrl());
        int port = u.getPort() > 0 ? u.getPort() : ("https".equals(u.getScheme()) ? 443 : 80);
        long t0 = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(u.getHost(), port), CONNECT_TIMEOUT_MS);
            return new CheckResult("target-answers", Outcome.PASS, s.name(),
                    "connected to " + u.getHost() + ":" + port + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        } catch (IOException e) {
            return new CheckResult("target-answers", Outcome.WARN, s.name(),
                    "cannot connect to " + u.getHost() + ":" + port + ": " + e.getMessage());
        }
    }

    /** Check name of the monitoring-evidence result of the dynamic checks. */
    public static final String MONITORING_CHECK = "monitoring-evidence";

    /**
     * What the pre-test's probe rounds could not observe: one WARN per module and monitoring defect (a scrape
     * that does not parse, naming its line; a metrics path answering 404; an unknown gRPC service), or one
     * PASS. Missing evidence never fails the gate: the module was not shown to be unhealthy, only unobserved.
     *
     * @param missing the defects the fault decider recorded so far ({@link MissingEvidence#summarise})
     */
    public static List<CheckResult> monitoringChecks(List<MissingEvidence> missing) {
        if (missing.isEmpty()) {
            return List.of(new CheckResult(MONITORING_CHECK, Outcome.PASS, "probes", "every probe could be read"));
        }
        return missing.stream().map(m -> new CheckResult(MONITORING_CHECK, Outcome.WARN, m.module(),
                "missing evidence, not counted against the module: " + m.describe())).toList();
    }

    /**
     * Dynamic checks on one stage's worker results.
     *
     * @param expectedWorkers workers the stage's steps started (sum over steps)
     * @param results         stored worker results of the stage
     * @param aborted         the run's abort flag
     * @param abortReason     why it was set
     */
    public static List<CheckResult> preTestChecks(int expectedWorkers, List<WorkerResult> results, boolean aborted,
                                                  String abortReason) {
        List<CheckResult> out = new ArrayList<>();
        String subject = "pre-test";
        if (aborted) {
            out.add(new CheckResult("run-not-aborted", Outcome.FAIL, subject, "run aborted: " + abortReason));
        }
        out.add(new CheckResult("workers-reported", results.size() >= expectedWorkers && expectedWorkers > 0 ? Outcome.PASS : Outcome.FAIL,
                subject, results.size() + " of " + expectedWorkers + " workers reported results"));
        Counters c = results.stream().map(WorkerResult::counters).reduce(Counters.ZERO, Counters::plus);
        out.add(new CheckResult("marker-sent", c.sent() > 0 && c.marked() == c.sent() ? Outcome.PASS : Outcome.FAIL, subject,
                c.marked() + " of " + c.sent() + " sent requests carried the marker"));
        out.add(new CheckResult("no-connect-errors", c.connectErrors() == 0 ? Outcome.PASS : Outcome.FAIL, subject,
                c.connectErrors() == 0 ? "no connection refused" : c.connectErrors() + " of " + c.sent()
                        + " requests could not connect to the target (connection refused or reset)"));
        double successPct = c.sent() == 0 ? 0 : 100.0 * c.ok() / c.sent();
        out.add(new CheckResult("pre-test-success-rate", c.sent() > 0 && successPct >= MIN_PRE_TEST_SUCCESS_PCT ? Outcome.PASS : Outcome.FAIL,
                subject, String.format("%.2f %% of %d requests succeeded (minimum %.1f %%); HTTP errors %s, timeouts %d, "
                        + "connect errors %d, dropped %d", successPct, c.sent(), MIN_PRE_TEST_SUCCESS_PCT, c.httpErrors(),
                        c.timeouts(), c.connectErrors(), c.dropped())
                        + (c.checkFailed() == 0 ? "" : ", check-failed " + c.checkFailed() + " " + c.topCheckFailures(3))));
        return out;
    }
}
