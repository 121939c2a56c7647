package dev.richter.probe;

import java.time.Instant;
import java.util.List;
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
 * A business metric from CloudWatch: one {@code GetMetricData} query (CloudWatch API Reference, GetMetricData) of a
 * {@link ProbeTarget.CloudWatchQuery}, and its answer read to one number. Plain request and response values, so the
 * query and the reading are tested without CloudWatch; {@link Probes} sends it.
 */
public final class CloudWatchMetricQuery {
    /** The query's id in the request and its result. */
    static final String ID = "m0";
    /** Periods the query looks back: the newest complete datapoint of the last three. */
    static final int PERIODS = 3;

    private CloudWatchMetricQuery() {}

    /**
     * The request: the metric's {@code MetricStat} (namespace, name, dimensions, period, stat) over the last
     * {@value #PERIODS} periods ending at {@code nowMs}, newest datapoint first ({@code TimestampDescending}).
     */
    public static GetMetricDataRequest request(ProbeTarget.CloudWatchQuery t, long nowMs) {
        Instant end = Instant.ofEpochMilli(nowMs);
        Metric metric = Metric.builder().namespace(t.namespace()).metricName(t.metricName())
                .dimensions(t.dimensions().entrySet().stream()
                        .map(e -> Dimension.builder().name(e.getKey()).value(e.getValue()).build()).toList())
                .build();
        return GetMetricDataRequest.builder()
                .metricDataQueries(MetricDataQuery.builder().id(ID).returnData(true)
                        .metricStat(MetricStat.builder().metric(metric).period(t.periodS()).stat(t.stat()).build()).build())
                .startTime(end.minusSeconds((long) PERIODS * t.periodS())).endTime(end)
                .scanBy(ScanBy.TIMESTAMP_DESCENDING).maxDatapoints(PERIODS)
                .build();
    }

    /**
     * The newest value of the answer's {@value #ID} result.
     *
     * @throws EvidenceAnswerException when the result is missing, its {@code StatusCode} is {@code Forbidden} or
     *                                 {@code InternalError} (with CloudWatch's messages), it has no datapoint in the
     *                                 window, or the value is not finite
     */
    public static double value(GetMetricDataResponse response) {
        MetricDataResult r = response.metricDataResults().stream().filter(x -> ID.equals(x.id())).findFirst()
                .orElseThrow(() -> new EvidenceAnswerException("MetricDataResults has no result " + ID));
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
