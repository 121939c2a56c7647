package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.secrets.MemorySecretSealer;
import dev.richter.common.secrets.SecretSealer;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;

/** A team's marker keys are stored sealed: the registry item holds no key, a legacy plain item is read and sealed. */
class MarkerKeysSealedTest {
    /** The registry table in memory: GetItem, and PutItem with the two conditions {@link Repositories} writes. */
    final Map<String, Map<String, AttributeValue>> items = new TreeMap<>();
    final DynamoDbClient ddb = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "getItem" -> {
                    var k = ((GetItemRequest) args[0]).key();
                    yield GetItemResponse.builder().item(items.get(k.get("teamId").s() + "|" + k.get("itemKey").s())).build();
                }
                case "putItem" -> {
                    PutItemRequest r = (PutItemRequest) args[0];
                    String key = r.item().get("teamId").s() + "|" + r.item().get("itemKey").s();
                    var existing = items.get(key);
                    boolean holds = switch (String.valueOf(r.conditionExpression())) {
                        case "null" -> true;
                        case "attribute_not_exists(itemKey)" -> existing == null;
                        case "#d = :old" -> existing != null && existing.get("doc").equals(r.expressionAttributeValues().get(":old"));
                        default -> throw new UnsupportedOperationException(r.conditionExpression());
                    };
                    if (!holds) {
                        throw ConditionalCheckFailedException.builder().message("condition").build();
                    }
                    items.put(key, r.item());
                    yield PutItemResponse.builder().build();
                }
                default -> throw new UnsupportedOperationException(method.getName());
            });
    final TableNames tables = new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit");
    final MemorySecretSealer sealer = new MemorySecretSealer();
    final Repositories repositories = new Repositories(ddb, tables, sealer);

    private String rawDoc(String team) {
        return items.get(team + "|" + Repositories.MARKER_KEYS_KEY).get("doc").s();
    }

    @Test
    void theStoredItemHoldsNoKeyAndOpensOnlyAsItsTeamsMarkerKeys() {
        List<String> keys = repositories.ensureMarkerKeys("team-a");
        assertEquals(1, keys.size());
        String raw = items.toString();
        assertFalse(raw.contains(keys.get(0)), "no marker key in plain text in the table: " + raw);
        assertTrue(rawDoc("team-a").startsWith("{\"sealed\":"), rawDoc("team-a"));
        assertEquals(keys, repositories.markerKeys("team-a"));
        assertEquals(keys, repositories.ensureMarkerKeys("team-a"), "created once");

        // team A's sealed item copied under team B does not open as B's
        items.put("team-b|" + Repositories.MARKER_KEYS_KEY, Map.of("teamId", AttributeValue.fromS("team-b"),
                "itemKey", AttributeValue.fromS(Repositories.MARKER_KEYS_KEY), "doc", AttributeValue.fromS(rawDoc("team-a"))));
        assertThrows(SecretSealer.SecretNotOpenedException.class, () -> repositories.markerKeys("team-b"));
    }

    @Test
    void aLegacyPlainItemIsReadAndSealedByAConditionalPutOnTheUnchangedDoc() {
        String legacy = "{\"keys\":[\"bGVnYWN5LWtleS1vbmU\",\"bGVnYWN5LWtleS10d28\"]}";
        items.put("team-a|" + Repositories.MARKER_KEYS_KEY, Map.of("teamId", AttributeValue.fromS("team-a"),
                "itemKey", AttributeValue.fromS(Repositories.MARKER_KEYS_KEY), "doc", AttributeValue.fromS(legacy)));
        assertEquals(List.of("bGVnYWN5LWtleS1vbmU", "bGVnYWN5LWtleS10d28"), repositories.markerKeys("team-a"));
        assertEquals(legacy, rawDoc("team-a"), "a read never writes");
        assertEquals(List.of("bGVnYWN5LWtleS1vbmU", "bGVnYWN5LWtleS10d28"), repositories.ensureMarkerKeys("team-a"));
        assertFalse(rawDoc("team-a").contains("bGVnYWN5"), rawDoc("team-a"));
        assertEquals(List.of("bGVnYWN5LWtleS1vbmU", "bGVnYWN5LWtleS10d28"), repositories.markerKeys("team-a"));
    }

    @Test
    void anItemWithoutKeysGetsANewSealedKey() {
        items.put("team-a|" + Repositories.MARKER_KEYS_KEY, Map.of("teamId", AttributeValue.fromS("team-a"),
                "itemKey", AttributeValue.fromS(Repositories.MARKER_KEYS_KEY), "doc", AttributeValue.fromS("{\"keys\":[]}")));
        List<String> keys = repositories.ensureMarkerKeys("team-a");
        assertEquals(1, keys.size());
        assertEquals(keys, repositories.markerKeys("team-a"));
        assertFalse(rawDoc("team-a").contains(keys.get(0)));
    }

    @Test
    void withoutASealerRepositoriesFailClosedOnlyWhereASecretIsTouched() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Env.get("RICHTER_SECRETS_KEY").isEmpty());
        Repositories kms = new Repositories(ddb, tables);
        assertEquals(List.of(), kms.markerKeys("team-new"), "no item: nothing to open");
        var e = assertThrows(IllegalStateException.class, () -> kms.ensureMarkerKeys("team-new"));
        assertTrue(e.getMessage().contains("RICHTER_SECRETS_KEY"), e.getMessage());
        assertTrue(items.isEmpty(), "nothing stored in plain text instead");
    }
}
