package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The two parsers of the team's evidence sources, on answers captured from the real servers (resources/evidence). */
class EvidenceAnswersTest {
    static String answer(String file) {
        try (InputStream in = EvidenceAnswersTest.class.getResourceAsStream("/evidence/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aVectorOfOneSeriesIsItsValue() {
        assertEquals(1.0, PromQueryAnswer.value(answer("q-vector.json")));
    }

    @Test
    void aMatrixIsItsNewestPoint() {
        assertEquals(1.0, PromQueryAnswer.value(answer("q-matrix.json")));
        String rising = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},"
                + "\"values\":[[1.0,\"3\"],[2.0,\"4.5\"]]}]}}";
        assertEquals(4.5, PromQueryAnswer.value(rising));
    }

    @Test
    void aScalarIsItsValue() {
        assertEquals(1.0, PromQueryAnswer.value(answer("q-scalar.json")));
    }

    @Test
    void nanInfinityNoSeriesSeveralSeriesAndStringsAreRefusedWithTheReason() {
        assertEquals("$.data.result: value is NaN, not a finite number",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value(answer("q-nan.json"))).getMessage());
        assertEquals("$.data.result[0].value: value is NaN, not a finite number",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value(answer("q-vector-nan.json"))).getMessage());
        assertEquals("$.data.result: value is +Inf, not a finite number", assertThrows(EvidenceAnswerException.class,
                () -> PromQueryAnswer.value(answer("q-scalar.json").replace("\"1\"]", "\"+Inf\"]"))).getMessage());
        assertEquals("no series: the query matched nothing",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value(answer("q-empty.json"))).getMessage());
        assertEquals("2 series: aggregate the query to one (e.g. sum(...))",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value(answer("q-multi.json"))).getMessage());
        assertEquals("the query answers a string, not a number",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value(answer("q-string.json"))).getMessage());
    }

    @Test
    void anErrorAnswerNamesItsTypeAndMessage() {
        assertEquals("query failed: bad_data: invalid parameter \"query\": 1:5: parse error: unclosed left parenthesis",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value(answer("q-bad.json"))).getMessage());
    }

    @Test
    void malformedBodiesAreRefused() {
        assertTrue(assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value("<html>"))
                .getMessage().startsWith("answer is not JSON"));
        assertEquals("answer is not a JSON object",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value("[]")).getMessage());
        assertEquals("$.data.result[0].value is not a [time, \"value\"] pair", assertThrows(EvidenceAnswerException.class,
                () -> PromQueryAnswer.value(answer("q-vector.json").replace(",\"1\"]", ",1]"))).getMessage());
        assertEquals("$.data.resultType '' is none of vector, matrix, scalar",
                assertThrows(EvidenceAnswerException.class, () -> PromQueryAnswer.value("{\"status\":\"success\",\"data\":{}}")).getMessage());
    }

    @Test
    void alertmanagerAlertsAreReadWithTheirLabelsAndTimes() {
        List<AlertmanagerAlerts.Alert> alerts = AlertmanagerAlerts.read(answer("am-all.json")).alerts();
        assertEquals(List.of("AlwaysFiring", "Manual"), alerts.stream().map(AlertmanagerAlerts.Alert::name).toList());
        AlertmanagerAlerts.Alert a = alerts.getFirst();
        assertEquals(Map.of("alertname", "AlwaysFiring", "service", "order", "severity", "page", "team", "shop"), a.labels());
        assertEquals("active", a.state());
        assertEquals(Instant.parse("2026-12-02T15:07:58.119Z").toEpochMilli(), a.startsAtMs());
        assertEquals(Instant.parse("2026-12-02T15:08:20.119Z").toEpochMilli(), a.endsAtMs());
        assertTrue(a.firingAt(a.endsAtMs() - 1));
        assertFalse(a.firingAt(a.endsAtMs()), "past its endsAt the alert is resolved");
    }

    @Test
    void anEmptyListHasNoAlertsAnAnswerThatIsNoListIsRefusedAndABadAlertIsListedWhileTheOthersAreRead() {
        assertEquals(new AlertmanagerAlerts.AlertList(List.of(), List.of()), AlertmanagerAlerts.read("[]"));
        assertEquals("answer is not a list of alerts",
                assertThrows(EvidenceAnswerException.class, () -> AlertmanagerAlerts.read(answer("am-bad-filter.json"))).getMessage());
        assertEquals(List.of("$[0].labels is missing"),
                AlertmanagerAlerts.read("[{\"status\":{\"state\":\"active\"}}]").unreadable());
        AlertmanagerAlerts.AlertList badStart = AlertmanagerAlerts.read(answer("am-all.json").replaceFirst("2026-12-02T15:07:58.119Z", "yesterday"));
        assertEquals(List.of("$[0].startsAt: 'yesterday' is not an RFC 3339 time"), badStart.unreadable());
        assertEquals(List.of("Manual"), badStart.alerts().stream().map(AlertmanagerAlerts.Alert::name).toList(),
                "the alert after the bad one is read");
        assertEquals(List.of("$[0].status.state is missing"),
                AlertmanagerAlerts.read("[{\"labels\":{},\"startsAt\":\"2026-12-02T15:07:58.119Z\"}]").unreadable());
    }
}
