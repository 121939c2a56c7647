package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.links.store.LinkRepository;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/** The rebuild's window, a team without a trace source left out, and a failing source reported without stopping. */
class LinkRebuildTest {
    private static final long NOW_MS = 1_767_225_600_000L;

    @Test
    void aTeamsFailingSourceIsItsErrorAndTheWindowEndsNow() {
        LinkRebuild rebuild = new LinkRebuild(new LinkService(new LinkRepository(new FakeDynamoDb(), "links"), 32,
                Clock.systemUTC()), new Repositories(registry(Map.of("broken",
                "{\"traceSource\":{\"kind\":\"ftp\",\"path\":\"x\"}}")), TableNames.fromEnv()), () -> NOW_MS);

        Map<String, Object> out = rebuild.rebuild("broken", null);
        assertEquals(NOW_MS, out.get("toEpochMs"));
        assertEquals(NOW_MS - 60_000L * LinkRebuild.DEFAULT_LOOKBACK_MINUTES, out.get("fromEpochMs"));
        @SuppressWarnings("unchecked")
        Map<String, Object> teams = (Map<String, Object>) out.get("teams");
        assertTrue(String.valueOf(teams.get("broken")).contains("error"), teams.toString());

        Map<String, Object> quiet = rebuild.rebuild("quiet", 5);
        assertEquals(NOW_MS - 5 * 60_000L, quiet.get("fromEpochMs"));
        assertEquals(Map.of(), quiet.get("teams"), "a team without a trace source is left out");
    }

    /** A registry whose {@code safety#config} documents are {@code configs} by team. */
    private static DynamoDbClient registry(Map<String, String> configs) {
        return (DynamoDbClient) Proxy.newProxyInstance(DynamoDbClient.class.getClassLoader(), new Class<?>[] {DynamoDbClient.class},
                (proxy, method, args) -> {
                    if (args != null && args.length == 1 && args[0] instanceof QueryRequest q) {
                        String doc = configs.get(q.expressionAttributeValues().get(":t").s());
                        return QueryResponse.builder().items(doc == null ? List.of()
                                : List.of(Map.of("doc", AttributeValue.fromS(doc)))).build();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
