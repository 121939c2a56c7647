package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.EvidenceSources.MetricExpectation;
import dev.richter.common.model.HealthReport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.CloudWatchException;
import software.amazon.awssdk.services.cloudwatch.model.GetMetricDataRequest;
import software.amazon.awssdk.services.cloudwatch.model.GetMetricDataResponse;
import software.amazon.awssdk.services.cloudwatch.model.MessageData;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataResult;
import software.amazon.awssdk.services.cloudwatch.model.StatusCode;

/** The GetMetricData query of a CloudWatch business metric and the reading of its answer (CloudWatch API Reference). */
class CloudWatchMetricQueryTest {
    static final long NOW = Instant.parse("2026-12-02T15:00:00Z").toEpochMilli();
    final ProbeTarget.CloudWatchQuery target = new ProbeTarget.CloudWatchQuery("order", "orders", "eu-west-1", "Shop",
            "OrdersCreated", Map.of("Service", "order"), "Sum", 60, 500, new MetricExpectation(1.0, null, null, null, false));

    static GetMetricDataResponse answer(StatusCode status, List<Instant> times, List<Double> values, MessageData... messages) {
        return GetMetricDataResponse.builder().metricDataResults(MetricDataResult.builder().id("m0").label("OrdersCreated")
                .statusCode(status).timestamps(times).values(values).messages(messages).build()).build();
    }

    @Test
    void theQueryAsksForTheMetricStatOverTheLastThreePeriodsNewestFirst() {
        GetMetricDataRequest r = CloudWatchMetricQuery.request(target, NOW);
        assertEquals(1, r.metricDataQueries().size());
        var q = r.metricDataQueries().getFirst();
        assertEquals("m0", q.id());
        assertTrue(q.returnData());
        assertEquals("Shop", q.metricStat().metric().namespace());
        assertEquals("OrdersCreated", q.metricStat().metric().metricName());
        assertEquals("Service", q.metricStat().metric().dimensions().getFirst().name());
        assertEquals("order", q.metricStat().metric().dimensions().getFirst().value());
        assertEquals(60, q.metricStat().period());
        assertEquals("Sum", q.metricStat().stat());
        assertEquals(Instant.parse("2026-12-02T14:57:00Z"), r.startTime());
        assertEquals(Instant.parse("2026-12-02T15:00:00Z"), r.endTime());
        assertEquals("TimestampDescending", r.scanByAsString());
    }

    @Test
    void theNewestDatapointIsTheValueAndBadAnswersAreRefused() {
        assertEquals(42.0, CloudWatchMetricQuery.value(answer(StatusCode.COMPLETE,
                List.of(Instant.parse("2026-12-02T14:59:00Z"), Instant.parse("2026-12-02T14:58:00Z")), List.of(42.0, 40.0))));
        assertEquals(7.0, CloudWatchMetricQuery.value(answer(StatusCode.PARTIAL_DATA,
                List.of(Instant.parse("2026-12-02T14:58:00Z"), Instant.parse("2026-12-02T14:59:00Z")), List.of(3.0, 7.0))),
                "the newest by timestamp, whatever the order");
        assertEquals("no datapoint in the last 3 periods", assertThrows(EvidenceAnswerException.class,
                () -> CloudWatchMetricQuery.value(answer(StatusCode.COMPLETE, List.of(), List.of()))).getMessage());
        assertEquals("StatusCode Forbidden: Forbidden Insufficient permissions", assertThrows(EvidenceAnswerException.class,
                () -> CloudWatchMetricQuery.value(answer(StatusCode.FORBIDDEN, List.of(), List.of(),
                        MessageData.builder().code("Forbidden").value("Insufficient permissions").build()))).getMessage());
        assertEquals("value is NaN, not a finite number", assertThrows(EvidenceAnswerException.class,
                () -> CloudWatchMetricQuery.value(answer(StatusCode.COMPLETE, List.of(Instant.EPOCH), List.of(Double.NaN)))).getMessage());
        assertEquals("MetricDataResults has no result m0", assertThrows(EvidenceAnswerException.class,
                () -> CloudWatchMetricQuery.value(GetMetricDataResponse.builder().build())).getMessage());
    }

    @Test
    void theProbeReportsTheValueAndEveryFailureAsMissingEvidence() {
        CloudWatchClient ok = new CloudWatchClient() {
            @Override public String serviceName() { return "cloudwatch"; }
            @Override public void close() {}
            @Override public GetMetricDataResponse getMetricData(GetMetricDataRequest r) {
                return answer(StatusCode.COMPLETE, List.of(Instant.parse("2026-12-02T14:59:00Z")), List.of(12.0));
            }
        };
        Probes probes = new Probes(Probes.httpClient(null), () -> NOW, region -> ok);
        HealthReport r = probes.probe(target);
        assertTrue(r.ok());
        assertEquals("cloudwatch-metric", r.kind());
        assertEquals(Map.of("business:orders", 12.0, "business:orders:min", 1.0), r.metrics());

        CloudWatchClient denied = new CloudWatchClient() {
            @Override public String serviceName() { return "cloudwatch"; }
            @Override public void close() {}
            @Override public GetMetricDataResponse getMetricData(GetMetricDataRequest r) {
                throw (CloudWatchException) CloudWatchException.builder().statusCode(403).message("not authorized")
                        .awsErrorDetails(AwsErrorDetails.builder().errorCode("AccessDenied").errorMessage("not authorized").build()).build();
            }
        };
        HealthReport d = new Probes(Probes.httpClient(null), () -> NOW, region -> denied).probe(target);
        assertFalse(d.ok());
        assertEquals(HealthReport.Evidence.MONITORING, d.evidence());
        assertEquals("SDK_ERROR", d.status());
        assertTrue(d.detail().startsWith("business metric 'orders' (CloudWatch Shop/OrdersCreated): AccessDenied: not authorized"), d.detail());
    }
}
