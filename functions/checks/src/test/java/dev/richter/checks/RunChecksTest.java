package dev.richter.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunChecksTest {
    private static Plan plan() {
        return new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("buy", "order", 1, List.of())),
                new Plan.StepSpec(2, 10), List.of(), null, List.of(), 50, 2000, 0);
    }

    private static WorkerResult result(Counters c) {
        return new WorkerResult("run-1", "pre-test", 0, 0, 1, 2, 0, 0, c, null, null, false);
    }

    private static CheckResult named(List<CheckResult> rs, String name) {
        return rs.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void staticCheckPassesForAListeningTargetAndWarnsForAClosedPort() throws IOException {
        try (ServerSocket open = new ServerSocket(0)) {
            int closedPort;
            try (ServerSocket s = new ServerSocket(0)) {
                closedPort = s.getLocalPort();
            }
            var up = new RegisteredService("t1", "order", "http://127.0.0.1:" + open.getLocalPort(), "/h", null, List.of());
            var down = new RegisteredService("t1", "order", "http://127.0.0.1:" + closedPort, "/h", null, List.of());
            assertEquals(Outcome.PASS, CheckResult.worst(RunChecks.staticChecks(plan(), Map.of("order", up), Marker.DEFAULT)));
            var failed = RunChecks.staticChecks(plan(), Map.of("order", down), Marker.DEFAULT);
            assertEquals(Outcome.WARN, named(failed, "target-answers").outcome());
            assertTrue(named(failed, "target-answers").evidence().contains(":" + closedPort), failed.toString());
        }
    }

    @Test
    void staticCheckFailsForAnUnregisteredService() {
        var rs = RunChecks.staticChecks(plan(), Map.of(), Marker.DEFAULT);
        assertEquals(Outcome.FAIL, named(rs, "target-registered").outcome());
    }

    @Test
    void preTestPassesWhenEveryRequestWasMarkedAndSucceeded() {
        var rs = RunChecks.preTestChecks(1, List.of(result(new Counters(20, 20, 20, Map.of(), 0, 0, 0, 0, 20))), 0, List.of(), false, "");
        assertEquals(Outcome.PASS, CheckResult.worst(rs), rs.toString());
    }

    @Test
    void preTestFailsWithTheReasonWhenTheTargetRefusesConnections() {
        var rs = RunChecks.preTestChecks(1, List.of(result(new Counters(20, 20, 0, Map.of(), 0, 20, 0, 0, 20))), 0, List.of(), false, "");
        assertEquals(Outcome.FAIL, named(rs, "no-connect-errors").outcome());
        assertTrue(named(rs, "no-connect-errors").evidence().contains("20 of 20 requests could not connect"));
        assertEquals(Outcome.FAIL, named(rs, "pre-test-success-rate").outcome());
    }

    @Test
    void preTestFailsWhenAWorkerIsMissingOrTheMarkerWasNotSent() {
        var rs = RunChecks.preTestChecks(2, List.of(result(new Counters(20, 20, 20, Map.of(), 0, 0, 0, 0, 19))), 0, List.of(), false, "");
        assertEquals(Outcome.FAIL, named(rs, "workers-reported").outcome());
        assertEquals(Outcome.FAIL, named(rs, "marker-sent").outcome());
    }

    @Test
    void preTestFailsWhenTheRunWasAborted() {
        var rs = RunChecks.preTestChecks(1, List.of(result(new Counters(20, 20, 20, Map.of(), 0, 0, 0, 0, 20))), 0, List.of(), true, "user");
        assertEquals(Outcome.FAIL, named(rs, "run-not-aborted").outcome());
    }

    /** The demo's pre-test: 2 QPS x 10 s, first due at {@code FIRST_DUE_MS} (0.4 s into second {@code T0}). */
    private static final long T0 = 1_796_000_000L;
    private static final long FIRST_DUE_MS = T0 * 1000 + 400;

    /** One worker's pre-test result with its first due time at {@link #FIRST_DUE_MS}. */
    private static WorkerResult started(Counters c, List<Long> unstoredSeconds) {
        return new WorkerResult("run-1", "pre-test", 0, 0, 1, 2, FIRST_DUE_MS, FIRST_DUE_MS + 10_000, c, null, null,
                false, 0, 0, 0, unstoredSeconds);
    }

    /**
     * Windows of one worker: {@code outcomes[i]} observed in second {@code T0 + i}, of which {@code errors[i]} failed.
     */
    private static List<WindowOutcomes> windows(long[] outcomes, long[] errors) {
        List<WindowOutcomes> out = new ArrayList<>();
        for (int i = 0; i < outcomes.length; i++) {
            out.add(new WindowOutcomes(new WorkerKey("pre-test", 0, 0, 0), T0 + i, outcomes[i], errors[i]));
        }
        return out;
    }

    /** 20 requests answered 0, 2, 2, 2, then 2 a second (the settle of 3 s from 0.4 s ends with second T0 + 4). */
    private static final long[] TWENTY = {0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};

    /** Counters of 20 marked requests, {@code degraded} of them answered with the shop's degraded body. */
    private static Counters degraded(long degraded) {
        return new Counters(20, 20, 20 - degraded, Map.of(), 0, 0, 0, 0, 20, degraded,
                degraded == 0 ? Map.of() : Map.of("$.status is \"ACCEPTED\", expected \"PLACED\"", degraded));
    }

    @Test
    void aColdStartsFailuresInTheSettleDoNotFailTheSuccessRate() {
        // MainJobIT's cold pre-test: 2 of 20 degraded, both answered in the first seconds (order's 1 s inventory timeout)
        var rs = RunChecks.preTestChecks(1, List.of(started(degraded(2), List.of())), 3,
                windows(TWENTY, new long[] {0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}), false, "");
        CheckResult success = named(rs, "pre-test-success-rate");
        assertEquals(Outcome.PASS, success.outcome(), success.evidence());
        assertTrue(success.evidence().startsWith("100.00 % of 14 requests answered after the 3 s settle succeeded "
                + "(minimum 99.0 %); in the settle: 2 of 6 degraded/failed"), success.evidence());
        assertTrue(success.evidence().contains("check-failed 2"), success.evidence());
        assertEquals(Outcome.PASS, CheckResult.worst(rs), rs.toString());
    }

    @Test
    void aFailureAfterTheSettleStillFails() {
        var rs = RunChecks.preTestChecks(1, List.of(started(degraded(1), List.of())), 3,
                windows(TWENTY, new long[] {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}), false, "");
        CheckResult success = named(rs, "pre-test-success-rate");
        assertEquals(Outcome.FAIL, success.outcome(), success.evidence());
        assertTrue(success.evidence().startsWith("92.86 % of 14 requests answered after the 3 s settle succeeded"),
                success.evidence());
        assertTrue(success.evidence().contains("in the settle: 0 of 6 degraded/failed"), success.evidence());
    }

    @Test
    void aRequestDueInTheSettleButAnsweredAfterItIsJudged() {
        // the settle ends with second T0 + 4 (0.4 s + 3 s, rounded up to the second): an answer observed in it is judged
        var rs = RunChecks.preTestChecks(1, List.of(started(degraded(1), List.of())), 3,
                windows(TWENTY, new long[] {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}), false, "");
        assertEquals(Outcome.FAIL, named(rs, "pre-test-success-rate").outcome());
    }

    @Test
    void aPreTestTooShortForASettleJudgesEveryRequest() {
        assertEquals(0, Plan.settleS(null, 1), "a 1 s pre-test has no judged part after a settle");
        assertEquals(2, Plan.settleS(null, 4), "never more than half the pre-test");
        assertEquals(3, Plan.settleS(null, 10));
        var oneSecond = new WorkerResult("run-1", "pre-test", 0, 0, 1, 2, FIRST_DUE_MS, FIRST_DUE_MS + 1_000,
                new Counters(2, 2, 1, Map.of(), 1, 0, 0, 0, 2), null, null, false);
        var rs = RunChecks.preTestChecks(1, List.of(oneSecond), Plan.settleS(null, 1),
                windows(new long[] {0, 1, 1}, new long[] {0, 0, 1}), false, "");
        CheckResult success = named(rs, "pre-test-success-rate");
        assertEquals(Outcome.FAIL, success.outcome(), success.evidence());
        assertTrue(success.evidence().startsWith("50.00 % of 2 requests succeeded"), success.evidence());
    }

    @Test
    void aSettleThatNoAnswerOutlastedJudgesEveryRequest() {
        // a settle passed for a pre-test whose answers all came within it: nothing after it to judge, so all is judged
        var rs = RunChecks.preTestChecks(1, List.of(started(degraded(1), List.of())), 3,
                windows(new long[] {0, 10, 10}, new long[] {0, 1, 0}), false, "");
        CheckResult success = named(rs, "pre-test-success-rate");
        assertEquals(Outcome.FAIL, success.outcome(), success.evidence());
        assertTrue(success.evidence().startsWith("95.00 % of 20 requests succeeded"), success.evidence());
        assertTrue(success.evidence().contains("every request judged: none was answered after the 3 s settle"),
                success.evidence());
    }

    @Test
    void windowsThatDoNotAccountForEveryRequestJudgeEveryRequest() {
        // one window was never stored: the windows cannot say which requests came after the settle
        var rs = RunChecks.preTestChecks(1, List.of(started(degraded(2), List.of(T0 + 1))), 3,
                windows(new long[] {0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2}, new long[] {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}),
                false, "");
        CheckResult success = named(rs, "pre-test-success-rate");
        assertEquals(Outcome.FAIL, success.outcome(), success.evidence());
        assertTrue(success.evidence().startsWith("90.00 % of 20 requests succeeded"), success.evidence());
        assertTrue(success.evidence().contains("every request judged: its windows count 18 outcomes of 20 requests sent"),
                success.evidence());
    }

    @Test
    void connectErrorsInTheSettleStillFailTheGate() {
        // the settle only spares the success rate: a target refusing connections fails no-connect-errors
        var c = new Counters(20, 20, 18, Map.of(), 0, 2, 0, 0, 20);
        var rs = RunChecks.preTestChecks(1, List.of(started(c, List.of())), 3,
                windows(TWENTY, new long[] {0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}), false, "");
        assertEquals(Outcome.PASS, named(rs, "pre-test-success-rate").outcome());
        assertEquals(Outcome.FAIL, named(rs, "no-connect-errors").outcome());
        assertTrue(named(rs, "no-connect-errors").evidence().contains("2 of 20 requests could not connect"));
        assertEquals(Outcome.FAIL, CheckResult.worst(rs));
    }

    @Test
    void missingMonitoringEvidenceIsAWarnNamingTheDefectNeverAFail() {
        List<CheckResult> rs = RunChecks.monitoringChecks(List.of(
                new MissingEvidence("order", "prometheus: line 3: invalid escape sequence '\\A'", 5, 5, 1, 9)));
        assertEquals(1, rs.size());
        assertEquals(CheckResult.Outcome.WARN, rs.get(0).outcome());
        assertEquals("order", rs.get(0).subject());
        assertEquals("missing evidence, not counted against the module: prometheus: line 3: invalid escape sequence '\\A'"
                + " (in 5 of 5 rounds)", rs.get(0).evidence());
        assertEquals(CheckResult.Outcome.PASS, RunChecks.monitoringChecks(List.of()).get(0).outcome());
    }
}
