package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.TableNames;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/** Where reports are kept: the table item always, the whole report in the reports bucket when there is one. */
class ReportStorageTest {
    private static final TableNames TABLES = TableNames.fromEnv();

    /** Objects put, by {@code bucket/key}: content type and body. */
    private final Map<String, String[]> objects = new LinkedHashMap<>();
    private final S3Client s3 = (S3Client) Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
            (proxy, method, args) -> {
                if (method.getName().equals("putObject") && args.length == 2 && args[0] instanceof PutObjectRequest r
                        && args[1] instanceof RequestBody b) {
                    try (var in = b.contentStreamProvider().newStream()) {
                        objects.put(r.bucket() + "/" + r.key(), new String[] {r.contentType(), new String(in.readAllBytes(), StandardCharsets.UTF_8)});
                    }
                    return PutObjectResponse.builder().build();
                }
                if (method.getName().equals("getObject") && args.length == 1 && args[0] instanceof GetObjectRequest r) {
                    String[] o = objects.get(r.bucket() + "/" + r.key());
                    if (o == null) {
                        throw NoSuchKeyException.builder().message("The specified key does not exist.").statusCode(404).build();
                    }
                    byte[] bytes = o[1].getBytes(StandardCharsets.UTF_8);
                    return new ResponseInputStream<>(GetObjectResponse.builder().contentLength((long) bytes.length).build(),
                            AbortableInputStream.create(new ByteArrayInputStream(bytes)));
                }
                throw new UnsupportedOperationException(method.getName());
            });

    /** The saturation signals come from each decision round's stored evidence (the decider's VerdictEvidence JSON). */
    @Test
    void saturationSignalsAreReadFromEachRoundsEvidence() {
        FakeDynamo ddb = new FakeDynamo();
        ddb.put(TABLES.verdicts(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS("verdict#0000000002000#order"),
                "module", AttributeValue.fromS("order"), "verdict", AttributeValue.fromS("HEALTHY"), "atMs", AttributeValue.fromN("2000"),
                "evidence", AttributeValue.fromS("{\"rule\":\"healthy\",\"voteFraction\":0.0,\"failingKinds\":[],\"breaches\":[],"
                        + "\"consecutiveFailures\":0,\"consecutiveSuccesses\":1,\"reports\":[],\"missingEvidence\":[],"
                        + "\"saturation\":[{\"metric\":\"hostCpuRatio\",\"value\":0.97,\"limit\":0.9,\"rule\":\"saturation\"},"
                        + "{\"metric\":\"connectionsPending\",\"value\":7.0,\"limit\":0.0,\"rule\":\"saturation\"}]}")));
        ddb.put(TABLES.verdicts(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS("verdict#0000000001000#order"),
                "module", AttributeValue.fromS("order"), "verdict", AttributeValue.fromS("HEALTHY"), "atMs", AttributeValue.fromN("1000")));

        assertEquals(List.of(new SaturationSignal("order", 2000, "hostCpuRatio", 0.97, 0.9),
                        new SaturationSignal("order", 2000, "connectionsPending", 7, 0)),
                new ReportRepository(ddb.client, TABLES.reports(), TABLES.verdicts()).saturation("run-1"));
    }

    /** The API reads the whole report from the bucket; the table item when the object is missing or too large to answer. */
    @Test
    void getReadsTheBucketFirstAndTheTableItemOtherwise() throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        ReportRepository repo = new ReportRepository(ddb.client, TABLES.reports(), TABLES.verdicts(), s3, "richter-reports");
        assertTrue(repo.get("run-1", "json").isEmpty(), "not written yet: no table item");
        ddb.put(TABLES.reports(), Map.of("runId", AttributeValue.fromS("run-1"), "json", AttributeValue.fromS("{\"fitted\":true}"),
                "html", AttributeValue.fromS("<p>fitted</p>")));
        assertEquals("{\"fitted\":true}", repo.get("run-1", "json").orElseThrow(), "no object in the bucket: the table item");

        repo.putFiles("run-1", "{\"whole\":true}", "<p>whole</p>");
        assertEquals("{\"whole\":true}", repo.get("run-1", "json").orElseThrow());
        assertEquals("<p>whole</p>", repo.get("run-1", "html").orElseThrow());

        repo.putFiles("run-1", "x".repeat(ReportRepository.MAX_INLINE_BYTES + 1), "<p>whole</p>");
        assertEquals("{\"fitted\":true}", repo.get("run-1", "json").orElseThrow(), "over a Lambda response: the table item");
        assertEquals("{\"fitted\":true}", new ReportRepository(ddb.client, TABLES.reports(), TABLES.verdicts())
                .get("run-1", "json").orElseThrow(), "without a bucket: the table item");
    }

    @Test
    void putsBothFilesUnderTheRunIdInTheBucket() {
        new ReportRepository(null, "reports", "verdicts", s3, "richter-reports").putFiles("run-7", "{}", "<html>");
        assertEquals(2, objects.size());
        assertEquals("application/json", objects.get("richter-reports/reports/run-7/report.json")[0]);
        assertEquals("{}", objects.get("richter-reports/reports/run-7/report.json")[1]);
        assertEquals("text/html; charset=utf-8", objects.get("richter-reports/reports/run-7/report.html")[0]);
    }

    @Test
    void withoutABucketNothingGoesToS3() {
        ReportRepository table = new ReportRepository(null, "reports", "verdicts", null, " ");
        table.putFiles("run-7", "{}", "<html>");
        assertTrue(!table.hasBucket() && objects.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> new ReportRepository(null, "reports", "verdicts", null, "b"));
    }

    @Test
    void theHandlerKeepsTheWholeReportInTheBucketAndTheItemInTheTable() throws Exception {
        FakeDynamo ddb = runReport(s3);
        JsonNode inBucket = Json.MAPPER.readTree(objects.get("richter-reports/reports/run-1/report.json")[1]);
        JsonNode inTable = Json.MAPPER.readTree(ddb.find(TABLES.reports(), Map.of("runId", AttributeValue.fromS("run-1"))).get("json").s());
        assertEquals("run-1", inBucket.path("runId").asText());
        assertEquals(inTable.path("outcome").asText(), inBucket.path("outcome").asText());
        assertTrue(objects.get("richter-reports/reports/run-1/report.html")[1].contains("Resilience verdict"));
    }

    @Test
    void aBucketThatRefusesCostsTheCopyNotTheReport() throws Exception {
        S3Client refusing = (S3Client) Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                (proxy, method, args) -> {
                    throw software.amazon.awssdk.services.s3.model.S3Exception.builder().message("Access Denied").statusCode(403).build();
                });
        FakeDynamo ddb = runReport(refusing);
        assertTrue(ddb.find(TABLES.reports(), Map.of("runId", AttributeValue.fromS("run-1"))).containsKey("json"));
    }

    /** Runs the report function on a two-step run with the reports bucket behind {@code bucket}; returns the tables. */
    private static FakeDynamo runReport(S3Client bucket) throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        Repositories repositories = new Repositories(ddb.client, TABLES);
        repositories.putPlan(Fixtures.PLAN);
        repositories.createRun(new Run("run-1", "plan-1", "t1", "RUNNING", "", "formal", 2, 1, false, "", ""));
        new RunMetricsRepository(ddb.client, TABLES.runMetrics()).putChecks("run-1", "dynamic", Fixtures.CLEAN_DYNAMIC);
        for (WorkerResult r : Fixtures.healthyUpTo(2)) {
            ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS(r.sortKey()),
                    "result", AttributeValue.fromS(Json.write(r))));
        }
        EventBridgeClient bus = (EventBridgeClient) Proxy.newProxyInstance(EventBridgeClient.class.getClassLoader(),
                new Class<?>[] {EventBridgeClient.class}, (proxy, method, args) -> PutEventsResponse.builder().failedEntryCount(0).build());

        new ReportHandler(repositories, new EventPublisher(bus, "richter"), bucket, "richter-reports")
                .handle(Json.read("{\"action\":\"report\",\"runId\":\"run-1\",\"state\":{}}", ReportEvent.class), null);
        return ddb;
    }
}
