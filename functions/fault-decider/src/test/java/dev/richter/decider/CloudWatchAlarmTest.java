package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.EvidenceSources;
import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict.State;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** CloudWatch alarm state changes, from the AWS documentation's example event (resources/cloudwatch). */
class CloudWatchAlarmTest {
    static String example() {
        try (InputStream in = CloudWatchAlarmTest.class.getResourceAsStream("/cloudwatch/alarm-state-change.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The example with the alarm's tags propagated ({@code detail.alarmTags}, as the guide describes). */
    static String tagged(String tagsJson) {
        return example().replace("\"alarmName\": \"ServerCpuTooHigh\",", "\"alarmName\": \"ServerCpuTooHigh\", \"alarmTags\": " + tagsJson + ",");
    }

    static EvidenceSources team(String teamId, String prefix, Map<String, String> tags, String moduleTag) {
        return new EvidenceSources(teamId, List.of(), List.of(),
                new EvidenceSources.CloudWatchSource(null, prefix, tags, moduleTag, List.of()));
    }

    @Test
    void theDocumentedExampleReadsAsAnAlarmStartedAtItsStateTimestamp() {
        CloudWatchAlarmEvent e = CloudWatchAlarmEvent.parse(example());
        assertEquals("ServerCpuTooHigh", e.alarmName());
        assertEquals("ALARM", e.state());
        assertEquals("OK", e.previousState());
        assertTrue(e.inAlarm());
        assertEquals(Instant.parse("2019-10-02T17:04:40.989Z").toEpochMilli(), e.changedAtMs());
        assertTrue(e.reason().startsWith("Threshold Crossed: 1 out of the last 1 datapoints [99.50160229693434"), e.reason());
        assertEquals(List.of(Map.of("InstanceId", "i-12345678901234567")), e.metricDimensions());
        assertEquals(Map.of(), e.tags());
    }

    @Test
    void badEventsAreRefusedNamingTheField() {
        assertEquals("detail-type is 'Scheduled Event', not 'CloudWatch Alarm State Change'", assertThrows(IllegalArgumentException.class,
                () -> CloudWatchAlarmEvent.parse(example().replace("CloudWatch Alarm State Change", "Scheduled Event"))).getMessage());
        assertEquals("detail.state.timestamp 'yesterday' is not a CloudWatch timestamp", assertThrows(IllegalArgumentException.class,
                () -> CloudWatchAlarmEvent.parse(example().replace("2019-10-02T17:04:40.989+0000", "yesterday"))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CloudWatchAlarmEvent.parse("{"))
                .getMessage().startsWith("alarm event is not JSON"));
    }

    @Test
    void teamsChooseAlarmsByNamePrefixOrTagsAndNameTheModuleByTagOrDimension() {
        CloudWatchAlarmEvent byTag = CloudWatchAlarmEvent.parse(tagged("{\"team\": \"shop\", \"service\": \"order\"}"));
        List<TeamAlarm> chosen = AlarmStates.of(byTag, List.of(
                team("shop", null, Map.of("team", "shop"), null),
                team("cpu", "ServerCpu", Map.of(), "InstanceId"),
                team("other", "Payments", Map.of("team", "payments"), null),
                EvidenceSources.none("no-cloudwatch")));
        assertEquals(List.of(
                new TeamAlarm("shop", "ServerCpuTooHigh", "order", "ALARM", byTag.changedAtMs(), byTag.reason()),
                new TeamAlarm("cpu", "ServerCpuTooHigh", "i-12345678901234567", "ALARM", byTag.changedAtMs(), byTag.reason())), chosen);
        assertEquals(List.of(), AlarmStates.of(CloudWatchAlarmEvent.parse(example()), List.of(team("shop", "ServerCpu", Map.of(), null))),
                "chosen by its prefix but naming no module: ignored");
    }

    @Test
    void anAlarmInAlarmOnACoreModuleIsDamagedAndAnUnreadableStoreIsMissingEvidence() {
        CloudWatchAlarmEvent e = CloudWatchAlarmEvent.parse(tagged("{\"service\": \"order\"}"));
        TeamAlarm alarm = AlarmStates.of(e, List.of(team("t1", "Server", Map.of(), null))).getFirst();
        var service = new FaultDeciderService(new Fixtures.FakeRules(), null, null, null, null, () -> 0,
                dev.richter.common.metrics.RichterMetrics.disabled(), new TeamAlarmRepository() {
                    @Override public void save(TeamAlarm a) {}
                    @Override public List<TeamAlarm> alarms(String teamId) { return List.of(alarm); }
                });
        List<HealthReport> reports = service.withAlarms(List.of(Fixtures.http("order", true)), "t1", 5);
        HealthReport r = reports.get(1);
        assertEquals("cloudwatch-alarm", r.kind());
        assertEquals(List.of("ServerCpuTooHigh"), r.failingComponents());
        assertEquals(Map.of("alert:ServerCpuTooHigh", (double) e.changedAtMs()), r.metrics());
        Decision d = new FaultDecider().decide(new DecisionInput("run", "formal", 0, List.of("order"), 5, reports),
                DecisionRules.defaults(), Map.of(), PassiveEvidence.none());
        assertEquals(State.DAMAGED, d.modules().getFirst().verdict().state());
        assertEquals("alert ServerCpuTooHigh firing on core module order", d.modules().getFirst().verdict().reason());

        var broken = new FaultDeciderService(new Fixtures.FakeRules(), null, null, null, null, () -> 0,
                dev.richter.common.metrics.RichterMetrics.disabled(), new TeamAlarmRepository() {
                    @Override public void save(TeamAlarm a) {}
                    @Override public List<TeamAlarm> alarms(String teamId) { throw new IllegalStateException("throttled"); }
                });
        HealthReport missing = broken.withAlarms(List.of(Fixtures.http("order", true)), "t1", 5).get(1);
        assertTrue(missing.missingEvidence(), missing.toString());
        Decision held = new FaultDecider().decide(new DecisionInput("run", "formal", 0, List.of("order"), 5,
                        List.of(Fixtures.http("order", true), missing)), DecisionRules.defaults(), Map.of(), PassiveEvidence.none());
        assertEquals(State.HEALTHY, held.modules().getFirst().verdict().state());
        assertEquals(List.of("cloudwatch-alarm: CloudWatch alarms not read: throttled"), held.modules().getFirst().evidence().missingEvidence());
    }
    /**
     * Corpus bug 52: a metric-math alarm's {@code configuration.metrics[0]} is its expression, with no metric; the
     * metric queries that follow carry the dimension naming the module (CloudWatch User Guide, "Alarm events and
     * EventBridge", metric math example). The alarm is taken for its team and module, not dropped.
     */
    @Test
    void bug52AMetricMathAlarmIsAboutTheModuleItsMetricQueriesCarry() throws IOException {
        String json = java.nio.file.Files.readString(java.nio.file.Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"))
                .resolve("bugs/52-cloudwatch-metric-math-alarm.json"));
        var source = dev.richter.common.Json.MAPPER.readTree(json).get("teamSource");
        var cw = source.get("cloudwatch");
        CloudWatchAlarmEvent e = CloudWatchAlarmEvent.parse(json);
        AlarmStates.Reading read = AlarmStates.read(e, List.of(team(source.get("teamId").asText(), cw.path("alarmNamePrefix").asText(null),
                Map.of(), cw.path("moduleTag").asText(null))));
        assertEquals(List.of(new TeamAlarm("demo", "shop-order-error-ratio", "order", "ALARM",
                Instant.parse("2026-12-01T10:05:12.460Z").toEpochMilli(), e.reason())), read.chosen());
        assertEquals(List.of(), read.unresolved());
    }

    /** An alarm event whose {@code detail.configuration} is {@code configuration} (JSON), named {@code shop-x}. */
    static String withConfiguration(String configuration) {
        return """
                {"version": "0", "detail-type": "CloudWatch Alarm State Change", "source": "aws.cloudwatch", "time": "2026-12-01T10:05:12Z",
                 "detail": {"alarmName": "shop-x", "configuration": %s,
                   "state": {"value": "ALARM", "reason": "r", "timestamp": "2026-12-01T10:05:12.460+0000"}}}""".formatted(configuration);
    }

    private static String query(String id, String dimensions) {
        return "{\"id\": \"" + id + "\", \"metricStat\": {\"metric\": {\"dimensions\": " + dimensions
                + ", \"name\": \"Errors\", \"namespace\": \"Shop\"}, \"period\": 60, \"stat\": \"Sum\"}, \"returnData\": false}";
    }

    /**
     * The kind of bug 52: the module of an alarm is its module tag, else the dimension of that name its metric queries
     * carry, whatever the alarm's shape (one metric, metric math, anomaly detection, the expression anywhere in the
     * list); queries without the dimension say nothing. An alarm whose module cannot be told (queries naming different
     * modules, none carrying the dimension, a composite alarm without the tag) is not dropped silently: it is listed
     * with the reason.
     */
    @ParameterizedTest
    @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
            // metric math, both queries on order
            "[{\"expression\": \"100*m1/m2\", \"id\": \"e1\", \"returnData\": true}, Q(m1,{\"service\":\"order\"}), Q(m2,{\"service\":\"order\"})] | order",
            // the expression last
            "[Q(m1,{\"service\":\"order\",\"az\":\"a\"}), Q(m2,{\"service\":\"order\"}), {\"expression\": \"m1+m2\", \"id\": \"e1\"}] | order",
            // one query without the dimension says nothing
            "[{\"expression\": \"m1/m2\", \"id\": \"e1\"}, Q(m1,{\"service\":\"order\"}), Q(m2,{})] | order",
            // anomaly detection band over one metric
            "[{\"expression\": \"ANOMALY_DETECTION_BAND(m1, 2)\", \"id\": \"ad1\"}, Q(m1,{\"service\":\"inventory\"})] | inventory",
            // one metric
            "[Q(m1,{\"service\":\"payment\"})] | payment",
            // queries that disagree
            "[{\"expression\": \"m1+m2\", \"id\": \"e1\"}, Q(m1,{\"service\":\"order\"}), Q(m2,{\"service\":\"payment\"})] | !its metric queries name different modules by dimension 'service' (order, payment): tag the alarm 'service' to name one",
            // no query carries it (a SEARCH expression has no metric query)
            "[{\"expression\": \"SEARCH('{Shop,service} Errors', 'Sum', 60)\", \"id\": \"e1\"}] | !no tag 'service' and none of its 0 metric queries has a dimension 'service'",
            "[Q(m1,{\"InstanceId\":\"i-1\"})] | !no tag 'service' and none of its 1 metric queries has a dimension 'service'",
            // a composite alarm watches alarms, not metrics
            "{\"alarmRule\": \"ALARM(a) OR ALARM(b)\"} | !no tag 'service' (a composite alarm has no metric to take the module from)"})
    void theModuleIsTheDimensionItsMetricQueriesCarryOrTheReasonItHasNone(String configuration, String expected) {
        String config = configuration.startsWith("[") ? "{\"metrics\": " + configuration + "}" : configuration;
        config = java.util.regex.Pattern.compile("Q\\((\\w+),(\\{[^}]*\\})\\)").matcher(config)
                .replaceAll(m -> java.util.regex.Matcher.quoteReplacement(query(m.group(1), m.group(2))));
        CloudWatchAlarmEvent e = CloudWatchAlarmEvent.parse(withConfiguration(config));
        AlarmStates.Reading read = AlarmStates.read(e, List.of(team("demo", "shop-", Map.of(), "service")));
        if (expected.startsWith("!")) {
            assertEquals(List.of(), read.chosen());
            assertEquals(List.of("team demo: alarm shop-x has no module: " + expected.substring(1)), read.unresolved());
        } else {
            assertEquals(List.of(expected), read.chosen().stream().map(TeamAlarm::module).toList());
            assertEquals(List.of(), read.unresolved());
        }
        // the module tag, when the alarm has it, is the module whatever its metrics say
        CloudWatchAlarmEvent tagged = CloudWatchAlarmEvent.parse(withConfiguration(config)
                .replace("\"alarmName\": \"shop-x\",", "\"alarmName\": \"shop-x\", \"alarmTags\": {\"service\": \"gateway\"},"));
        assertEquals(List.of("gateway"), AlarmStates.read(tagged, List.of(team("demo", "shop-", Map.of(), "service"))).chosen()
                .stream().map(TeamAlarm::module).toList());
    }
}
