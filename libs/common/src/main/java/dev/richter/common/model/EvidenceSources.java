package dev.richter.common.model;

import java.util.List;
import java.util.Map;

/**
 * Where a team's own alerts and business metrics live (DESIGN.md §4 "The team's own evidence"): registered through
 * {@code PUT /evidence-sources} ({@code EvidenceSourcesInput} in openapi.json), stored as one registry item
 * ({@code evidence#sources}) and read by every step's start, which turns each into probe targets of the step's modules.
 *
 * @param teamId       owning team
 * @param prometheus   Prometheus query APIs and the named PromQL queries asked of each round
 * @param alertmanager Alertmanager API v2 endpoints whose active alerts on a module are evidence against it
 * @param cloudwatch   CloudWatch alarms (state changes through the default bus) and metric queries, or null
 */
public record EvidenceSources(String teamId, List<PrometheusSource> prometheus, List<AlertmanagerSource> alertmanager,
                              CloudWatchSource cloudwatch) {
    public EvidenceSources {
        prometheus = prometheus == null ? List.of() : List.copyOf(prometheus);
        alertmanager = alertmanager == null ? List.of() : List.copyOf(alertmanager);
    }

    /** A team with no sources registered. */
    public static EvidenceSources none(String teamId) {
        return new EvidenceSources(teamId, List.of(), List.of(), null);
    }

    /**
     * A Prometheus server's HTTP query API ({@code GET <url>/api/v1/query}, prometheus.io/docs/prometheus/latest/querying/api).
     *
     * @param name    the source's name, unique among the team's sources
     * @param url     the server's base URL, e.g. {@code http://127.0.0.1:9090}
     * @param queries the business metrics read from it
     */
    public record PrometheusSource(String name, String url, List<BusinessMetric> queries) {
        public PrometheusSource {
            queries = queries == null ? List.of() : List.copyOf(queries);
        }
    }

    /**
     * One named PromQL query of a module's business metric, asked once per probe round (an instant query at the round's
     * time); it must answer one number (a one-series vector, a scalar, or the newest point of a one-series matrix).
     *
     * @param name   the metric's name on the report, e.g. {@code orders-per-second}
     * @param module the module it judges, e.g. {@code order}
     * @param promql the query, e.g. {@code sum(rate(orders_placed_total[15s]))}
     * @param expect what a good value is
     */
    public record BusinessMetric(String name, String module, String promql, MetricExpectation expect) {}

    /**
     * What a business metric's good value is: within bounds ({@code min}, {@code max}, either or both), or within a ratio
     * of its pre-test baseline ({@code baselineMinRatio}, {@code baselineMaxRatio}); with {@code loadProportional} the
     * baseline is scaled by the step's achieved rate over the pre-test's (orders per second double when the load does).
     *
     * @param min              lowest good value, or null
     * @param max              highest good value, or null
     * @param baselineMinRatio lowest good value as a fraction of the (scaled) baseline, e.g. 0.5; or null
     * @param baselineMaxRatio highest good value as a multiple of the (scaled) baseline, e.g. 2; or null
     * @param loadProportional true when the metric grows with the load (the baseline is scaled by the rate)
     */
    public record MetricExpectation(Double min, Double max, Double baselineMinRatio, Double baselineMaxRatio,
                                    boolean loadProportional) {}

    /**
     * An Alertmanager's API v2 ({@code GET <url>/api/v2/alerts}, prometheus/alertmanager api/v2/openapi.yaml): the
     * active, unsilenced, uninhibited alerts matching {@code matchers} and {@code <moduleLabel>="<module>"} are
     * evidence against that module.
     *
     * @param name        the source's name, unique among the team's sources
     * @param url         the Alertmanager's base URL, e.g. {@code http://127.0.0.1:9093}
     * @param matchers    label equality matchers every alert must have, e.g. {@code {"team": "shop"}}
     * @param moduleLabel the alert label naming the module (default {@code service})
     */
    public record AlertmanagerSource(String name, String url, Map<String, String> matchers, String moduleLabel) {
        /** The label naming an alert's module when a source names none. */
        public static final String DEFAULT_MODULE_LABEL = "service";

        public AlertmanagerSource {
            matchers = matchers == null ? Map.of() : Map.copyOf(matchers);
            moduleLabel = moduleLabel == null || moduleLabel.isBlank() ? DEFAULT_MODULE_LABEL : moduleLabel;
        }
    }

    /**
     * CloudWatch on AWS: alarm state changes reach Richter through an EventBridge rule on the default bus (detail-type
     * {@code CloudWatch Alarm State Change}), kept when the alarm's name starts with {@code alarmNamePrefix} or the alarm
     * carries every tag of {@code alarmTags}; metrics are read with {@code GetMetricData}.
     *
     * @param region          the alarms' and metrics' region, or null for the function's own
     * @param alarmNamePrefix alarms whose name starts with it, or null
     * @param alarmTags       alarms with all these tags, or empty
     * @param moduleTag       the alarm tag naming the module (default {@code service}); else the dimension of that name
     * @param metrics         metric queries, one number each per round
     */
    public record CloudWatchSource(String region, String alarmNamePrefix, Map<String, String> alarmTags, String moduleTag,
                                   List<CloudWatchMetric> metrics) {
        public CloudWatchSource {
            alarmTags = alarmTags == null ? Map.of() : Map.copyOf(alarmTags);
            moduleTag = moduleTag == null || moduleTag.isBlank() ? AlertmanagerSource.DEFAULT_MODULE_LABEL : moduleTag;
            metrics = metrics == null ? List.of() : List.copyOf(metrics);
        }
    }

    /**
     * One CloudWatch metric of a module ({@code GetMetricData} {@code MetricStat}).
     *
     * @param name       the metric's name on the report
     * @param module     the module it judges
     * @param namespace  e.g. {@code Shop}
     * @param metricName e.g. {@code OrdersCreated}
     * @param dimensions dimension name to value
     * @param stat       e.g. {@code Sum}, {@code Average}, {@code p99}
     * @param periodS    the period, seconds (60 or a multiple; 1, 5, 10, 30 for high-resolution metrics)
     * @param expect     what a good value is
     */
    public record CloudWatchMetric(String name, String module, String namespace, String metricName,
                                   Map<String, String> dimensions, String stat, int periodS, MetricExpectation expect) {
        public CloudWatchMetric {
            dimensions = dimensions == null ? Map.of() : Map.copyOf(dimensions);
        }
    }
}
