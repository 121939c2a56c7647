package dev.richter.checks;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Counters;
import dev.richter.common.model.Marker;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.WindowOutcomes;
import dev.richter.common.model.WorkerKey;
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
 * refused; the success rate of the requests answered after the pre-test's settle ({@link Plan#settleS}) is at least
 * {@link #MIN_PRE_TEST_SUCCESS_PCT}; the run was not aborted.
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
     * Dynamic checks on one stage's worker results. Every request of the stage counts for {@code workers-reported},
     * {@code marker-sent} and {@code no-connect-errors}; {@code pre-test-success-rate} judges the requests answered
     * after the stage's first {@code settleS} seconds ({@link Plan#settleS}): a cold target's first seconds are not a
     * broken target. Its evidence names both parts.
     *
     * <p>The judged part is read from the workers' windows ({@link WindowOutcomes}: outcomes by the second they were
     * observed in): the windows of the seconds from the settle's end on, the settle ending at the first due time plus
     * {@code settleS}, rounded up to a whole second. An outcome is never observed before its request was due, so every
     * request due after the settle is judged, and so is a settle request answered after it. Every request is judged
     * instead (and the evidence says why) when the settle is 0, when the workers' windows do not account for every
     * request their results count (a window not stored, a worker without a result), or when none was answered after
     * the settle.
     *
     * @param expectedWorkers workers the stage's steps started (sum over steps)
     * @param results         stored worker results of the stage
     * @param settleS         the stage's settle, seconds (0: every request judged)
     * @param windows         the stage's stored windows (any worker's; those of workers without a result are ignored)
     * @param aborted         the run's abort flag
     * @param abortReason     why it was set
     */
    public static List<CheckResult> preTestChecks(int expectedWorkers, List<WorkerResult> results, int settleS,
                                                  List<WindowOutcomes> windows, boolean aborted, String abortReason) {
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
        out.add(successRate(c, results, settleS, windows, subject));
        return out;
    }

    /** {@code pre-test-success-rate}: the judged requests' success rate against {@link #MIN_PRE_TEST_SUCCESS_PCT}. */
    private static CheckResult successRate(Counters c, List<WorkerResult> results, int settleS,
                                           List<WindowOutcomes> windows, String subject) {
        String breakdown = String.format("HTTP errors %s, timeouts %d, connect errors %d, dropped %d", c.httpErrors(),
                c.timeouts(), c.connectErrors(), c.dropped())
                + (c.checkFailed() == 0 ? "" : ", check-failed " + c.checkFailed() + " " + c.topCheckFailures(3));
        long failed = c.sent() - c.ok();
        String allJudgedBecause = "";
        if (settleS > 0 && c.sent() > 0) {
            Set<WorkerKey> workers = results.stream().map(WorkerResult::key).collect(Collectors.toSet());
            List<WindowOutcomes> own = windows.stream().filter(w -> workers.contains(w.worker())).toList();
            long outcomes = own.stream().mapToLong(WindowOutcomes::count).sum();
            long errors = own.stream().mapToLong(WindowOutcomes::errors).sum();
            long firstDueMs = results.stream().mapToLong(WorkerResult::startedAtMs).min().orElse(0);
            long settleEndSecond = Math.floorDiv(firstDueMs + settleS * 1000L + 999, 1000);
            long judged = own.stream().filter(w -> w.epochSecond() >= settleEndSecond).mapToLong(WindowOutcomes::count).sum();
            long judgedFailed = own.stream().filter(w -> w.epochSecond() >= settleEndSecond)
                    .mapToLong(WindowOutcomes::errors).sum();
            if (outcomes != c.sent() || errors != failed) {
                allJudgedBecause = "its windows count " + outcomes + " outcomes of " + c.sent() + " requests sent";
            } else if (judged == 0) {
                allJudgedBecause = "none was answered after the " + settleS + " s settle";
            } else {
                double pct = 100.0 * (judged - judgedFailed) / judged;
                return new CheckResult("pre-test-success-rate", pct >= MIN_PRE_TEST_SUCCESS_PCT ? Outcome.PASS : Outcome.FAIL,
                        subject, String.format("%.2f %% of %d requests answered after the %d s settle succeeded (minimum "
                                + "%.1f %%); in the settle: %d of %d degraded/failed; whole pre-test: ", pct, judged,
                                settleS, MIN_PRE_TEST_SUCCESS_PCT, failed - judgedFailed, c.sent() - judged) + breakdown);
            }
        }
        double successPct = c.sent() == 0 ? 0 : 100.0 * c.ok() / c.sent();
        return new CheckResult("pre-test-success-rate", c.sent() > 0 && successPct >= MIN_PRE_TEST_SUCCESS_PCT ? Outcome.PASS : Outcome.FAIL,
                subject, String.format("%.2f %% of %d requests succeeded (minimum %.1f %%); ", successPct, c.sent(),
                        MIN_PRE_TEST_SUCCESS_PCT) + breakdown
                        + (allJudgedBecause.isEmpty() ? "" : "; every request judged: " + allJudgedBecause));
    }
}
