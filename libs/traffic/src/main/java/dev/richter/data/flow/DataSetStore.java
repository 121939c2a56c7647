package dev.richter.data.flow;

import dev.richter.common.Json;
import dev.richter.data.StoredSets;
import dev.richter.data.traffic.TrafficSetStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Flows, data sets and the per-row ledger of flow runs, in the registry table (pk {@code teamId}, sk {@code itemKey}).
 *
 * <p>Items, per team:
 * <ul>
 *   <li>{@code flow#<flowId>}: attribute {@code doc}, the flow's JSON.</li>
 *   <li>{@code datarow#<dataSetId>#<row, 7 digits>}: attribute {@code doc}, one {@link DataSet.Row} as its last attempt
 *       left it. Written as each row ends; a resumed run reads them and skips the {@code ok} ones, so no row's units
 *       run twice after they succeeded.</li>
 *   <li>{@code datachunk#<dataSetId>#<writeId>#<n>}: slices of the complete set's JSON (at most
 *       {@link TrafficSetStore#CHUNK_BYTES} bytes, as traffic sets).</li>
 *   <li>{@code dataset#<dataSetId>}, the manifest, written <b>last</b> (summary {@code doc}, {@code writeId},
 *       {@code chunks}, {@code bytes}, {@code sha256}), only if absent or still naming the write it replaces (a
 *       resume that re-ran failed rows), so two writers never both win. Readers start at the manifest and check the
 *       digest: a set is complete or absent, as a traffic set ({@link TrafficSetStore}).</li>
 * </ul>
 */
public final class DataSetStore {
    static final String FLOW = "flow#";
    static final String ROW = "datarow#";
    static final String CHUNK = "datachunk#";
    static final String MANIFEST = "dataset#";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final int chunkBytes;

    /** @param table the registry table's name */
    public DataSetStore(DynamoDbClient dynamoDb, String table) {
        this(dynamoDb, table, TrafficSetStore.CHUNK_BYTES);
    }

    /** For tests: chunks of at most {@code chunkBytes}. */
    DataSetStore(DynamoDbClient dynamoDb, String table, int chunkBytes) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.chunkBytes = chunkBytes;
    }

    /** Stores a validated flow under its team and id (replacing none: ids are new). */
    public void putFlow(Flow flow) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                "teamId", s(flow.teamId()), "itemKey", s(FLOW + flow.flowId()), "doc", s(Json.write(flow)))).build());
    }

    /** The team's flow, or empty. */
    public Optional<Flow> getFlow(String teamId, String flowId) {
        var item = item(teamId, FLOW + flowId);
        return item.map(i -> Json.read(i.get("doc").s(), Flow.class));
    }

    /** The ledger of one data set's rows: what a run reads to resume and writes as rows end. */
    public FlowRunner.RowLedger ledger(String teamId, String dataSetId) {
        return new FlowRunner.RowLedger() {
            @Override
            public Map<Integer, DataSet.Row> load() {
                Map<Integer, DataSet.Row> rows = new TreeMap<>();
                Map<String, AttributeValue> start = null;
                do {
                    QueryResponse r = dynamoDb.query(QueryRequest.builder().tableName(table).consistentRead(true)
                            .keyConditionExpression("teamId = :t AND begins_with(itemKey, :p)")
                            .expressionAttributeValues(Map.of(":t", s(teamId), ":p", s(ROW + dataSetId + "#")))
                            .exclusiveStartKey(start).build());
                    for (var item : r.items()) {
                        DataSet.Row row = Json.read(item.get("doc").s(), DataSet.Row.class);
                        rows.put(row.row(), row);
                    }
                    start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
                } while (start != null);
                return rows;
            }

            @Override
            public void record(DataSet.Row row) {
                dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                        "teamId", s(teamId), "itemKey", s(ROW + dataSetId + "#" + String.format("%07d", row.row())),
                        "doc", s(Json.write(row)))).build());
            }
        };
    }

    /**
     * Stores a complete set: chunks first, then the manifest (only if absent, or replacing the write this set
     * resumed). The chunks of a replaced write are deleted afterwards (best effort).
     *
     * @throws RuntimeException the SDK's failure (a conditional check when another writer won); the chunks written
     *                          are deleted first and the previous manifest, if any, stands
     */
    public void put(DataSet set) {
        String json = Json.write(set);
        List<String> parts = TrafficSetStore.split(json, chunkBytes);
        String writeId = HexFormat.of().formatHex(ByteBuffer.allocate(8).putLong(RANDOM.nextLong()).array());
        Optional<Map<String, AttributeValue>> previous = item(set.teamId(), MANIFEST + set.dataSetId());
        List<String> written = new ArrayList<>();
        try {
            for (int i = 0; i < parts.size(); i++) {
                String key = chunkKey(set.dataSetId(), writeId, i);
                dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                        "teamId", s(set.teamId()), "itemKey", s(key), "part", s(parts.get(i)))).build());
                written.add(key);
            }
            Map<String, AttributeValue> manifest = new HashMap<>();
            manifest.put("teamId", s(set.teamId()));
            manifest.put("itemKey", s(MANIFEST + set.dataSetId()));
            manifest.put("doc", s(Json.write(set.summary())));
            manifest.put("writeId", s(writeId));
            manifest.put("chunks", AttributeValue.fromN(Integer.toString(parts.size())));
            manifest.put("bytes", AttributeValue.fromN(Integer.toString(json.getBytes(StandardCharsets.UTF_8).length)));
            manifest.put("sha256", s(TrafficSetStore.sha256(json)));
            var put = PutItemRequest.builder().tableName(table).item(manifest);
            if (previous.isEmpty()) {
                put.conditionExpression("attribute_not_exists(itemKey)");
            } else {
                put.conditionExpression("writeId = :w").expressionAttributeValues(Map.of(":w", previous.get().get("writeId")));
            }
            dynamoDb.putItem(put.build());
        } catch (RuntimeException e) {
            delete(set.teamId(), written, e);
            throw e;
        }
        previous.ifPresent(p -> {
            List<String> old = new ArrayList<>();
            for (int i = 0; i < Integer.parseInt(p.get("chunks").n()); i++) {
                old.add(chunkKey(set.dataSetId(), p.get("writeId").s(), i));
            }
            delete(set.teamId(), old, null);
        });
    }

    /**
     * The team's whole set with its rows, or empty when it has no manifest or its chunks are incomplete (read as the
     * workers read it, {@link StoredSets#dataSetJson}).
     */
    public Optional<DataSet> get(String teamId, String dataSetId) {
        return new StoredSets(dynamoDb, table).dataSetJson(teamId, dataSetId)
                .map(json -> Json.MAPPER.convertValue(json, DataSet.class));
    }

    private Optional<Map<String, AttributeValue>> item(String teamId, String itemKey) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(table).consistentRead(true)
                .key(Map.of("teamId", s(teamId), "itemKey", s(itemKey))).build()).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    }

    private void delete(String teamId, List<String> keys, RuntimeException into) {
        for (String key : keys) {
            try {
                dynamoDb.deleteItem(DeleteItemRequest.builder().tableName(table)
                        .key(Map.of("teamId", s(teamId), "itemKey", s(key))).build());
            } catch (RuntimeException cleanup) {
                if (into != null) {
                    into.addSuppressed(cleanup);
                }
            }
        }
    }

    static String chunkKey(String dataSetId, String writeId, int index) {
        return CHUNK + dataSetId + "#" + writeId + "#" + String.format("%05d", index);
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }
}
