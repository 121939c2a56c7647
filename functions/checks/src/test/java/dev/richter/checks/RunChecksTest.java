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
import dev.richter.common.model.WorkerResult;
import java.io.IOException;
import java.net.ServerSocket;
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
        var rs = RunChecks.preTestChecks(1, List.of(result(new Counters(20, 20, 20, Map.of(), 0, 0, 0, 0, 20))), false, "");
        assertEquals(Outcome.PASS, CheckResult.worst(rs), rs.toString());
    }

    @Test
    void preTestFailsWithTheReasonWhenTheTargetRefusesConnections() {
        var rs = RunChecks.preTestChecks(1, List.of(result(new Counters(20, 20, 0, Map.of(), 0, 20, 0, 0, 20))), false, "");
        assertEquals(Outcome.FAIL, named(rs, "no-connect-errors").outcome());
        assertTrue(named(rs, "no-connect-errors").evidence().contains("20 of 20 requests could not connect"));
        assertEquals(Outcome.FAIL, named(rs, "pre-test-success-rate").outcome());
    }

    @Test
    void preTestFailsWhenAWorkerIsMissingOrTheMarkerWasNotSent() {
        var rs = RunChecks.preTestChecks(2, List.of(result(new Counters(20, 20, 20, Map.of(), 0, 0, 0, 0, 19))), false, "");
        assertEquals(Outcome.FAIL, named(rs, "workers-reported").outcome());
        assertEquals(Outcome.FAIL, named(rs, "marker-sent").outcome());
    }

    @Test
    void preTestFailsWhenTheRunWasAborted() {
        var rs = RunChecks.preTestChecks(1, List.of(result(new Counters(20, 20, 20, Map.of(), 0, 0, 0, 0, 20))), true, "user");
        assertEquals(Outcome.FAIL, named(rs, "run-not-aborted").outcome());
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
