package dev.richter.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AslPayloads;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;

/** The checks function decodes each state's event into its action's record and routes it to its use case. */
class ChecksHandlerTest {
    private static final JsonNode SCOPE = Json.MAPPER.createObjectNode().put("teamId", "t").put("runId", "nightly-1");

    @Test
    void everyEventTheStateMachinesSendDecodesToItsAction() throws IOException {
        Map<String, Class<?>> expected = Map.of("static", ChecksAction.StaticGate.class,
                "dynamic", ChecksAction.DynamicGate.class, "nightly-scopes", ChecksAction.NightlyScopes.class,
                "nightly-static", ChecksAction.NightlyStatic.class, "nightly-dynamic", ChecksAction.NightlyDynamic.class,
                "nightly-compare", ChecksAction.NightlyCompare.class, "nightly-failed", ChecksAction.NightlyFailed.class);
        List<AslPayloads.Payload> payloads = AslPayloads.of("ChecksFunctionArn",
                Map.of("runId", Json.MAPPER.getNodeFactory().textNode("run-1"), "scope", SCOPE));
        assertEquals(expected.keySet(), payloads.stream().map(p -> p.event().path("action").asText())
                .collect(Collectors.toSet()), "each action is sent by some state");
        for (AslPayloads.Payload p : payloads) {
            ChecksAction action = decode(Json.write(p.event()));
            assertEquals(expected.get(p.event().path("action").asText()), action.getClass(), p.state());
        }
        assertEquals(new ChecksAction.DynamicGate("run-1", "pre-test"), decode("{\"action\":\"dynamic\",\"runId\":\"run-1\"}"));
        assertEquals(new ChecksAction.NightlyStatic(SCOPE), decode("{\"action\":\"nightly-static\",\"scope\":" + Json.write(SCOPE) + "}"));
        assertEquals("pre-test", decode("{\"action\":\"dynamic\",\"runId\":\"r\"}").stage(), "the log context's stage");
        var noScope = (ChecksAction.NightlyAction) decode("{\"action\":\"nightly-failed\"}");
        assertEquals(true, noScope.scopeNode().isMissingNode(), "a missing scope reads as a missing node");
    }

    @Test
    void anUnknownActionFailsNamingItAndTheGateOfAnUnknownRunNamesTheRun() {
        ChecksHandler handler = new ChecksHandler(new Repositories(emptyTables(), TableNames.fromEnv()),
                new EventPublisher(null, "richter"));
        var unknown = assertThrows(IllegalArgumentException.class, () -> call(handler, "{\"action\":\"nope\",\"runId\":\"r\"}"));
        assertEquals("unknown action 'nope'; expected one of static, dynamic, nightly-scopes, nightly-static, "
                + "nightly-dynamic, nightly-compare, nightly-failed", unknown.getMessage());
        var run = assertThrows(IllegalArgumentException.class, () -> call(handler, "{\"action\":\"static\",\"runId\":\"run-1\"}"));
        assertEquals("unknown run run-1", run.getMessage());
    }

    private static ChecksAction decode(String json) throws IOException {
        return JsonStreamHandler.decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), ChecksAction.class);
    }

    private static void call(ChecksHandler handler, String json) throws IOException {
        handler.handleRequest(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), new ByteArrayOutputStream(), null);
    }

    /** A DynamoDB client whose tables hold no item. */
    private static DynamoDbClient emptyTables() {
        return (DynamoDbClient) Proxy.newProxyInstance(DynamoDbClient.class.getClassLoader(), new Class<?>[] {DynamoDbClient.class},
                (proxy, method, args) -> {
                    if (args != null && args.length == 1 && args[0] instanceof GetItemRequest) {
                        return GetItemResponse.builder().build();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
