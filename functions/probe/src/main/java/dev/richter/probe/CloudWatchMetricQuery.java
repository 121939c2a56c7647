package dev.richter.probe;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.GetMetricDataRequest;
import software.amazon.awssdk.services.cloudwatch.model.GetMetricDataResponse;
import software.amazon.awssdk.services.cloudwatch.model.Metric;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataResult;
import software.amazon.awssdk.services.cloudwatch.model.MetricStat;
import software.amazon.awssdk.services.cloudwatch.model.ScanBy;
import software.amazon.awssdk.services.cloudwatch.model.StatusCode;

/**
 * Business metrics from CloudWatch: the {@code GetMetricData} request (CloudWatch API Reference, GetMetricData) of a
 * batch of {@link ProbeTarget.CloudWatchQuery}s, and its answer read to one number per query. Plain request and
 * response values, so the batching, the query and the reading are tested without CloudWatch; {@link Probes} sends it.
 *
 * <p>One call carries up to {@value #MAX_QUERIES} queries (the API's limit on {@code MetricDataQueries}), so a round
 * of a thousand business metrics in a region is two or three calls, not a thousand: the API's default quota is 50
 * calls per second per region (Service Quotas, "GetMetricData"), which a call per metric every 2 s round would
 * pass at a hundred metrics. The price is per metric asked, $0.01 per 1 000, whatever the batching.
 */
public final class CloudWatchMetricQuery {
    /** Most {@code MetricDataQueries} in one {@code GetMetricData} call (CloudWatch API Reference). */
    public static final int MAX_QUERIES = 500;
    /** The id of the query of a one-query request, and of a batch's first. */
    static final String ID = "m0";
    /** Periods the query looks back: the newest complete datapoint of the last three. */
    static final int PERIODS = 3;

    private CloudWatchMetricQuery() {}

    /** The id of the {@code index}-th query of a request: {@code m<index>} (an id starts with a lower-case letter). */
    static String id(int index) {
        return "m" + index;
    }

    /**
     * The queries split into {@code GetMetricData} calls: one group per region, period and timeout (a call has one
     * client, one time window and one deadline), each cut into chunks of at most {@value #MAX_QUERIES}, in the
     * order first met.
     */
    public static List<List<ProbeTarget.CloudWatchQuery>> batches(List<ProbeTarget.CloudWatchQuery> queries) {
        record Key(String region, int periodS, long timeoutMs) {}
        Map<Key, List<ProbeTarget.CloudWatchQuery>> groups = new LinkedHashMap<>();
        for (ProbeTarget.CloudWatchQuery q : queries) {
            groups.computeIfAbsent(new Key(q.region(), q.periodS(), q.timeoutMs()), k -> new ArrayList<>()).add(q);
        }
        List<List<ProbeTarget.CloudWatchQuery>> batches = new ArrayList<>();
        for (List<ProbeTarget.CloudWatchQuery> g : groups.values()) {
            for (int i = 0; i < g.size(); i += MAX_QUERIES) {
                batches.add(List.copyOf(g.subList(i, Math.min(g.size(), i + MAX_QUERIES))));
            }
        }
        return batches;
    }

    /** The request of one query: {@link #request(List, long)} of it alone, id {@value #ID}. */
    public static GetMetricDataRequest request(ProbeTarget.CloudWatchQuery t, long nowMs) {
        return request(List.of(t), nowMs);
    }

    /**
     * The request of a batch (one of {@link #batches}: same period, at most {@value #MAX_QUERIES}): the
     * {@code i}-th query is {@link #id(int) m<i>}, each metric's {@code MetricStat} (namespace, name, dimensions,
     * period, stat), over the last {@value #PERIODS} periods ending at {@code nowMs}, newest datapoint first
     * ({@code TimestampDescending}). {@code MaxDatapoints} is left at its default (100 800), well above the at most
     * {@value #PERIODS} + 1 datapoints of each of {@value #MAX_QUERIES} queries, so an answer is one page.
     *
     * @throws IllegalArgumentException for an empty batch, more than {@value #MAX_QUERIES} queries, or mixed periods
     */
    public static GetMetricDataRequest request(List<ProbeTarget.CloudWatchQuery> batch, long nowMs) {
        if (batch.isEmpty() || batch.size() > MAX_QUERIES) {
            throw new IllegalArgumentException("a GetMetricData batch holds 1 to " + MAX_QUERIES + " queries, not " + batch.size());
        }
        int periodS = batch.getFirst().periodS();
        List<MetricDataQuery> queries = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            ProbeTarget.CloudWatchQuery t = batch.get(i);
            if (t.periodS() != periodS) {
                throw new IllegalArgumentException("a GetMetricData batch has one period: " + periodS + " s and " + t.periodS() + " s");
            }
            Metric metric = Metric.builder().namespace(t.namespace()).metricName(t.metricName())
                    .dimensions(t.dimensions().entrySet().stream()
                            .map(e -> Dimension.builder().name(e.getKey()).value(e.getValue()).build()).toList())
                    .build();
            queries.add(MetricDataQuery.builder().id(id(i)).returnData(true)
                    .metricStat(MetricStat.builder().metric(metric).period(t.periodS()).stat(t.stat()).build()).build());
        }
        Instant end = Instant.ofEpochMilli(nowMs);
        return GetMetricDataRequest.builder().metricDataQueries(queries)
                .startTime(end.minusSeconds((long) PERIODS * periodS)).endTime(end)
                .scanBy(ScanBy.TIMESTAMP_DESCENDING)
                .build();
    }

    /** The newest value of the answer's {@value #ID} result: {@link #value(GetMetricDataResponse, String)}. */
    public static double value(GetMetricDataResponse response) {
        return value(response, ID);
    }

    /**
     * The newest value of the answer's result {@code id}. Each result is read alone: one query's bad result says
     * nothing of the others in the call.
     *
     * @throws EvidenceAnswerException when the result is missing, its {@code StatusCode} is {@code Forbidden} or
     *                                 {@code InternalError} (with CloudWatch's messages), it has no datapoint in the
     *                                 window, or the value is not finite
     */
    public static double value(GetMetricDataResponse response, String id) {
        return value(resultsById(response), id);
    }

    /** The answer's results by id, read once for a batch (the first of an id, should CloudWatch repeat one). */
    public static Map<String, MetricDataResult> resultsById(GetMetricDataResponse response) {
        Map<String, MetricDataResult> byId = new java.util.HashMap<>();
        for (MetricDataResult r : response.metricDataResults()) {
            byId.putIfAbsent(r.id(), r);
        }
        return byId;
    }

    /**
     * The newest value of result {@code id} of {@link #resultsById}.
     *
     * @throws EvidenceAnswerException as {@link #value(GetMetricDataResponse, String)}
     */
    public static double value(Map<String, MetricDataResult> resultsById, String id) {
        MetricDataResult r = resultsById.get(id);
        if (r == null) {
            throw new EvidenceAnswerException("MetricDataResults has no result " + id);
        }
        if (r.statusCode() == StatusCode.FORBIDDEN || r.statusCode() == StatusCode.INTERNAL_ERROR) {
            throw new EvidenceAnswerException("StatusCode " + r.statusCodeAsString() + messages(r));
        }
        List<Double> values = r.values();
        if (values.isEmpty()) {
            throw new EvidenceAnswerException("no datapoint in the last " + PERIODS + " periods" + messages(r));
        }
        int newest = 0;
        for (int i = 1; i < values.size() && i < r.timestamps().size(); i++) {
            if (r.timestamps().get(i).isAfter(r.timestamps().get(newest))) newest = i;
        }
        double v = values.get(newest);
        if (!Double.isFinite(v)) {
            throw new EvidenceAnswerException("value is " + v + ", not a finite number");
        }
        return v;
    }

    private static String messages(MetricDataResult r) {
        return r.messages().isEmpty() ? "" : ": " + String.join("; ", r.messages().stream().map(m -> m.code() + " " + m.value()).toList());
    }
}
