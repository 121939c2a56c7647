package dev.richter.data;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.DataSetRows;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.SetSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/**
 * Reads stored traffic sets and data sets by id for the functions that replay them (the load driver's workers load
 * the sets of their scenarios themselves, so the state machine's payload carries only ids).
 *
 * <p>The storage format is the one {@code data-construction} writes ({@code TrafficSetStore}, {@code DataSetStore};
 * DESIGN.md "Traffic sets" and "Logic units, flows and data sets"): in the registry table under the team, a manifest
 * ({@code trafficset#<id>} / {@code dataset#<id>}: {@code writeId}, {@code chunks}, {@code sha256}) and chunks
 * ({@code trafficchunk#<id>#<writeId>#<nnnnn>} / {@code datachunk#...}, attribute {@code part}) whose concatenation is
 * the set's JSON. A set without a manifest, with a missing chunk or a digest that does not match is absent. The JSON
 * is read as a tree (shapes: {@code TrafficSet} and {@code DataSet} in openapi.json), so this module does not depend
 * on data-construction.
 */
public final class StoredSets implements SetSource {
    /** Slots of a traffic-set request per unit of endpoint weight when a set becomes a scenario's request list. */
    public static final int REQUESTS_PER_SET = 100;

    private final DynamoDbClient dynamoDb;
    private final String registryTable;

    /** @param registryTable the registry table's name */
    public StoredSets(DynamoDbClient dynamoDb, String registryTable) {
        this.dynamoDb = dynamoDb;
        this.registryTable = registryTable;
    }

    /** The team's traffic set as JSON, or empty. */
    public Optional<JsonNode> trafficSetJson(String teamId, String setId) {
        return read(teamId, "trafficset#" + setId, "trafficchunk#" + setId + "#");
    }

    /** The team's data set as JSON, or empty. */
    public Optional<JsonNode> dataSetJson(String teamId, String dataSetId) {
        return read(teamId, "dataset#" + dataSetId, "datachunk#" + dataSetId + "#");
    }

    /**
     * The summary a set's manifest holds ({@code doc}: the set without its samples or rows; a data set's
     * {@code columns} and {@code counts}), without reading the chunks; empty when there is no manifest.
     *
     * @param manifestKey {@code trafficset#<id>} or {@code dataset#<id>}
     */
    public Optional<JsonNode> manifest(String teamId, String manifestKey) {
        return item(teamId, manifestKey).filter(i -> i.containsKey("doc")).map(i -> Json.read(i.get("doc").s(), JsonNode.class));
    }

    @Override
    public Optional<List<ReplayRequest>> trafficSet(String teamId, String setId) {
        return trafficSetJson(teamId, setId).map(StoredSets::replayRequests);
    }

    @Override
    public Optional<DataSetRows> dataSet(String teamId, String dataSetId) {
        return dataSetJson(teamId, dataSetId).map(StoredSets::rows);
    }

    /**
     * A traffic set's samples as the request list of a scenario, by the endpoints' weights: each endpoint with samples
     * gets {@code max(1, round(weight × 100))} places, filled with its samples in turn, interleaved by smooth weighted
     * round-robin so the list's order spreads every endpoint evenly. Text bodies are sent as UTF-8, {@code base64}
     * bodies as their bytes; a sample with a body and no {@code Content-Type} header is sent with its
     * {@code contentType} as one (sets imported before HAR imports copied {@code postData.mimeType} into the headers).
     */
    public static List<ReplayRequest> replayRequests(JsonNode trafficSet) {
        List<List<ReplayRequest>> samples = new ArrayList<>();
        List<Integer> places = new ArrayList<>();
        for (JsonNode e : trafficSet.path("endpoints")) {
            List<ReplayRequest> rs = new ArrayList<>();
            for (JsonNode s : e.path("samples")) {
                Map<String, String> headers = new LinkedHashMap<>();
                for (JsonNode h : s.path("headers")) {
                    headers.put(h.path("name").asText(), h.path("value").asText());
                }
                String body = s.path("body").asText("");
                String encoding = s.path("bodyEncoding").asText("none");
                String bodyBase64 = body.isEmpty() || encoding.equals("none") ? null
                        : encoding.equals("base64") ? body : Base64.getEncoder().encodeToString(body.getBytes(StandardCharsets.UTF_8));
                String contentType = s.path("contentType").asText("");
                if (bodyBase64 != null && !contentType.isEmpty() && headers.keySet().stream().noneMatch("content-type"::equalsIgnoreCase)) {
                    headers.put("Content-Type", contentType);
                }
                rs.add(new ReplayRequest(s.path("method").asText("GET"), s.path("target").asText("/"), headers, bodyBase64));
            }
            if (!rs.isEmpty()) {
                samples.add(rs);
                places.add(Math.max(1, (int) Math.round(e.path("weight").asDouble() * REQUESTS_PER_SET)));
            }
        }
        int total = places.stream().mapToInt(Integer::intValue).sum();
        int[] current = new int[places.size()];
        int[] next = new int[places.size()];
        List<ReplayRequest> out = new ArrayList<>(total);
        for (int n = 0; n < total; n++) {
            int best = 0;
            for (int i = 0; i < places.size(); i++) {
                current[i] += places.get(i);
                if (current[i] > current[best]) {
                    best = i;
                }
            }
            current[best] -= total;
            List<ReplayRequest> rs = samples.get(best);
            out.add(rs.get(next[best]++ % rs.size()));
        }
        return out;
    }

    /** A data set's {@code ok} rows with their indexes, each value as text (a string as is, any other value as JSON). */
    public static DataSetRows rows(JsonNode dataSet) {
        List<String> columns = new ArrayList<>();
        dataSet.path("columns").forEach(c -> columns.add(c.asText()));
        List<Integer> indexes = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode r : dataSet.path("rows")) {
            if (!"ok".equals(r.path("status").asText())) {
                continue;
            }
            List<String> values = new ArrayList<>(columns.size());
            for (String c : columns) {
                JsonNode v = r.path("values").path(c);
                values.add(v.isTextual() ? v.asText() : v.isMissingNode() ? "" : Json.write(v));
            }
            indexes.add(r.path("row").asInt());
            rows.add(values);
        }
        return new DataSetRows(columns, indexes, rows);
    }

    private Optional<JsonNode> read(String teamId, String manifestKey, String chunkPrefix) {
        var manifest = item(teamId, manifestKey);
        if (manifest.isEmpty()) {
            return Optional.empty();
        }
        int chunks = Integer.parseInt(manifest.get().get("chunks").n());
        String writeId = manifest.get().get("writeId").s();
        StringBuilder json = new StringBuilder();
        for (int i = 0; i < chunks; i++) {
            var chunk = item(teamId, chunkPrefix + writeId + "#" + String.format("%05d", i));
            if (chunk.isEmpty() || !chunk.get().containsKey("part")) {
                return Optional.empty();
            }
            json.append(chunk.get().get("part").s());
        }
        String text = json.toString();
        if (!sha256(text).equals(manifest.get().get("sha256").s())) {
            return Optional.empty();
        }
        return Optional.of(Json.read(text, JsonNode.class));
    }

    private Optional<Map<String, AttributeValue>> item(String teamId, String itemKey) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(registryTable).consistentRead(true)
                .key(Map.of("teamId", AttributeValue.fromS(teamId), "itemKey", AttributeValue.fromS(itemKey))).build()).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
