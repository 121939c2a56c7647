package dev.richter.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.runs.RunLeases;
import dev.richter.data.StoredSets;
import dev.richter.sizing.Quotas;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.StartExecutionRequest;
import software.amazon.awssdk.services.sfn.model.StartExecutionResponse;

/** {@link RunStarter} on an in-memory DynamoDB and a recording Step Functions client. */
class RunStarterTest {
    private static final String SM = "arn:aws:states:us-east-1:1:stateMachine:run";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

    private final MemoryTables db = new MemoryTables();
    private final List<StartExecutionRequest> executions = new ArrayList<>();
    /** When set, every StartExecution fails with it. */
    private RuntimeException sfnFailure;

    private final SfnClient sfn = (SfnClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {SfnClient.class}, (proxy, method, args) -> {
                if (!method.getName().equals("startExecution")) {
                    throw new UnsupportedOperationException(method.getName());
                }
                if (sfnFailure != null) {
                    throw sfnFailure;
                }
                StartExecutionRequest r = (StartExecutionRequest) args[0];
                executions.add(r);
                return StartExecutionResponse.builder()
                        .executionArn(r.stateMachineArn().replace(":stateMachine:", ":execution:") + ":" + r.name()).build();
            });

    private final RunStarter starter = new RunStarter(db.repositories, new RunLeases(db.dynamoDb, "leases", CLOCK),
            new PlanValidator(db.repositories, new StoredSets(db.dynamoDb, "registry"), new ContractSchemas(), 100_000,
                    () -> Quotas.AWS),
            new AuditLog(db.dynamoDb, "audit"), sfn, SM, CLOCK);

    RunStarterTest() {
        db.repositories.putService(new RegisteredService("t1", "gateway", "http://127.0.0.1:18080", "/health", null, List.of()));
        db.repositories.putService(new RegisteredService("t1", "order", "http://127.0.0.1:18081", "/health", null, List.of()));
        db.repositories.putService(new RegisteredService("t1", "inventory", "http://127.0.0.1:18082", "/health", null, List.of()));
    }

    /** The demo plan (scenario service {@code order}, core modules {@code order} and {@code inventory}) as {@code planId}. */
    private static Plan demo(String planId) throws Exception {
        return PlanDocument.toPlan(Json.read(Files.readString(Path.of("../../examples/shop/plan.json")), JsonNode.class),
                "t1", planId, 0);
    }

    @Test
    void aStartLeasesTheTargetsStoresTheRunStartsItsExecutionAndAuditsIt() throws Exception {
        RunStart.Started s = assertInstanceOf(RunStart.Started.class, starter.start("alice", demo("plan-1"), 3, ""));

        assertTrue(s.runId().matches("run-20260102T030405-[0-9a-f]{8}"), s.runId());
        assertEquals("plan-1", s.planId());
        assertEquals(3, s.planVersion());
        assertEquals("arn:aws:states:us-east-1:1:execution:run:" + s.runId(), s.executionArn());
        assertEquals("STARTING", s.status());
        assertEquals(false, s.replayed());

        assertEquals(1, executions.size());
        assertEquals(SM, executions.get(0).stateMachineArn());
        assertEquals(s.runId(), executions.get(0).name());
        assertEquals(Map.of("runId", s.runId(), "planId", "plan-1", "teamId", "t1"),
                Json.read(executions.get(0).input(), Map.class));

        var run = db.items("runs").get(s.runId());
        assertEquals("STARTING", run.get("status").s());
        assertEquals("3", run.get("planVersion").n());
        assertEquals("gateway,inventory,order,target:127.0.0.1:18080,target:127.0.0.1:18081,target:127.0.0.1:18082",
                run.get("leasedServices").s());
        assertEquals("alice", run.get("startedBy").s());
        assertEquals(s.executionArn(), run.get("executionArn").s());
        for (String key : List.of("t1#service#gateway", "t1#service#inventory", "t1#service#order", "target#127.0.0.1:18080",
                "target#127.0.0.1:18081", "target#127.0.0.1:18082")) {
            assertEquals(s.runId(), db.items("leases").get(key).get("runId").s(), key);
            assertEquals("t1", db.items("leases").get(key).get("teamId").s(), key);
        }
        var audit = db.items("audit").values().iterator().next();
        assertEquals("StartRun", audit.get("action").s());
        assertEquals("alice", audit.get("caller").s());
        assertEquals(s.runId(), audit.get("target").s());
    }

    @Test
    void theSameIdempotencyKeyAnswersTheFirstRunAndStartsNoOther() throws Exception {
        RunStart.Started first = assertInstanceOf(RunStart.Started.class, starter.start("alice", demo("plan-1"), 1, "key-1"));
        RunStart.Started again = assertInstanceOf(RunStart.Started.class, starter.start("alice", demo("plan-1"), 2, "key-1"));

        assertEquals(new RunStart.Started(first.runId(), "plan-1", 1, first.executionArn(), "STARTING", true), again);
        assertEquals(1, executions.size());
    }

    @Test
    void aPlanThatNoLongerPassesItsChecksIsRefusedAndLeavesNothingBehind() throws Exception {
        db.items("registry").remove("t1|service#inventory"); // a core module of the demo plan

        RunStart.PlanRefused refused = assertInstanceOf(RunStart.PlanRefused.class,
                starter.start("alice", demo("plan-1"), 1, "key-1"));

        assertEquals(List.of(new InputProblem("$.coreModules[1]", "module 'inventory' is not a service registered by team 't1'")),
                refused.problems());
        assertEquals(0, executions.size());
        assertEquals(Map.of(), db.items("runs"));
        assertEquals(Map.of(), db.items("leases"), "no lease taken, the idempotency key unbound");
        assertEquals(Map.of(), db.items("audit"));
    }

    @Test
    void aTargetAnotherRunHoldsRefusesTheStartNamingThatRun() throws Exception {
        RunStart.Started first = assertInstanceOf(RunStart.Started.class, starter.start("alice", demo("plan-1"), 1, ""));

        RunStart.TargetLeased leased = assertInstanceOf(RunStart.TargetLeased.class, starter.start("bob", demo("plan-2"), 1, ""));

        assertEquals("gateway", leased.held().service(), "the first target in name order");
        assertEquals(first.runId(), leased.held().runId());
        assertEquals("plan-1", leased.held().planId());
        assertEquals(1, executions.size());
        assertEquals(1, db.items("runs").size());
    }

    /** Issue 24 finding 1: a second service of the same team on the same address is the same target. */
    @Test
    void aServiceRegisteredTwiceUnderTwoNamesIsOneTarget() throws Exception {
        RunStart.Started first = assertInstanceOf(RunStart.Started.class, starter.start("alice", demo("plan-1"), 1, ""));
        db.repositories.putService(new RegisteredService("t1", "t1svc-alias", "HTTP://127.0.0.1:18082/v2", "/health", null,
                List.of()));

        RunStart.TargetLeased leased = assertInstanceOf(RunStart.TargetLeased.class,
                starter.start("bob", aliasPlan("t1", "plan-2"), 1, ""));

        assertEquals("target:127.0.0.1:18082", leased.held().service());
        assertEquals(first.runId(), leased.held().runId());
        assertTrue(leased.message("t1").startsWith("target 127.0.0.1:18082 is in use by run " + first.runId()
                + " (plan plan-1) until it ends"), leased.message("t1"));
        assertEquals(1, executions.size());
        assertEquals(6, db.items("leases").size(), "the refused start left no lease: the 6 are the first run's");
    }

    /** Issue 24 finding 1: another team's run on the same address refuses the start, and names nothing of it. */
    @Test
    void anotherTeamsRunOnTheSameAddressRefusesTheStartWithoutNamingIt() throws Exception {
        RunStart.Started first = assertInstanceOf(RunStart.Started.class, starter.start("alice", demo("plan-1"), 1, ""));
        db.repositories.putService(new RegisteredService("t2", "t1svc-alias", "http://127.0.0.1:18082", "/health", null,
                List.of()));

        RunStart.TargetLeased leased = assertInstanceOf(RunStart.TargetLeased.class,
                starter.start("mallory", aliasPlan("t2", "plan-x"), 1, ""));

        assertEquals("t1", leased.held().teamId());
        assertEquals("target 127.0.0.1:18082 is in use by another run: one run per target at a time; retry later",
                leased.message("t2"));
        assertTrue(!leased.message("t2").contains(first.runId()) && !leased.message("t2").contains("plan-1"));
        assertEquals(1, executions.size());
        assertEquals(Set.of("t1#service#gateway", "t1#service#inventory", "t1#service#order", "target#127.0.0.1:18080",
                        "target#127.0.0.1:18081", "target#127.0.0.1:18082"),
                db.items("leases").keySet(), "the refused start left no lease behind");
    }

    /** Issue 24 finding 2: a service stored with a port out of range is refused when its plan would run. */
    @Test
    void aStoredServiceWhoseBaseUrlCannotBeLoadedRefusesTheRunAtItsReference() throws Exception {
        db.repositories.putService(new RegisteredService("t1", "inventory", "http://127.0.0.1:99999", "/health", null,
                List.of()));

        RunStart.PlanRefused refused = assertInstanceOf(RunStart.PlanRefused.class, starter.start("alice", demo("plan-1"), 1, ""));

        assertEquals(List.of(new InputProblem("$.coreModules[1]", "service 'inventory' cannot be loaded: its baseUrl"
                + " 'http://127.0.0.1:99999' port 99999 is out of range: a port is a number from 1 to 65535; register it"
                + " again (POST /services)")), refused.problems());
        assertEquals(Map.of(), db.items("leases"));
    }

    /** The demo plan of team {@code teamId} whose one scenario loads service {@code t1svc-alias}. */
    private static Plan aliasPlan(String teamId, String planId) throws Exception {
        var doc = (ObjectNode) Json.MAPPER.readTree(
                Files.readString(Path.of("../../examples/shop/plan.json")));
        doc.withArray("scenarios").forEach(sc -> ((ObjectNode) sc).put("service", "t1svc-alias"));
        doc.putArray("coreModules").add("t1svc-alias");
        return PlanDocument.toPlan(doc, teamId, planId, 0);
    }

    @Test
    void anExecutionThatCannotStartReleasesTheLeasesAndMarksTheRun() throws Exception {
        sfnFailure = new IllegalStateException("Step Functions is down");

        RunStart.ExecutionNotStarted failed = assertInstanceOf(RunStart.ExecutionNotStarted.class,
                starter.start("alice", demo("plan-1"), 1, "key-1"));

        var run = db.items("runs").get(failed.runId());
        assertEquals("FAILED_TO_START", run.get("status").s());
        assertEquals("ERROR", run.get("outcome").s());
        assertEquals(Map.of(), db.items("leases"), "leases released, the key unbound");
    }

    /** A run stored SCHEDULED, as PlannedStarts stores it. */
    private String scheduled(Plan plan) {
        String runId = starter.newRunId();
        db.repositories.createRun(new dev.richter.common.model.Run(runId, plan.planId(), "t1", "SCHEDULED", "", "", -1,
                CLOCK.millis(), false, "", ""));
        return runId;
    }

    private String status(String runId) {
        return db.repositories.getRun(runId).orElseThrow().status();
    }

    @Test
    void aPlannedStartWaitsForItsSecondThenLeasesAndStartsAndARepeatedDeliveryStartsNothing() throws Exception {
        Plan plan = demo("plan-1");
        String runId = scheduled(plan);
        List<String> order = new ArrayList<>();

        RunStart first = starter.startScheduled("alice", plan, 2, runId, () -> order.add("waited, status " + status(runId)));
        RunStart again = starter.startScheduled("alice", plan, 2, runId, () -> order.add("waited again"));

        assertInstanceOf(RunStart.Started.class, first);
        assertEquals(List.of("waited, status SCHEDULED"), order, "cancellable until its second; a repeated delivery never waits");
        assertEquals(new RunStart.NotScheduled(runId, "STARTING"), again);
        assertEquals(1, executions.size());
        assertEquals(runId, executions.get(0).name());
        assertEquals("STARTING", status(runId));
        assertEquals(List.of("gateway", "inventory", "order", "target:127.0.0.1:18080", "target:127.0.0.1:18081",
                "target:127.0.0.1:18082"),
                db.repositories.leasedServices(runId).stream().sorted().toList(), "its targets leased");
    }

    @Test
    void aPlannedStartCancelledWhileItWaitsStartsNothingAndLeasesNothing() throws Exception {
        Plan plan = demo("plan-1");
        String runId = scheduled(plan);

        RunStart r = starter.startScheduled("alice", plan, 1, runId,
                () -> db.repositories.updateRunIfStatus(runId, "SCHEDULED", Map.of("status", "CANCELLED")));

        assertEquals(new RunStart.NotScheduled(runId, "CANCELLED"), r);
        assertEquals(List.of(), executions);
        assertInstanceOf(RunStart.Started.class, starter.start("bob", demo("plan-2"), 1, ""), "nothing was leased");
    }

    @Test
    void aPlannedStartWhoseTargetIsLeasedAtItsSecondIsRecordedStartFailedWithTheHoldingRun() throws Exception {
        RunStart.Started holder = assertInstanceOf(RunStart.Started.class, starter.start("bob", demo("plan-2"), 1, ""));
        Plan plan = demo("plan-1");
        String runId = scheduled(plan);

        RunStart r = starter.startScheduled("alice", plan, 1, runId, () -> { });

        assertInstanceOf(RunStart.TargetLeased.class, r);
        assertEquals("START_FAILED", status(runId));
        assertTrue(db.repositories.getRun(runId).isPresent());
        assertEquals(1, executions.size(), "only the holder's execution");
        var item = db.dynamoDb.getItem(software.amazon.awssdk.services.dynamodb.model.GetItemRequest.builder().tableName("runs")
                .key(Map.of("runId", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(runId))).build()).item();
        assertTrue(item.get("failureReason").s().contains("in use by run " + holder.runId()), item.toString());
        assertEquals("ERROR", item.get("outcome").s());
    }
}
