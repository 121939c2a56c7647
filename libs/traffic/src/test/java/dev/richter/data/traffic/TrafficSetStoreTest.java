package dev.richter.data.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The store against an in-memory registry table (pk {@code teamId}, sk {@code itemKey}) that understands PutItem
 * (with {@code attribute_not_exists}), GetItem, DeleteItem and a {@code begins_with} Query, and can fail the n-th
 * PutItem. The local-stack integration tests run the same code against dynalite.
 */
class TrafficSetStoreTest {
    /** teamId NUL itemKey -> item, sorted like the table. */
    private final TreeMap<String, Map<String, AttributeValue>> items = new TreeMap<>();
    private final AtomicInteger puts = new AtomicInteger();
    private int failOnPut = -1;

    private final DynamoDbClient ddb = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "putItem" -> put((PutItemRequest) args[0]);
                case "getItem" -> get((GetItemRequest) args[0]);
                case "deleteItem" -> delete((DeleteItemRequest) args[0]);
                case "query" -> query((QueryRequest) args[0]);
                case "close" -> null;
                case "serviceName" -> "dynamodb";
                default -> throw new UnsupportedOperationException(method.getName());
            });

    private static String key(Map<String, AttributeValue> item) {
        return item.get("teamId").s() + "\u0000" + item.get("itemKey").s();
    }

    private PutItemResponse put(PutItemRequest r) {
        if (puts.incrementAndGet() == failOnPut) {
            throw new IllegalStateException("induced failure on put " + failOnPut);
        }
        assertTrue(r.item().values().stream().mapToInt(v -> v.s() == null ? 8 : v.s().length()).sum() < 400_000, "item under 400 KB");
        if ("attribute_not_exists(itemKey)".equals(r.conditionExpression()) && items.containsKey(key(r.item()))) {
            throw ConditionalCheckFailedException.builder().message("exists").build();
        }
        items.put(key(r.item()), r.item());
        return PutItemResponse.builder().build();
    }

    private GetItemResponse get(GetItemRequest r) {
        var item = items.get(key(r.key()));
        return item == null ? GetItemResponse.builder().build() : GetItemResponse.builder().item(item).build();
    }

    private DeleteItemResponse delete(DeleteItemRequest r) {
        items.remove(key(r.key()));
        return DeleteItemResponse.builder().build();
    }

    private QueryResponse query(QueryRequest r) {
        assertEquals("teamId = :t AND begins_with(itemKey, :p)", r.keyConditionExpression());
        String team = r.expressionAttributeValues().get(":t").s();
        String prefix = r.expressionAttributeValues().get(":p").s();
        String after = r.exclusiveStartKey() == null || r.exclusiveStartKey().isEmpty() ? null : key(r.exclusiveStartKey());
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        Map<String, AttributeValue> last = null;
        for (var e : items.entrySet()) {
            var item = e.getValue();
            if (!item.get("teamId").s().equals(team) || !item.get("itemKey").s().startsWith(prefix)
                    || (after != null && e.getKey().compareTo(after) <= 0)) {
                continue;
            }
            if (r.limit() != null && out.size() == r.limit()) {
                break;
            }
            out.add(item);
            last = Map.of("teamId", item.get("teamId"), "itemKey", item.get("itemKey"));
        }
        boolean more = last != null && r.limit() != null && out.size() == r.limit();
        return QueryResponse.builder().items(out).lastEvaluatedKey(more ? last : null).build();
    }

    private static TrafficSet set(String id, String team) {
        return TrafficImporter.importFile(TrafficImporter.Format.HAR, "firefox.har", Corpus.bytes("har/firefox.har"), null)
                .identified(id, team, 1_764_500_000_000L);
    }

    @Test
    void aStoredSetReadsBackWhole() {
        TrafficSetStore store = new TrafficSetStore(ddb, "registry", 4_000);
        TrafficSet set = set("ts-1", "t1");
        store.put(set);
        assertTrue(items.keySet().stream().filter(k -> k.contains("trafficchunk#ts-1#")).count() > 3, "several chunks");
        assertEquals(set, store.get("t1", "ts-1").orElseThrow());
        assertEquals(List.of(set.summary()), store.list("t1", 25, null).items());
        assertTrue(store.get("t2", "ts-1").isEmpty(), "another team's set is absent");
        assertEquals(List.of(), store.list("t2", 25, null).items());
    }

    @Test
    void aWriteThatFailsLeavesNoSetAndNoChunks() {
        TrafficSetStore store = new TrafficSetStore(ddb, "registry", 4_000);
        TrafficSet set = set("ts-2", "t1");
        store.put(set);
        int total = puts.get();
        assertTrue(total > 4, "several chunks and the manifest");
        // the manifest is the last put: a failure at any put, the manifest's included, leaves nothing
        for (int failAt = 1; failAt <= total; failAt++) {
            items.clear();
            puts.set(0);
            failOnPut = failAt;
            assertThrows(IllegalStateException.class, () -> store.put(set), "failure at put " + failAt);
            assertTrue(store.get("t1", "ts-2").isEmpty(), "absent after a failure at put " + failAt);
            assertEquals(List.of(), store.list("t1", 25, null).items());
            assertEquals(Map.of(), items, "nothing left after a failure at put " + failAt);
        }
    }

    @Test
    void chunksWithoutAManifestAreInvisibleAndAMissingChunkMakesTheSetAbsent() {
        TrafficSetStore store = new TrafficSetStore(ddb, "registry", 4_000);
        store.put(set("ts-3", "t1"));
        String manifest = "t1\u0000trafficset#ts-3";
        var saved = items.remove(manifest);
        assertTrue(store.get("t1", "ts-3").isEmpty());
        assertEquals(List.of(), store.list("t1", 25, null).items());
        items.put(manifest, saved);
        items.remove("t1\u0000" + TrafficSetStore.chunkKey("ts-3", saved.get("writeId").s(), 1));
        assertTrue(store.get("t1", "ts-3").isEmpty());
    }

    @Test
    void aSetIdIsWrittenOnce() {
        TrafficSetStore store = new TrafficSetStore(ddb, "registry", 4_000);
        store.put(set("ts-4", "t1"));
        assertThrows(ConditionalCheckFailedException.class, () -> store.put(set("ts-4", "t1")));
        assertTrue(store.get("t1", "ts-4").isPresent(), "the first write stands");
    }

    @Test
    void listsPage() {
        TrafficSetStore store = new TrafficSetStore(ddb, "registry");
        store.put(set("ts-a", "t1"));
        store.put(set("ts-b", "t1"));
        store.put(set("ts-c", "t1"));
        var first = store.list("t1", 2, null);
        assertEquals(List.of("ts-a", "ts-b"), first.items().stream().map(TrafficSet::setId).toList());
        var second = store.list("t1", 2, first.lastKey());
        assertEquals(List.of("ts-c"), second.items().stream().map(TrafficSet::setId).toList());
    }

    @Test
    void noPersonalDataOrCredentialReachesStorage() {
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.HAR, "shop-session.har",
                Corpus.fixture("shop-session.har"), null).identified("ts-pii", "t1", 1L);
        new TrafficSetStore(ddb, "registry", 1_000).put(set);
        String stored = items.values().stream().flatMap(i -> i.values().stream()).map(v -> v.s() == null ? v.n() : v.s())
                .reduce("", String::concat);
        assertTrue(stored.contains("{{slot:email}}") && stored.contains("{{slot:query.access_token}}"), "the slots are stored");
        for (String secret : List.of("alice.smith@example.com", "alice2@example.net", "bob%40example.org", "tok-9f8e7d6c",
                "eyJhbGciOiJIUzI1NiJ9", "hunter2", "4111 1111 1111 1111", "7946 0958", "abc123")) {
            assertFalse(stored.contains(secret), secret + " reached storage");
        }
    }

    @Test
    void splitNeverCutsACharacter() {
        String text = "aé€😀".repeat(1000);
        List<String> parts = TrafficSetStore.split(text, 7);
        assertEquals(text, String.join("", parts));
        assertTrue(parts.stream().allMatch(p -> p.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= 7));
        assertFalse(parts.stream().anyMatch(String::isEmpty));
    }
}
