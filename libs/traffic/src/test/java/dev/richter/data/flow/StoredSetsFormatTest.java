package dev.richter.data.flow;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.richter.common.model.DataSetRows;
import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.data.StoredSets;
import dev.richter.data.traffic.TrafficImporter;
import dev.richter.data.traffic.TrafficSet;
import dev.richter.data.traffic.TrafficSetStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;


/**
 * The sets data-construction writes ({@link TrafficSetStore}, {@link DataSetStore}) are what workers read by id
 * ({@link StoredSets} in common, which reads the JSON as a tree): the two sides agree on keys, chunks, digest and shape.
 */
class StoredSetsFormatTest {
    private final FakeRegistry registry = new FakeRegistry();
    private final StoredSets reader = new StoredSets(registry.client, "registry");

    @Test
    void aDataSetWrittenInChunksReadsBackAsRowsById() {
        DataSetStore store = new DataSetStore(registry.client, "registry", 120);
        List<DataSet.Row> rows = List.of(
                new DataSet.Row(0, "ds#0", "ok", true, Map.of("buyerId", TextNode.valueOf("b-0"), "n", com.fasterxml.jackson.databind.node.IntNode.valueOf(7)), null, 1, 1),
                new DataSet.Row(1, "ds#1", "failed", true, Map.of(), "unit create: HTTP 503 from POST http://x/buyers", 1, 1),
                new DataSet.Row(2, "ds#2", "ok", true, Map.of("buyerId", TextNode.valueOf("b-2é"), "n", com.fasterxml.jackson.databind.node.IntNode.valueOf(9)), null, 2, 1));
        store.put(new DataSet("ds", "t1", "flow-1", 5, List.of("buyerId", "n"), Marker.DEFAULT, new DataSet.Counts(3, 2, 1), rows));
        assertTrue(registry.keys("t1", "datachunk#ds#").size() > 2, "several chunks");
        DataSetRows read = reader.dataSet("t1", "ds").orElseThrow();
        assertEquals(List.of("buyerId", "n"), read.columns());
        assertEquals(List.of(0, 2), read.indexes());
        assertEquals(List.of(List.of("b-0", "7"), List.of("b-2é", "9")), read.rows());
        var manifest = reader.manifest("t1", "dataset#ds").orElseThrow();
        assertEquals("[\"buyerId\",\"n\"]", manifest.path("columns").toString(), "the manifest's summary names the columns");
        assertEquals(0, manifest.path("rows").size(), "and holds no rows");
        assertTrue(reader.dataSet("t2", "ds").isEmpty(), "another team's set is absent");
        registry.items.remove("t1\u0000" + registry.keys("t1", "datachunk#ds#").get(1));
        assertTrue(reader.dataSet("t1", "ds").isEmpty(), "a set missing a chunk is absent");
    }

    @Test
    void anImportedTrafficSetReadsBackAsWeightedRequestsById() {
        String log = """
                10.0.0.1 - - [10/Oct/2025:13:55:36 +0000] "GET /items/12?access_token=abc123 HTTP/1.1" 200 612 "-" "curl/8"
                10.0.0.1 - - [10/Oct/2025:13:55:37 +0000] "GET /items/13 HTTP/1.1" 200 612 "-" "curl/8"
                10.0.0.1 - - [10/Oct/2025:13:55:38 +0000] "GET /items/14 HTTP/1.1" 200 612 "-" "curl/8"
                10.0.0.2 - - [10/Oct/2025:13:55:39 +0000] "POST /orders HTTP/1.1" 201 80 "-" "curl/8"
                """;
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.NGINX, "shop.log", log.getBytes(StandardCharsets.UTF_8), null)
                .identified("ts-1", "t1", 5);
        new TrafficSetStore(registry.client, "registry").put(set);
        List<ReplayRequest> requests = reader.trafficSet("t1", "ts-1").orElseThrow();
        assertEquals(100, requests.size());
        assertEquals(75, requests.stream().filter(r -> r.path().startsWith("/items/")).count());
        assertEquals(25, requests.stream().filter(r -> r.method().equals("POST") && r.path().equals("/orders")).count());
        assertTrue(requests.stream().anyMatch(r -> r.path().equals("/items/12?access_token={{slot:query.access_token}}")),
                "the scrubbed token stays a slot a scenario can fill: " + requests.get(0).path());
        assertTrue(reader.manifest("t1", "trafficset#ts-1").isPresent());
    }
}
