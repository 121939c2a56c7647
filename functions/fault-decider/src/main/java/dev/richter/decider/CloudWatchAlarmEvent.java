package dev.richter.decider;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A CloudWatch alarm's state change as EventBridge delivers it (detail-type {@code CloudWatch Alarm State Change},
 * source {@code aws.cloudwatch}; the shape of the CloudWatch User Guide, "Alarm events and EventBridge"): the alarm's
 * name, its new and previous state ({@code OK}, {@code ALARM}, {@code INSUFFICIENT_DATA}), when it changed, why, its
 * tags ({@code detail.alarmTags}, present when the alarm propagates its tags) and the dimensions of every metric it
 * watches.
 *
 * <p>{@code detail.configuration.metrics} lists the alarm's metric queries in every shape: one entry with a
 * {@code metricStat} for a single-metric alarm; for a metric-math or anomaly-detection alarm the expression
 * ({@code expression}, no {@code metricStat}; first in the guide's example and in real events, corpus bug 52 after
 * assertible/lambda-cloudwatch-slack#46) beside the metric queries it reads. A composite alarm has
 * {@code configuration.alarmRule} and no metrics.
 *
 * @param alarmName        {@code detail.alarmName}
 * @param state            {@code detail.state.value}
 * @param previousState    {@code detail.previousState.value}, empty when absent
 * @param changedAtMs      {@code detail.state.timestamp} (e.g. {@code 2019-10-02T17:04:40.989+0000}), epoch ms
 * @param reason           {@code detail.state.reason}
 * @param tags             {@code detail.alarmTags}, empty when absent
 * @param metricDimensions {@code metricStat.metric.dimensions} of each entry of {@code detail.configuration.metrics}
 *                         that has a {@code metricStat}, in order (expressions skipped); empty when there is none
 * @param composite        whether it is a composite alarm ({@code detail.configuration.alarmRule})
 */
public record CloudWatchAlarmEvent(String alarmName, String state, String previousState, long changedAtMs, String reason,
                                   Map<String, String> tags, List<Map<String, String>> metricDimensions, boolean composite) {
    /** The detail-type of the events. */
    public static final String DETAIL_TYPE = "CloudWatch Alarm State Change";
    /** CloudWatch's timestamp form: ISO-8601 with an offset without a colon. */
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSxx");

    public CloudWatchAlarmEvent {
        tags = Map.copyOf(tags);
        metricDimensions = List.copyOf(metricDimensions);
    }

    /** True when the alarm is firing. */
    public boolean inAlarm() {
        return state.equals("ALARM");
    }

    /**
     * Reads an event.
     *
     * @throws IllegalArgumentException naming the field: not JSON, another detail-type, no {@code detail.alarmName},
     *                                  no {@code detail.state.value}, a timestamp that does not read
     */
    public static CloudWatchAlarmEvent parse(String json) {
        JsonNode e;
        try {
            e = Json.MAPPER.readTree(json);
        } catch (Exception x) {
            throw new IllegalArgumentException("alarm event is not JSON: " + x.getMessage());
        }
        if (e == null || !DETAIL_TYPE.equals(e.path("detail-type").asText())) {
            throw new IllegalArgumentException("detail-type is '" + (e == null ? "" : e.path("detail-type").asText())
                    + "', not '" + DETAIL_TYPE + "'");
        }
        JsonNode d = e.path("detail");
        String name = d.path("alarmName").asText("");
        if (name.isEmpty()) throw new IllegalArgumentException("detail.alarmName is missing");
        String state = d.path("state").path("value").asText("");
        if (state.isEmpty()) throw new IllegalArgumentException("detail.state.value is missing");
        String ts = d.path("state").path("timestamp").asText("");
        long at;
        try {
            at = ts.isEmpty() ? OffsetDateTime.parse(e.path("time").asText()).toInstant().toEpochMilli()
                    : OffsetDateTime.parse(ts, TIMESTAMP).toInstant().toEpochMilli();
        } catch (DateTimeParseException x) {
            throw new IllegalArgumentException("detail.state.timestamp '" + ts + "' is not a CloudWatch timestamp");
        }
        List<Map<String, String>> dimensions = new ArrayList<>();
        for (JsonNode query : d.path("configuration").path("metrics")) {
            JsonNode metric = query.path("metricStat").path("metric");
            if (metric.isObject()) {
                dimensions.add(strings(metric.path("dimensions")));
            }
        }
        return new CloudWatchAlarmEvent(name, state, d.path("previousState").path("value").asText(""), at,
                d.path("state").path("reason").asText(""), strings(d.path("alarmTags")), dimensions,
                d.path("configuration").has("alarmRule"));
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> out = new TreeMap<>();
        object.fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue().asText()));
        return out;
    }
}
