package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class InputValidatorTest {
    private final InputValidator validator = new InputValidator();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theDemoPlanIsValid() throws Exception {
        byte[] plan = Files.readAllBytes(Path.of("../../examples/shop/plan.json"));
        assertEquals("shop capacity", validator.parse("PlanInput", plan).path("name").asText());
        byte[] gate = Files.readAllBytes(Path.of("../../examples/ci/plan.json"));
        assertEquals("shop release gate", validator.parse("PlanInput", gate).path("name").asText(), "the CI example's plan");
    }

    @Test
    void everyProblemIsReportedWithItsJsonPath() {
        String plan = """
                {"name": "p", "scenarios": [{"name": "s", "service": "svc", "requests": [{"method": "FETCH", "path": "orders"}]}],
                 "preTest": {"qps": 0, "durationS": 10}, "formal": {"steps": []}, "colour": "red"}
                """;
        ApiException e = assertThrows(ApiException.class, () -> validator.parse("PlanInput", bytes(plan)));
        assertEquals(400, e.status());
        var paths = e.errors().stream().map(m -> m.get("path")).toList();
        assertTrue(paths.contains("$.scenarios[0].requests[0].method"), paths.toString());
        assertTrue(paths.contains("$.scenarios[0].requests[0].path"), paths.toString());
        assertTrue(paths.contains("$.preTest.qps"), paths.toString());
        assertTrue(paths.contains("$.formal.steps"), paths.toString());
        assertTrue(paths.contains("$.colour"), "the unknown field 'colour' is reported at its own path: " + paths);
        assertTrue(e.errors().stream().allMatch(m -> !m.get("reason").isBlank()));
    }

    @Test
    void unparsableJsonNamesLineAndColumnOnceAndNoParserInternals() {
        ApiException e = assertThrows(ApiException.class, () -> validator.parse("PlanInput", bytes("{\n  \"name\": ,\n}")));
        assertEquals("InvalidJson", e.code());
        assertEquals("body: not valid JSON at line 2, column 11 (unexpected character ',')", e.getMessage());
        assertEquals("$", e.errors().get(0).get("path"));

        ApiException cut = assertThrows(ApiException.class, () -> validator.parse("PlanInput", bytes("{\"name\": ")));
        assertEquals("body: not valid JSON at line 1, column 10 (the body ends before the JSON value does: the object opened "
                + "at line 1, column 1 is not closed)", cut.getMessage());
        ApiException word = assertThrows(ApiException.class, () -> validator.parse("PlanInput", bytes("{\"name\": nope}")));
        assertTrue(word.getMessage().startsWith("body: not valid JSON at line 1, column "), word.getMessage());
        assertTrue(word.getMessage().endsWith("(unknown word 'nope')"), word.getMessage());
        ApiException trailing = assertThrows(ApiException.class, () -> validator.parse("PlanInput", bytes("{} {}")));
        assertTrue(trailing.getMessage().contains("more content after the JSON value"), trailing.getMessage());
        for (ApiException x : java.util.List.of(e, word, trailing)) {
            String m = x.getMessage();
            assertTrue(!m.contains("Source") && !m.contains("REDACTED") && !m.contains("code ") && !m.contains("jackson")
                    && m.split("column").length == 2, "one position, no parser internals: " + m);
        }
        assertTrue(!cut.getMessage().contains("Source"), "the open object's position is ours, not the parser's: " + cut.getMessage());
    }

    @Test
    void serverFieldsOfAPlanReadBackAreAcceptedAndIgnored() throws Exception {
        String plan = Files.readString(Path.of("../../examples/shop/plan.json")).replaceFirst("\\{",
                "{\"planId\": \"plan-1\", \"teamId\": \"t\", \"version\": 7, \"createdAtMs\": 1, \"updatedAtMs\": \"any\",");
        assertEquals("shop capacity", validator.parse("PlanInput", bytes(plan)).path("name").asText());
    }
}
