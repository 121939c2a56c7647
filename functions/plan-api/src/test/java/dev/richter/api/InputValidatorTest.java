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
        assertEquals("shop capacity", validator.parse("plan", plan).path("name").asText());
    }

    @Test
    void everyProblemIsReportedWithItsJsonPath() {
        String plan = """
                {"name": "p", "scenarios": [{"name": "s", "service": "svc", "requests": [{"method": "FETCH", "path": "orders"}]}],
                 "preTest": {"qps": 0, "durationS": 10}, "formal": {"steps": []}, "colour": "red"}
                """;
        ApiException e = assertThrows(ApiException.class, () -> validator.parse("plan", bytes(plan)));
        assertEquals(400, e.status());
        var paths = e.errors().stream().map(m -> m.get("path")).toList();
        assertTrue(paths.contains("$.scenarios[0].requests[0].method"), paths.toString());
        assertTrue(paths.contains("$.scenarios[0].requests[0].path"), paths.toString());
        assertTrue(paths.contains("$.preTest.qps"), paths.toString());
        assertTrue(paths.contains("$.formal.steps"), paths.toString());
        assertTrue(paths.contains("$"), "the unknown field 'colour' is reported at the root: " + paths);
        assertTrue(e.errors().stream().allMatch(m -> !m.get("reason").isBlank()));
    }

    @Test
    void unparsableJsonNamesLineAndColumn() {
        ApiException e = assertThrows(ApiException.class, () -> validator.parse("plan", bytes("{\n  \"name\": ,\n}")));
        assertEquals("InvalidJson", e.code());
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }
}
