package dev.richter.data.traffic;

import dev.richter.common.Json;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Traffic sets in the registry table (pk {@code teamId}, sk {@code itemKey}), complete or absent.
 *
 * <p>Items, per team:
 * <ul>
 *   <li>{@code trafficchunk#<setId>#<writeId>#<nnnnn>}: attribute {@code part}, a slice of the set's JSON (UTF-8, cut
 *       on character boundaries, at most {@link #CHUNK_BYTES} bytes, so an item stays under DynamoDB's 400 KB).
 *       {@code writeId} is random per write, so a second write of the same id never touches the first one's chunks.</li>
 *   <li>{@code trafficset#<setId>}, the manifest, written <b>last</b> with {@code attribute_not_exists(itemKey)}:
 *       {@code doc} (the set's summary JSON, no samples), {@code writeId}, {@code chunks} (count), {@code bytes}
 *       (JSON size) and {@code sha256} (hex of the JSON).</li>
 * </ul>
 * Readers start at the manifest: a set without one does not exist (lists and reads never see chunks alone), and a
 * set whose chunks do not add up to the manifest's size and digest is treated as absent. When a write fails, the
 * chunks written are deleted (best effort; leftovers are invisible without a manifest). DynamoDB was chosen over S3
 * for now: the registry table is already team-scoped and every function can reach it, and a set imported through
 * the API is at most a 4 MiB body; DESIGN.md ("Traffic sets") says when S3 takes over.
 */
public final class TrafficSetStore {
    /** Largest slice of a set's JSON in one chunk item, bytes (the item limit is 400 KB, names and keys included). */
    public static final int CHUNK_BYTES = 350_000;
    static final String MANIFEST = "trafficset#";
    static final String CHUNK = "trafficchunk#";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final int chunkBytes;

    /** @param table the registry table's name */
    public TrafficSetStore(DynamoDbClient dynamoDb, String table) {
        this(dynamoDb, table, CHUNK_BYTES);
    }

    /** For tests: chunks of at most {@code chunkBytes}. */
    TrafficSetStore(DynamoDbClient dynamoDb, String table, int chunkBytes) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.chunkBytes = chunkBytes;
    }

    /**
     * Stores a set under its {@code teamId} and {@code setId}: chunks first, then the manifest.
     *
     * @throws IllegalArgumentException when the set has no id or team
     * @throws RuntimeException         the SDK's failure; the chunks written are deleted first and no manifest exists
     */
    public void put(TrafficSet set) {
        if (set.setId().isBlank() || set.teamId().isBlank()) {
            throw new IllegalArgumentException("a stored traffic set needs its setId and teamId");
        }
        String json = Json.write(set);
        List<String> parts = split(json, chunkBytes);
        String writeId = HexFormat.of().formatHex(ByteBuffer.allocate(8).putLong(RANDOM.nextLong()).array());
        List<String> written = new ArrayList<>();
        try {
            for (int i = 0; i < parts.size(); i++) {
                String key = chunkKey(set.setId(), writeId, i);
                dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                        "teamId", s(set.teamId()), "itemKey", s(key), "part", s(parts.get(i)))).build());
                written.add(key);
            }
            Map<String, AttributeValue> manifest = new HashMap<>();
            manifest.put("teamId", s(set.teamId()));
            manifest.put("itemKey", s(MANIFEST + set.setId()));
            manifest.put("doc", s(Json.write(set.summary())));
            manifest.put("writeId", s(writeId));
            manifest.put("chunks", AttributeValue.fromN(Integer.toString(parts.size())));
            manifest.put("bytes", AttributeValue.fromN(Integer.toString(json.getBytes(StandardCharsets.UTF_8).length)));
            manifest.put("sha256", s(sha256(json)));
            manifest.put("createdAtMs", AttributeValue.fromN(Long.toString(set.createdAtMs())));
            dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(manifest)
                    .conditionExpression("attribute_not_exists(itemKey)").build());
        } catch (RuntimeException e) {
            for (String key : written) {
                try {
                    dynamoDb.deleteItem(DeleteItemRequest.builder().tableName(table)
                            .key(Map.of("teamId", s(set.teamId()), "itemKey", s(key))).build());
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
    }

    /** The team's whole set (with samples), or empty when it has no manifest or its chunks are incomplete. */
    public Optional<TrafficSet> get(String teamId, String setId) {
        var manifest = dynamoDb.getItem(GetItemRequest.builder().tableName(table).consistentRead(true)
                .key(Map.of("teamId", s(teamId), "itemKey", s(MANIFEST + setId))).build()).item();
        if (manifest == null || manifest.isEmpty()) {
            return Optional.empty();
        }
        int chunks = Integer.parseInt(manifest.get("chunks").n());
        StringBuilder json = new StringBuilder();
        for (int i = 0; i < chunks; i++) {
            var item = dynamoDb.getItem(GetItemRequest.builder().tableName(table).consistentRead(true)
                    .key(Map.of("teamId", s(teamId), "itemKey", s(chunkKey(setId, manifest.get("writeId").s(), i)))).build()).item();
            if (item == null || !item.containsKey("part")) {
                return Optional.empty();
            }
            json.append(item.get("part").s());
        }
        String text = json.toString();
        if (!sha256(text).equals(manifest.get("sha256").s())) {
            return Optional.empty();
        }
        return Optional.of(Json.read(text, TrafficSet.class));
    }

    /**
     * The team's sets as summaries (no samples), by id, a page at a time.
     *
     * @param limit at most this many
     * @param start the previous page's {@code lastKey}, or null for the first page
     */
    public SummaryPage list(String teamId, int limit, Map<String, AttributeValue> start) {
        QueryResponse r = dynamoDb.query(QueryRequest.builder().tableName(table)
                .keyConditionExpression("teamId = :t AND begins_with(itemKey, :p)")
                .expressionAttributeValues(Map.of(":t", s(teamId), ":p", s(MANIFEST)))
                .limit(limit).exclusiveStartKey(start).build());
        List<TrafficSet> items = r.items().stream().map(i -> Json.read(i.get("doc").s(), TrafficSet.class)).toList();
        return new SummaryPage(items, r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null);
    }

    /**
     * @param items   summaries of the sets
     * @param lastKey where the next page starts, or null on the last page
     */
    public record SummaryPage(List<TrafficSet> items, Map<String, AttributeValue> lastKey) {}

    /** Splits {@code text} into slices of at most {@code maxBytes} UTF-8 bytes, never inside a character. */
    public static List<String> split(String text, int maxBytes) {
        List<String> out = new ArrayList<>();
        int start = 0;
        int bytes = 0;
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + len > maxBytes) {
                out.add(text.substring(start, i));
                start = i;
                bytes = 0;
            }
            bytes += len;
            i += Character.charCount(cp);
        }
        out.add(text.substring(start));
        return out;
    }

    static String chunkKey(String setId, String writeId, int index) {
        return CHUNK + setId + "#" + writeId + "#" + String.format("%05d", index);
    }

    /** SHA-256 of {@code text}'s UTF-8 bytes, lower-case hex (the manifests' {@code sha256}). */
    public static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }
}
