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
        assertEquals(Map.of("InstanceId", "i-12345678901234567"), e.dimensions());
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
}
