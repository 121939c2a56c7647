package dev.richter.report;

import dev.richter.common.AwsClients;
import dev.richter.common.Env;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.VerdictRounds;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Reports table (pk {@code runId}; attributes {@code json}, {@code html}), the optional reports bucket (objects
 * {@code reports/<runId>/report.json} and {@code report.html}, whole, where they outlive the stack), and the verdicts
 * the fault decider stored (verdicts table, sk {@code verdict#<atMs %013d>#<module>}, attributes
 * {@code module}, {@code verdict} (HEALTHY/SUSPECT/DAMAGED), {@code reason}, {@code atMs}).
 */
public final class ReportRepository {
    /** Most bytes the JSON and HTML of one report may take together: DynamoDB's 400 KB item, less room for the keys. */
    public static final int MAX_ITEM_BYTES = 395_000;
    /** Largest report file {@link #get} returns from the bucket: a Lambda response carries at most 6 MB. */
    public static final int MAX_INLINE_BYTES = 5 * 1024 * 1024;

    private final DynamoDbClient dynamoDb;
    private final String reportsTable;
    private final String verdictsTable;
    private final S3Client s3;
    private final String bucket;

    /**
     * Without a reports bucket: the report lives in the reports table only.
     *
     * @param dynamoDb      client (built once per container)
     * @param reportsTable  reports table name
     * @param verdictsTable verdicts table name
     */
    public ReportRepository(DynamoDbClient dynamoDb, String reportsTable, String verdictsTable) {
        this(dynamoDb, reportsTable, verdictsTable, null, "");
    }

    /**
     * @param dynamoDb      client (built once per container)
     * @param reportsTable  reports table name
     * @param verdictsTable verdicts table name
     * @param s3            client of the reports bucket; null (with a blank {@code bucket}) when there is none
     * @param bucket        the reports bucket ({@code REPORTS_BUCKET}); blank: none
     * @throws IllegalArgumentException when {@code bucket} is set but {@code s3} is null
     */
    public ReportRepository(DynamoDbClient dynamoDb, String reportsTable, String verdictsTable, S3Client s3, String bucket) {
        this.dynamoDb = dynamoDb;
        this.reportsTable = reportsTable;
        this.verdictsTable = verdictsTable;
        this.bucket = bucket == null ? "" : bucket.strip();
        if (!this.bucket.isEmpty() && s3 == null) {
            throw new IllegalArgumentException("reports bucket " + this.bucket + " without an S3 client");
        }
        this.s3 = s3;
    }

    /** The key of a run's report file in the reports bucket: {@code reports/<runId>/<file>}. */
    public static String objectKey(String runId, String file) {
        return "reports/" + runId + "/" + file;
    }

    /** True when reports also go to a bucket ({@link #putFiles}). */
    public boolean hasBucket() {
        return !bucket.isEmpty();
    }

    /**
     * Writes the run's whole report as {@code reports/<runId>/report.json} and {@code report.html} to the reports
     * bucket (no size limit there, unlike the table item); does nothing without a bucket.
     *
     * @throws software.amazon.awssdk.core.exception.SdkException when S3 refuses or cannot be reached
     */
    public void putFiles(String runId, String json, String html) {
        if (!hasBucket()) {
            return;
        }
        s3.putObject(PutObjectRequest.builder().bucket(bucket).key(objectKey(runId, "report.json"))
                .contentType("application/json").build(), RequestBody.fromString(json));
        s3.putObject(PutObjectRequest.builder().bucket(bucket).key(objectKey(runId, "report.html"))
                .contentType("text/html; charset=utf-8").build(), RequestBody.fromString(html));
    }

    /**
     * Stores (replaces) the run's report as JSON and HTML in one item.
     *
     * @param runId  the run
     * @param teamId the run's team
     * @param json   the report document as JSON (the report function's {@code Report})
     * @param html   the same report as one HTML page
     */
    public void put(String runId, String teamId, String json, String html) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(reportsTable).item(Map.of(
                "runId", AttributeValue.fromS(runId), "teamId", AttributeValue.fromS(teamId),
                "json", AttributeValue.fromS(json), "html", AttributeValue.fromS(html))).build());
    }

    /**
     * The stored report's {@code json} or {@code html} text, empty until the report is written (its table item is the
     * last write). With a reports bucket it is the whole report from {@code reports/<runId>/report.<format>}; the table
     * item's text (which may leave the time series out to fit 400 KB) serves when there is no bucket, when the object is
     * missing, or when it is over {@link #MAX_INLINE_BYTES}, more than a Lambda response can carry.
     *
     * @param format {@code json} or {@code html}
     * @throws software.amazon.awssdk.core.exception.SdkException when DynamoDB, or S3 other than "no such key", fails
     */
    public Optional<String> get(String runId, String format) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(reportsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId))).consistentRead(true).build()).item();
        if (item == null || !item.containsKey(format)) {
            return Optional.empty();
        }
        if (hasBucket()) {
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(GetObjectRequest.builder().bucket(bucket)
                    .key(objectKey(runId, "report." + format)).build())) {
                Long length = in.response().contentLength();
                if (length != null && length <= MAX_INLINE_BYTES) {
                    return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
                in.abort();
            } catch (NoSuchKeyException missing) {
                // written before the bucket existed, or its copy failed: the table item is the report
            } catch (IOException e) {
                throw new UncheckedIOException("reading " + objectKey(runId, "report." + format), e);
            }
        }
        return Optional.of(item.get(format).s());
    }

    /**
     * A repository on the tables of {@code repositories} and, when {@code REPORTS_BUCKET} is set, that bucket (S3 client
     * with the light URL-connection HTTP client, like the other clients).
     */
    public static ReportRepository fromEnv(Repositories repositories) {
        String bucket = Env.get("REPORTS_BUCKET").orElse("");
        S3Client s3 = bucket.isBlank() ? null : S3Client.builder().region(AwsClients.region())
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
        return new ReportRepository(repositories.dynamoDb(), repositories.tables().reports(), repositories.tables().verdicts(),
                s3, bucket);
    }

    /**
     * The run's monitoring defects, summarised per module and defect from the verdict items'
     * {@value MissingEvidence#ATTRIBUTE} attribute (L of S).
     */
    public List<MissingEvidence> missingEvidence(String runId) {
        return MissingEvidence.summarise(VerdictRounds.read(dynamoDb, verdictsTable, runId, 0));
    }

    /**
     * The saturation signals of every stored decision round (the {@code saturation} list of each verdict item's
     * {@code evidence} JSON), in time order; a round without evidence or signals adds none.
     */
    public List<SaturationSignal> saturation(String runId) {
        List<SaturationSignal> out = new ArrayList<>();
        forEachRound(runId, (module, atMs, evidence) -> {
            for (var b : evidence.path("saturation")) {
                out.add(new SaturationSignal(module, atMs, b.path("metric").asText(), b.path("value").asDouble(),
                        b.path("limit").asDouble()));
            }
        });
        return out;
    }

    /** One stored decision round's module, time (epoch ms) and evidence JSON. */
    private interface RoundEvidence {
        void accept(String module, long atMs, JsonNode evidence);
    }

    /** Every stored decision round of the run that has evidence, in time order. */
    private void forEachRound(String runId, RoundEvidence each) {
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(verdictsTable)
                        .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                        .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS("verdict#")))
                        .build())
                .items().forEach(item -> {
                    if (item.containsKey("evidence")) {
                        each.accept(item.get("module").s(), Long.parseLong(item.get("atMs").n()),
                                Json.read(item.get("evidence").s(), JsonNode.class));
                    }
                });
    }

    /**
     * The circuit breakers' not-permitted counters of every stored decision round (the {@code metrics} of each report in
     * a verdict item's {@code evidence}, keys {@value BreakerCount#KEY_PREFIX}{@code <breaker>}), in time order; a module
     * whose scrape shows no Resilience4j breaker adds none.
     */
    public List<BreakerCount> breakerCounts(String runId) {
        List<BreakerCount> out = new ArrayList<>();
        forEachRound(runId, (module, atMs, evidence) -> {
            for (var r : evidence.path("reports")) {
                if (!r.path("module").asText(module).equals(module)) {
                    continue;
                }
                r.path("metrics").fields().forEachRemaining(e -> {
                    if (e.getKey().startsWith(BreakerCount.KEY_PREFIX) && e.getValue().isNumber()) {
                        out.add(new BreakerCount(module, atMs, e.getKey().substring(BreakerCount.KEY_PREFIX.length()),
                                e.getValue().asDouble()));
                    }
                });
            }
        });
        return out;
    }

    /**
     * The run's events ({@link RunEvents}): alerts fired and resolved, verdict changes, and the abort when
     * {@code abortAtMs} is present.
     */
    public List<RunEvent> events(String runId, java.util.OptionalLong abortAtMs, String abortReason) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(verdictsTable)
                        .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                        .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS("verdict#")))
                        .build())
                .items().forEach(items::add);
        return RunEvents.of(items, abortAtMs, abortReason);
    }

    /** Every business metric reading of the run's stored rounds ({@link BusinessMetricRound}), in time order. */
    public List<BusinessMetricRound> businessMetrics(String runId) {
        List<BusinessMetricRound> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(verdictsTable)
                        .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                        .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS("verdict#")))
                        .build())
                .items().forEach(item -> {
                    if (!item.containsKey("evidence")) return;
                    String module = item.get("module").s();
                    long atMs = Long.parseLong(item.get("atMs").n());
                    String step = item.containsKey("step") ? item.get("step").s() : "";
                    for (var m : Json.read(item.get("evidence").s(), JsonNode.class).path("teamEvidence").path("metrics")) {
                        out.add(new BusinessMetricRound(module, m.path("name").asText(), atMs, step, m.path("value").asDouble(),
                                m.path("expected").isNumber() ? m.path("expected").asDouble() : Double.NaN,
                                m.path("judgement").asText()));
                    }
                });
        return out;
    }

    /** Every stored verdict of the run, in sort-key (time) order. */
    public List<Verdict> verdicts(String runId) {
        List<Verdict> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(verdictsTable)
                        .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                        .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS("verdict#")))
                        .build())
                .items().forEach(item -> out.add(new Verdict(item.get("module").s(), Verdict.State.valueOf(item.get("verdict").s()),
                        item.containsKey("reason") ? item.get("reason").s() : "", Long.parseLong(item.get("atMs").n()))));
        return out;
    }
}
