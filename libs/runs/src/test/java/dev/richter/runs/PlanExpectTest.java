package dev.richter.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.richter.common.Json;
import dev.richter.common.model.Expectation;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.data.StoredSets;
import dev.richter.sizing.Quotas;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A plan's response checks ({@code expect}, {@code openapi.json#/components/schemas/Expect}): the schema's problems and
 * {@link PlanValidator}'s (JSONPaths and regular expressions that do not compile) at their field paths, and the
 * document's round trip through {@link PlanDocument}.
 */
class PlanExpectTest {
    private final MemoryTables db = new MemoryTables();
    private final PlanValidator validator = new PlanValidator(db.repositories, new StoredSets(db.dynamoDb, "registry"),
            new ContractSchemas(), 300, () -> Quotas.builder().build());

    PlanExpectTest() {
        db.repositories.putService(new RegisteredService("t1", "order", "http://127.0.0.1:18081", "/health", null, List.of()));
    }

    /** The shop's plan with {@code requests[1].expect} replaced by {@code expect} (a JSON object's text). */
    private static JsonNode plan(String expect) {
        return Json.read("""
                {"name": "shop",
                 "scenarios": [{"name": "orders", "service": "order",
                   "expect": {"status": [200, 201]},
                   "requests": [
                     {"method": "GET", "path": "/orders/o-1"},
                     {"method": "POST", "path": "/orders", "body": "{}", "expect": %s}]}],
                 "preTest": {"qps": 2, "durationS": 10},
                 "formal": {"steps": [{"qps": 5, "durationS": 10}]}}
                """.formatted(expect), JsonNode.class);
    }

    private List<InputProblem> problems(String expect) {
        return validator.problems(plan(expect), "t1", "plan-1", 0);
    }

    @Test
    void aPlanWithEveryKindOfCheckIsValidAndReadsBackAsWritten() {
        String expect = """
                {"status": [201], "json": [{"path": "$.status", "equals": "PLACED"}, {"path": "$.items", "nonEmpty": true},
                  {"path": "$.orderId", "matches": "o-[0-9]+"}, {"path": "$.degraded", "absent": true},
                  {"path": "$.reservationId", "absent": false}, {"path": "$.total", "equals": 12.5}],
                 "headers": {"Content-Type": "application/json.*"}, "maxBytes": 4096}""";
        assertEquals(List.of(), problems(expect));

        Plan p = PlanDocument.toPlan(plan(expect), "t1", "plan-1", 0);
        Plan.ScenarioSpec s = p.scenarios().get(0);
        Expectation e = s.requests().get(1).expect();
        assertEquals(List.of(201), e.status());
        assertEquals(List.of(Expectation.CheckKind.EQUALS, Expectation.CheckKind.NON_EMPTY, Expectation.CheckKind.MATCHES,
                Expectation.CheckKind.ABSENT, Expectation.CheckKind.PRESENT, Expectation.CheckKind.EQUALS),
                e.json().stream().map(Expectation.JsonCheck::kind).toList());
        assertEquals(new TextNode("PLACED"), e.json().get(0).value());
        assertEquals(12.5, e.json().get(5).value().asDouble());
        assertEquals(Map.of("Content-Type", "application/json.*"), e.headers());
        assertEquals(4096, e.maxBytes());
        // the request without its own expect takes the scenario's
        assertEquals(List.of(200, 201), s.expectFor(s.requests().get(0)).status());
        assertEquals(e, s.expectFor(s.requests().get(1)));

        // read back (GET /plans/{id}) it is valid input again, and the same plan; stored as JSON it is the same too
        JsonNode back = Json.MAPPER.valueToTree(PlanDocument.fields(p));
        assertEquals(Json.read(expect, JsonNode.class).toString(),
                back.path("scenarios").get(0).path("requests").get(1).path("expect").toString());
        assertEquals(List.of(), validator.problems(back, "t1", "plan-1", 0));
        assertEquals(p, PlanDocument.toPlan(back, "t1", "plan-1", 0));
        assertEquals(p, Json.read(Json.write(p), Plan.class));
    }

    @Test
    void aPathThatIsNoJsonPathAndPatternsThatDoNotCompileAreProblemsAtTheirFields() {
        List<InputProblem> problems = problems("""
                {"json": [{"path": "$.status", "equals": "PLACED"}, {"path": "$.items[?(@.sku ==", "nonEmpty": true},
                          {"path": "$.id", "matches": "o-(["}],
                 "headers": {"Content-Type": "*json"}}""");

        assertEquals(List.of("$.scenarios[0].requests[1].expect.json[1].path",
                "$.scenarios[0].requests[1].expect.json[2].matches",
                "$.scenarios[0].requests[1].expect.headers.Content-Type"),
                problems.stream().map(InputProblem::path).toList(), problems.toString());
        assertTrue(problems.get(0).reason().startsWith("'$.items[?(@.sku ==' is not a JSONPath (Jayway JsonPath syntax, "
                + "e.g. $.status or $.items[0].sku): "), problems.get(0).reason());
        assertTrue(problems.get(1).reason().startsWith("'o-([' is not a regular expression (java.util.regex): "),
                problems.get(1).reason());
        assertTrue(problems.get(2).reason().startsWith("'*json' is not a regular expression (java.util.regex): Dangling "
                + "meta character '*' near index 0"), problems.get(2).reason());
    }

    @Test
    void aScenarioWideExpectIsCheckedAtItsOwnPath() {
        JsonNode doc = plan("{\"status\": [201]}");
        ((com.fasterxml.jackson.databind.node.ObjectNode) doc.path("scenarios").get(0))
                .set("expect", Json.read("{\"json\": [{\"path\": \"$..[\", \"absent\": true}]}", JsonNode.class));
        List<InputProblem> problems = validator.problems(doc, "t1", "plan-1", 0);
        assertEquals(List.of("$.scenarios[0].expect.json[0].path"), problems.stream().map(InputProblem::path).toList(),
                problems.toString());
    }

    @Test
    void theSchemaRefusesMalformedChecksAtTheirPaths() {
        List<InputProblem> problems = problems("""
                {"status": [99, 201], "json": [{"path": "$.a", "equals": 1, "absent": true}, {"path": "$.b"},
                  {"path": "$.c", "nonEmpty": false}], "maxBytes": 0, "statuses": [201]}""");

        // json[0] states two kinds, json[1] none: each is one problem of the item (nonEmpty false is one of the field)
        assertEquals(List.of("$.scenarios[0].requests[1].expect.json[0]", "$.scenarios[0].requests[1].expect.json[1]",
                "$.scenarios[0].requests[1].expect.json[2].nonEmpty",
                "$.scenarios[0].requests[1].expect.maxBytes", "$.scenarios[0].requests[1].expect.status[0]",
                "$.scenarios[0].requests[1].expect.statuses"),
                problems.stream().map(InputProblem::path).distinct().toList(), problems.toString());
        assertTrue(problems.contains(new InputProblem("$.scenarios[0].requests[1].expect.json[0]",
                "must be valid to one and only one schema, but 2 are valid with indexes '0, 3'")), problems.toString());
        assertEquals("unknown field; the fields here are status, json, headers, maxBytes",
                problems.stream().filter(p -> p.path().endsWith(".statuses")).findFirst().orElseThrow().reason());
    }
}
