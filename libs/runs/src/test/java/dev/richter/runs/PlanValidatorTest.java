package dev.richter.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.data.StoredSets;
import dev.richter.sizing.Quotas;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link PlanValidator} on an in-memory registry: every kind of problem, with its path, in one answer. */
class PlanValidatorTest {
    private final MemoryTables db = new MemoryTables();
    /** A cap of 300 QPS and room for 5 concurrent Lambdas: 400 QPS at 50 per worker needs 8 workers + probe + decider. */
    private final PlanValidator validator = new PlanValidator(db.repositories, new StoredSets(db.dynamoDb, "registry"),
            new ContractSchemas(), 300, () -> Quotas.builder().lambdaConcurrency(5).build());

    PlanValidatorTest() {
        db.repositories.putService(new RegisteredService("t1", "order", "http://127.0.0.1:18081", "/health", null, List.of()));
        db.repositories.putRegistryDoc("t1", "dataset#buyers", Map.of("dataSetId", "buyers", "columns", List.of("token"),
                "counts", Map.of("ok", 10)));
    }

    /**
     * Two scenarios, one on an unregistered service with a placeholder of an unbound data set, one on a traffic set
     * that is not stored and a data set with too few rows and without the column a slot names; a core module that
     * is not registered; a formal step over the team's cap and over the account's Lambda concurrency.
     */
    private static final String PLAN = """
            {"name": "many problems",
             "scenarios": [
               {"name": "browse", "service": "catalog", "requests": [{"method": "GET", "path": "/items/{{data.sellers.id}}"}]},
               {"name": "buy", "service": "order", "trafficSetId": "ts-gone", "data": [{"dataSetId": "buyers", "mode": "unique"}],
                "slots": {"header.authorization": "Bearer {{data.buyers.secret}}"}}],
             "preTest": {"qps": 2, "durationS": 10},
             "formal": {"steps": [{"qps": 20, "durationS": 15}, {"qps": 400, "durationS": 15}]},
             "coreModules": ["order", "ledger"],
             "perWorkerQps": 50}
            """;

    @Test
    void aPlanWithProblemsOfEveryKindGetsThemAllInOnePassWithTheirPaths() {
        List<InputProblem> problems = validator.problems(Json.read(PLAN, JsonNode.class), "t1", "plan-1", 0);

        assertEquals(List.of("$.scenarios[0].service", "$.scenarios[0].requests[0].path", "$.scenarios[1].trafficSetId",
                "$.scenarios[1].data[0].dataSetId", "$.scenarios[1].slots.header.authorization", "$.coreModules[1]",
                "$.formal.steps[1].qps", "$.formal.steps[1].qps"), problems.stream().map(InputProblem::path).toList(),
                problems.toString());
        assertEquals(new InputProblem("$.scenarios[0].service", "service 'catalog' is not registered by team 't1'"), problems.get(0));
        assertEquals("{{data.sellers.id}}: the scenario binds no data set 'sellers' (data)", problems.get(1).reason());
        assertEquals("traffic set 'ts-gone' is not stored by team 't1' (POST /traffic-sets)", problems.get(2).reason());
        // the largest step sends 400 x 15 = 6000 requests, half of them in this scenario (weights 1 and 1)
        assertTrue(problems.get(3).reason().startsWith("data set 'buyers' has 10 ok rows but the scenario's largest step sends "
                + "3000 requests"), problems.get(3).reason());
        assertEquals("{{data.buyers.secret}}: data set 'buyers' has no column 'secret' (columns: token)", problems.get(4).reason());
        assertEquals("module 'ledger' is not a service registered by team 't1'", problems.get(5).reason());
        assertEquals("400.0 exceeds the team's QPS cap of 300.0 (template parameter MaxTeamQps, DESIGN.md §7)",
                problems.get(6).reason());
        assertTrue(problems.get(7).reason().contains("10 concurrent Lambda executions")
                && problems.get(7).reason().contains("Lambda concurrency limit of 5"), problems.get(7).reason());
    }

    /** A plan of one scenario on {@code order} with the given {@code preTest} and further top-level fields. */
    private static String plan(String preTest, String moreFields) {
        return """
                {"name": "p", "scenarios": [{"name": "s", "service": "order", "requests": [{"method": "GET", "path": "/"}]}],
                 "preTest": %s, "formal": {"steps": [{"qps": 2, "durationS": 10}]}, "perWorkerQps": 50%s}
                """.formatted(preTest, moreFields);
    }

    private static String warmUpPlan(String warmUp) {
        return plan("{\"qps\": 1, \"durationS\": 10}", ", \"warmUp\": " + warmUp);
    }

    private List<String> problemsOf(String plan) {
        return validator.problems(Json.read(plan, JsonNode.class), "t1", "plan-1", 0).stream()
                .map(p -> p.path() + ": " + p.reason()).toList();
    }

    private List<String> warmUpProblems(String warmUp) {
        return problemsOf(warmUpPlan(warmUp));
    }

    @Test
    void aWarmUpIsCheckedAtItsOwnPaths() {
        assertEquals(List.of(), warmUpProblems("{\"qps\": 5, \"durationS\": 60}"));
        assertEquals(List.of(), warmUpProblems("{\"durationS\": 0}"));
        assertEquals(List.of("$.warmUp.qps: 400.0 exceeds the team's QPS cap of 300.0 (template parameter MaxTeamQps, DESIGN.md §7)"),
                warmUpProblems("{\"qps\": 400, \"durationS\": 1}").subList(0, 1));
        List<String> negative = warmUpProblems("{\"durationS\": -1}");
        assertEquals(1, negative.size(), negative.toString());
        assertTrue(negative.get(0).startsWith("$.warmUp.durationS: "), negative.toString());
        List<String> noDuration = warmUpProblems("{\"qps\": 5}");
        assertEquals(1, noDuration.size(), noDuration.toString());
        assertTrue(noDuration.get(0).startsWith("$.warmUp") && noDuration.get(0).contains("durationS"), noDuration.toString());
    }

    @Test
    void aUniqueDataSetMustLastThroughTheWarmUpToo() {
        // buyers has 10 ok rows; the pre-test and the formal step send 5 and 10 requests, the warm-up 1 x durationS
        String doc = """
                {"name": "p", "scenarios": [{"name": "s", "service": "order", "data": [{"dataSetId": "buyers", "mode": "unique"}],
                  "requests": [{"method": "GET", "path": "/orders/{{data.buyers.token}}"}]}],
                 "preTest": {"qps": 1, "durationS": 5}, "formal": {"steps": [{"qps": 2, "durationS": 5}]}, "perWorkerQps": 50,
                 "warmUp": {"qps": 1, "durationS": %d}}
                """;
        assertEquals(List.of(), validator.problems(Json.read(doc.formatted(10), JsonNode.class), "t1", "plan-1", 0));
        List<InputProblem> problems = validator.problems(Json.read(doc.formatted(11), JsonNode.class), "t1", "plan-1", 0);
        assertEquals(List.of("$.scenarios[0].data[0].dataSetId"), problems.stream().map(InputProblem::path).toList());
        assertTrue(problems.get(0).reason().contains("sends 11 requests"), problems.get(0).reason());
    }

    @Test
    void aStatedWarmUpSurvivesTheStoredDocumentAndAnAbsentOneStaysAbsent() {
        Plan own = PlanDocument.toPlan(Json.read(warmUpPlan("{\"durationS\": 45}"), JsonNode.class), "t1", "plan-1", 0);
        assertEquals(Map.of("durationS", 45), PlanDocument.fields(own).get("warmUp"));
        assertEquals(new Plan.StepSpec(2, 45), own.warmUpStep());
        assertEquals(own, Json.read(Json.write(own), Plan.class), "as Repositories stores and reads it");
        com.fasterxml.jackson.databind.node.ObjectNode noWarmUp =
                (com.fasterxml.jackson.databind.node.ObjectNode) Json.read(warmUpPlan("{}"), JsonNode.class);
        noWarmUp.remove("warmUp");
        Plan none = PlanDocument.toPlan(noWarmUp, "t1", "plan-1", 0);
        assertEquals(null, none.warmUp());
        assertTrue(!PlanDocument.fields(none).containsKey("warmUp"));
    }

    private static String preTestPlan(String preTest) {
        return plan(preTest, "");
    }

    private List<String> preTestProblems(String preTest) {
        return problemsOf(preTestPlan(preTest));
    }

    @Test
    void aPreTestSettleIsAtMostHalfThePreTestAndCheckedAtItsPath() {
        assertEquals(List.of(), preTestProblems("{\"qps\": 2, \"durationS\": 10, \"settleS\": 5}"));
        assertEquals(List.of(), preTestProblems("{\"qps\": 2, \"durationS\": 10, \"settleS\": 0}"));
        assertEquals(List.of("$.preTest.settleS: a settle of 6 s is more than half of the pre-test's 10 s (at most 5 s): "
                + "the success rate must judge at least as many seconds as it leaves out"),
                preTestProblems("{\"qps\": 2, \"durationS\": 10, \"settleS\": 6}"));
        List<String> negative = preTestProblems("{\"qps\": 2, \"durationS\": 10, \"settleS\": -1}");
        assertTrue(negative.size() == 1 && negative.get(0).startsWith("$.preTest.settleS: "), negative.toString());
    }

    @Test
    void aStatedSettleSurvivesTheStoredDocumentAndAnAbsentOneIsTheDefault() {
        Plan own = PlanDocument.toPlan(Json.read(preTestPlan("{\"qps\": 2, \"durationS\": 10, \"settleS\": 0}"),
                JsonNode.class), "t1", "plan-1", 0);
        assertEquals(0, own.preTestSettle(), "0 judges every request");
        assertEquals(Map.of("qps", 2.0, "durationS", 10, "settleS", 0), PlanDocument.fields(own).get("preTest"));
        assertEquals(own, Json.read(Json.write(own), Plan.class), "as Repositories stores and reads it");
        Plan none = PlanDocument.toPlan(Json.read(preTestPlan("{\"qps\": 2, \"durationS\": 10}"), JsonNode.class),
                "t1", "plan-1", 0);
        assertEquals(null, none.preTestSettleS());
        assertEquals(Plan.PRE_TEST_SETTLE_S, none.preTestSettle());
        assertEquals(Map.of("qps", 2.0, "durationS", 10), PlanDocument.fields(none).get("preTest"));
        Plan shortOne = PlanDocument.toPlan(Json.read(preTestPlan("{\"qps\": 2, \"durationS\": 4}"), JsonNode.class),
                "t1", "plan-1", 0);
        assertEquals(2, shortOne.preTestSettle(), "the default is never more than half the pre-test");
    }

    @Test
    void aDocumentOutsideTheSchemaGetsTheSchemasProblemsOnly() {
        // an unregistered service too, but the other checks read fields the schema guarantees: they wait
        String plan = """
                {"name": "p", "scenarios": [{"name": "s", "service": "nobody", "requests": [{"method": "GET", "path": "/"}]}],
                 "preTest": {"qps": 0, "durationS": 10}, "formal": {"steps": [{"qps": 1, "durationS": 10}]}}
                """;
        List<InputProblem> problems = validator.problems(Json.read(plan, JsonNode.class), "t1", "plan-1", 0);
        assertEquals(List.of("$.preTest.qps"), problems.stream().map(InputProblem::path).toList(), problems.toString());
    }

    @Test
    void aStoredPlanIsCheckedAgainstTheRegistryAsItIsNow() {
        String doc = """
                {"name": "p", "scenarios": [{"name": "s", "service": "order", "data": [{"dataSetId": "buyers", "mode": "random"}],
                  "requests": [{"method": "GET", "path": "/orders/{{data.buyers.token}}"}]}],
                 "preTest": {"qps": 1, "durationS": 10}, "formal": {"steps": [{"qps": 2, "durationS": 10}]}, "perWorkerQps": 50}
                """;
        Plan plan = PlanDocument.toPlan(Json.read(doc, JsonNode.class), "t1", "plan-1", 0);
        assertEquals(List.of(), validator.problems(plan));

        db.items("registry").remove("t1|dataset#buyers");
        assertEquals(List.of(new InputProblem("$.scenarios[0].data[0].dataSetId",
                "data set 'buyers' is not stored by team 't1' (POST /flows/{flowId}/runs)")), validator.problems(plan));
    }
}
