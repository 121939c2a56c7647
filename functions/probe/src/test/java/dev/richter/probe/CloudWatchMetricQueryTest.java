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

    /** A CloudWatch client whose GetMetricData answers with {@code answer}. */
    static CloudWatchClient client(java.util.function.Function<GetMetricDataRequest, GetMetricDataResponse> answer) {
        return new CloudWatchClient() {
            @Override public String serviceName() { return "cloudwatch"; }
            @Override public void close() {}
            @Override public GetMetricDataResponse getMetricData(GetMetricDataRequest r) { return answer.apply(r); }
        };
    }

    /** A CloudWatch client whose every GetMetricData call fails with this HTTP status and AWS error code. */
    static CloudWatchClient failing(int status, String code, String message) {
        return client(r -> {
            throw (CloudWatchException) CloudWatchException.builder().statusCode(status).message(message)
                    .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).build()).build();
        });
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
        CloudWatchClient ok = client(r -> answer(StatusCode.COMPLETE, List.of(Instant.parse("2026-12-02T14:59:00Z")), List.of(12.0)));
        Probes probes = new Probes(Probes.httpClient(null), () -> NOW, region -> ok);
        HealthReport r = probes.probe(target);
        assertTrue(r.ok());
        assertEquals("cloudwatch-metric", r.kind());
        assertEquals(Map.of("business:orders", 12.0, "business:orders:min", 1.0), r.metrics());

        CloudWatchClient denied = failing(403, "AccessDenied", "not authorized");
        HealthReport d = new Probes(Probes.httpClient(null), () -> NOW, region -> denied).probe(target);
        assertFalse(d.ok());
        assertEquals(HealthReport.Evidence.MONITORING, d.evidence());
        assertEquals("SDK_ERROR", d.status());
        assertTrue(d.detail().startsWith("business metric 'orders' (CloudWatch Shop/OrdersCreated): AccessDenied: not authorized"), d.detail());
    }

    static ProbeTarget.CloudWatchQuery query(int n, String region, int periodS) {
        return new ProbeTarget.CloudWatchQuery("svc" + (n % 7), "orders" + n, region, "Shop", "OrdersCreated",
                Map.of("Service", "svc" + n), "Sum", periodS, 500, new MetricExpectation(1.0, null, null, null, false));
    }

    @Test
    void queriesAreBatchedPerRegionPeriodAndTimeoutInCallsOfAtMost500() {
        List<ProbeTarget.CloudWatchQuery> qs = new java.util.ArrayList<>();
        for (int i = 0; i < 1_200; i++) qs.add(query(i, "eu-west-1", 60));
        qs.add(query(1_200, "us-east-1", 60));
        qs.add(query(1_201, "eu-west-1", 300));
        var batches = CloudWatchMetricQuery.batches(qs);
        assertEquals(List.of(500, 500, 200, 1, 1), batches.stream().map(List::size).toList());
        assertEquals(qs.subList(0, 500), batches.get(0));
        assertEquals(qs.subList(1_000, 1_200), batches.get(2));
        assertEquals("us-east-1", batches.get(3).getFirst().region());
        assertEquals(300, batches.get(4).getFirst().periodS());

        GetMetricDataRequest r = CloudWatchMetricQuery.request(batches.get(2), NOW);
        assertEquals(200, r.metricDataQueries().size());
        assertEquals("m0", r.metricDataQueries().get(0).id());
        assertEquals("m199", r.metricDataQueries().get(199).id());
        assertEquals("svc1199", r.metricDataQueries().get(199).metricStat().metric().dimensions().getFirst().value());
        assertEquals(null, r.maxDatapoints(), "the default, 100 800, holds every datapoint of 500 queries in one page");

        assertThrows(IllegalArgumentException.class, () -> CloudWatchMetricQuery.request(qs.subList(0, 501), NOW));
        assertThrows(IllegalArgumentException.class, () -> CloudWatchMetricQuery.request(List.of(qs.get(0), qs.get(1_201)), NOW));
        assertThrows(IllegalArgumentException.class, () -> CloudWatchMetricQuery.request(List.of(), NOW));
    }

    /** Answers each query {@code m<i>} with i, except that {@code badId}'s result is Forbidden in every call. */
    static GetMetricDataResponse byId(GetMetricDataRequest r, String badId) {
        List<MetricDataResult> results = new java.util.ArrayList<>();
        for (var q : r.metricDataQueries()) {
            double v = Double.parseDouble(q.id().substring(1));
            results.add(q.id().equals(badId)
                    ? MetricDataResult.builder().id(q.id()).statusCode(StatusCode.FORBIDDEN).build()
                    : MetricDataResult.builder().id(q.id()).statusCode(StatusCode.COMPLETE)
                            .timestamps(Instant.parse("2026-12-02T14:59:00Z")).values(v).build());
        }
        java.util.Collections.reverse(results);
        return GetMetricDataResponse.builder().metricDataResults(results).build();
    }

    @Test
    void aRoundOf1200MetricsInOneRegionIsThreeCallsAndEachQueryGetsItsOwnValue() {
        var calls = new java.util.concurrent.atomic.AtomicInteger();
        var largest = new java.util.concurrent.atomic.AtomicInteger();
        CloudWatchClient cw = client(r -> {
            calls.incrementAndGet();
            largest.accumulateAndGet(r.metricDataQueries().size(), Math::max);
            return byId(r, "m7");
        });
        List<ProbeTarget> targets = new java.util.ArrayList<>();
        for (int i = 0; i < 1_200; i++) targets.add(query(i, "eu-west-1", 60));
        targets.add(1, new ProbeTarget.Tcp("order", "127.0.0.1", 9, 200));
        try (Prober prober = new Prober(new Probes(Probes.httpClient(null), () -> NOW, region -> cw))) {
            ProbeRoundResult result = prober.run(new ProbeRound("run-1", "team-a", "FORMAL", 0, targets));
            assertEquals(3, calls.get(), "1 200 queries in calls of at most 500");
            assertEquals(500, largest.get());
            assertEquals(1_201, result.reports().size());
            assertEquals("tcp", result.reports().get(1).kind(), "reports stay in the targets' order");
            for (int i = 0; i < 1_200; i++) {
                HealthReport r = result.reports().get(i < 1 ? i : i + 1);
                if (i % 500 == 7) {
                    assertFalse(r.ok());
                    assertEquals("BAD_ANSWER", r.status());
                    assertEquals(HealthReport.Evidence.MONITORING, r.evidence());
                    assertEquals("business metric 'orders" + i + "' (CloudWatch Shop/OrdersCreated): StatusCode Forbidden", r.detail());
                } else {
                    assertTrue(r.ok(), r.detail());
                    assertEquals((double) (i % 500), r.metrics().get("business:orders" + i), "query " + i + " reads its own result");
                }
            }
        }
    }

    @Test
    void aFailedCallIsMissingEvidenceForEveryQueryOfItsBatchOnly() {
        CloudWatchClient throttled = failing(400, "Throttling", "Rate exceeded");
        CloudWatchClient ok = client(r -> byId(r, ""));
        List<ProbeTarget> targets = List.of(query(0, "eu-west-1", 60), query(1, "us-east-1", 60), query(2, "eu-west-1", 60));
        try (Prober prober = new Prober(new Probes(Probes.httpClient(null), () -> NOW,
                region -> region.equals("eu-west-1") ? throttled : ok))) {
            List<HealthReport> reports = prober.run(new ProbeRound("run-1", "team-a", "FORMAL", 0, targets)).reports();
            assertEquals(List.of("SDK_ERROR", "READ", "SDK_ERROR"), reports.stream().map(HealthReport::status).toList());
            assertTrue(reports.get(2).detail().startsWith("business metric 'orders2' (CloudWatch Shop/OrdersCreated): Throttling: Rate exceeded"),
                    reports.get(2).detail());
            assertEquals(HealthReport.Evidence.MONITORING, reports.get(0).evidence());
            assertEquals(HealthReport.Evidence.MONITORING, reports.get(2).evidence());
            assertEquals(0.0, reports.get(1).metrics().get("business:orders1"));
        }
    }
}
