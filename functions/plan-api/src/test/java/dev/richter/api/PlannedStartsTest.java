package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code startAt} of a planned start: RFC 3339 with an offset, in the future, at most 30 days ahead, whole seconds. */
class PlannedStartsTest {
    private static final Instant NOW = Instant.parse("2026-12-02T15:00:00.250Z");

    @Test
    void aStartTimeWithItsOffsetIsReadInUtcAndRoundedUpToTheSecond() {
        assertEquals(Instant.parse("2026-12-02T15:00:05Z"), PlannedStarts.startAt("2026-12-02T15:00:05Z", NOW));
        assertEquals(Instant.parse("2026-12-02T15:00:05Z"), PlannedStarts.startAt("2026-12-02T16:00:05+01:00", NOW));
        assertEquals(Instant.parse("2026-12-02T15:00:06Z"), PlannedStarts.startAt("2026-12-02T15:00:05.001Z", NOW),
                "never before the time asked for");
        assertEquals("at(2026-12-02T15:00:05)", PlannedStarts.atExpression(Instant.parse("2026-12-02T15:00:05Z")));
        assertEquals(Instant.parse("2027-01-01T15:00:00Z"), PlannedStarts.startAt("2027-01-01T15:00:00Z", NOW),
                "30 days ahead is within the bound");
    }

    @Test
    void aStartTimeThatIsNotRfc3339NotInTheFutureOrTooFarAheadIsA400AtItsField() {
        for (String bad : new String[] {"tomorrow", "2026-12-24T20:00:00", "2026-12-02T15:00:00Z", "2026-12-02T14:59:59Z",
                "2027-01-01T15:00:01Z"}) {
            ApiException e = assertThrows(ApiException.class, () -> PlannedStarts.startAt(bad, NOW), bad);
            assertEquals(400, e.status(), bad);
            assertTrue(e.getMessage().contains("$.startAt") || String.valueOf(e.errors()).contains("$.startAt"),
                    bad + ": " + e.getMessage() + " " + e.errors());
        }
    }

    @Test
    void theScheduleFiresOnTheWholeMinuteAtLeastNinetySecondsAheadOrAtTheNextSecondWhenTheStartIsNearer() {
        // Scheduler's 60 s precision: fired anywhere in 15:08:00..15:08:59, still ahead of 15:10:00 by the function's lead
        assertEquals(Instant.parse("2026-12-02T15:08:00Z"), PlannedStarts.fireAt(Instant.parse("2026-12-02T15:10:00Z"), NOW));
        assertEquals(Instant.parse("2026-12-02T15:08:00Z"), PlannedStarts.fireAt(Instant.parse("2026-12-02T15:09:59Z"), NOW));
        assertEquals(Instant.parse("2026-12-02T15:00:01Z"), PlannedStarts.fireAt(Instant.parse("2026-12-02T15:00:05Z"), NOW));
        assertEquals(Instant.parse("2026-12-02T15:00:01Z"), PlannedStarts.fireAt(Instant.parse("2026-12-02T15:00:01Z"), NOW));
    }
}
