package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Decision rules are stored per team in DynamoDB and read on every decision: a changed rule
 * applies to the very next round of the deployed fault decider, without redeploy (DESIGN.md §4).
 */
class RuleHotReloadIT extends LocalAwsStackTestSupport {
    private static JsonNode decide(String runId, String team, long nowMs) throws Exception {
        Map<String, Object> http = Map.of("module", "cart", "kind", "http", "ok", false, "status", "DOWN",
                "failingComponents", List.of("db"), "latencyMs", 3, "detail", "status DOWN (HTTP 503)", "metrics", Map.of(),
                "observedAtMs", nowMs);
        Map<String, Object> tcp = Map.of("module", "cart", "kind", "tcp", "ok", true, "status", "CONNECTED",
                "failingComponents", List.of(), "latencyMs", 1, "detail", "", "metrics", Map.of(), "observedAtMs", nowMs);
        Map<String, Object> event = Map.of("runId", runId, "teamId", team, "stage", "formal", "stepIndex", 0,
                "stepEndsAtMs", nowMs + 60_000, "coreModules", List.of("cart"),
                "round", Map.of("runId", runId, "observedAtMs", nowMs, "reports", List.of(http, tcp)));
        LambdaHost.Invocation inv = stack.lambdaHost().invoke("FaultDeciderFunction", Json.MAPPER.writeValueAsBytes(event));
        assertNull(inv.functionError(), new String(inv.payload()));
        return Json.MAPPER.readTree(inv.payload());
    }

    private static String verdictOf(JsonNode decision, String module) {
        for (JsonNode v : decision.path("verdicts")) {
            if (v.path("module").asText().equals(module)) {
                return v.path("state").asText();
            }
        }
        return "";
    }

    @Test
    void aChangedVoteThresholdAppliesToTheNextDecision() throws Exception {
        String team = "team-rules";
        String runId = "run-rules-" + System.nanoTime();
        Repositories repos = Repositories.fromEnv();
        repos.createRun(new Run(runId, "plan-x", team, "RUNNING", "", "formal", 0, System.currentTimeMillis(), false, "", ""));

        // defaults: a 0.6 vote (HTTP 0.6 failing, TCP 0.4 ok) is below 0.75 and only one kind fails (2 needed)
        JsonNode first = decide(runId, team, System.currentTimeMillis());
        assertEquals("HEALTHY", verdictOf(first, "cart"), first.toString());

        AwsClients.dynamoDb().putItem(PutItemRequest.builder().tableName(repos.tables().registry()).item(Map.of(
                "teamId", AttributeValue.fromS(team), "itemKey", AttributeValue.fromS("rules#decision"),
                "rules", AttributeValue.fromS("{\"damagedVoteFraction\": 0.5, \"minVotingKinds\": 1}"))).build());

        JsonNode second = decide(runId, team, System.currentTimeMillis() + 2_000);
        assertEquals("DAMAGED", verdictOf(second, "cart"), second.toString());
        assertEquals(true, second.path("abortRequested").asBoolean(), "a DAMAGED core module aborts by default: " + second);
        assertEquals(true, repos.getRun(runId).orElseThrow().abortRequested());
    }
}
