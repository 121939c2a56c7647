package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.runs.ContractSchemas;
import dev.richter.sdk.MockConfigDocument;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One rule set for an exit mock (issue 21): what the API's schema ({@code SafetyConfig.mocks} in openapi.json, which
 * {@code PUT /safety} validates) accepts is exactly what the one reader the SDK, the agent extension and the checks use
 * ({@link MockConfigDocument#parse}) answers with, entry by entry.
 */
class MockRulesAgreeTest {
    private static final List<String> ENTRIES = List.of(
            "{\"exit\": \"payment POST /charge\", \"status\": 200}",
            "{\"exit\": \"api.stripe.com/v1/charges\", \"status\": 201, \"body\": \"{}\", \"headers\": {\"a\": \"b\"}, \"latencyMs\": 60000}",
            "{\"exit\": \"a\", \"status\": 100, \"latencyMs\": 0}",
            "{\"exit\": \"a\", \"status\": 599}",
            "{\"exit\": \"a\"}",
            "{\"exit\": \"a\", \"status\": 99}",
            "{\"exit\": \"a\", \"status\": 600}",
            "{\"exit\": \"a\", \"status\": \"200\"}",
            "{\"exit\": \"a\", \"status\": 200.5}",
            "{\"exit\": \"a\", \"status\": 200, \"latencyMs\": -1}",
            "{\"exit\": \"a\", \"status\": 200, \"latencyMs\": 60001}",
            "{\"exit\": \"a\", \"status\": 200, \"latencyMs\": 1.5}",
            "{\"exit\": \"a\", \"status\": 200, \"body\": 5}",
            "{\"exit\": \"a\", \"status\": 200, \"headers\": {\"x\": 1}}",
            "{\"exit\": \"a\", \"status\": 200, \"headers\": []}",
            "{\"exit\": \"a\", \"status\": 200, \"future\": true}",
            "{\"exit\": \"   \", \"status\": 200}",
            "{\"exit\": \"\", \"status\": 200}",
            "{\"exit\": 7, \"status\": 200}",
            "{\"status\": 200}");

    @Test
    void theSchemaAndTheReaderAcceptTheSameMocks() {
        ContractSchemas schemas = new ContractSchemas();
        int accepted = 0;
        for (String entry : ENTRIES) {
            String doc = "{\"mocks\": [" + entry + "]}";
            boolean bySchema = schemas.problems("SafetyConfig", Json.read(doc, JsonNode.class)).isEmpty();
            boolean byReader;
            try {
                MockConfigDocument.parse(doc.getBytes(StandardCharsets.UTF_8));
                byReader = true;
            } catch (IllegalArgumentException e) {
                byReader = false;
            }
            assertEquals(bySchema, byReader, entry + ": schema " + (bySchema ? "accepts" : "refuses") + ", reader "
                    + (byReader ? "accepts" : "refuses"));
            accepted += bySchema ? 1 : 0;
        }
        assertEquals(4, accepted, "the table holds both kinds");
    }
}
