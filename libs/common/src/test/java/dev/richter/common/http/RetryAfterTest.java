package dev.richter.common.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.richter.common.model.OverloadResponses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
    static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
    private static final long NOW = Instant.parse("2026-10-21T07:28:00Z").toEpochMilli();

    /** The response's header fields, names lower-cased (the status line and body are skipped). */
    static Map<String, String> headers(String response) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : response.split("\r?\n")) {
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("HTTP/")) {
                out.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
        }
        return out;
    }

    /** Corpus bug 28: Retry-After 07:30:00 GMT minus the response Date 07:28:00 GMT is 120 s. */
    @Test
    void anHttpDateIsTheDelayAfterTheResponseDateOnCorpusCase28() throws Exception {
        Map<String, String> h = headers(Files.readString(CORPUS.resolve("bugs/28-retry-after-http-date.http")));
        RetryAfter.Parsed p = RetryAfter.parse(h.get("retry-after"), h.get("date"), NOW + 3_600_000);
        assertEquals(new RetryAfter.Delay(120, RetryAfter.Form.HTTP_DATE, true), p);
        assertEquals("120 s (HTTP-date minus Date)", RetryAfter.describe(p));
    }

    @Test
    void withoutADateHeaderTheLocalClockIsSubtractedAndClampedAtZero() throws Exception {
        Map<String, String> h = headers(Files.readString(CORPUS.resolve("bugs/28-retry-after-http-date.http")));
        assertEquals(new RetryAfter.Delay(120, RetryAfter.Form.HTTP_DATE, false), RetryAfter.parse(h.get("retry-after"), null, NOW));
        assertEquals(new RetryAfter.Delay(91, RetryAfter.Form.HTTP_DATE, false),
                RetryAfter.parse(h.get("retry-after"), null, NOW + 29_500), "rounded up: never retry early");
        assertEquals(new RetryAfter.Delay(0, RetryAfter.Form.HTTP_DATE, false),
                RetryAfter.parse(h.get("retry-after"), null, NOW + 600_000), "a past date means now");
        assertEquals(new RetryAfter.Delay(120, RetryAfter.Form.HTTP_DATE, false),
                RetryAfter.parse(h.get("retry-after"), "yesterday", NOW), "an invalid Date falls back to the clock");
    }

    @Test
    void delaySecondsGiveTheSame120Seconds() {
        assertEquals(new RetryAfter.Delay(120, RetryAfter.Form.DELAY_SECONDS, false), RetryAfter.parse("120", null, NOW));
        assertEquals(new RetryAfter.Delay(120, RetryAfter.Form.DELAY_SECONDS, false), RetryAfter.parse(" 0120 ", "x", NOW));
        assertEquals(new RetryAfter.Delay(0, RetryAfter.Form.DELAY_SECONDS, false), RetryAfter.parse("0", null, NOW));
        assertEquals(Long.MAX_VALUE, ((RetryAfter.Delay) RetryAfter.parse("99999999999999999999999", null, NOW)).seconds());
    }

    @Test
    void neverTreatsGarbageAsZeroOrAsADefault() {
        for (String bad : new String[] {"", "  ", "-5", "1.5", "soon", "120s", "Wed, 21 Oct 2026 07:30:00 UTC",
                "Wed, 31 Feb 2026 07:30:00 GMT", "Wed, 21 Oct 2026 24:30:00 GMT", "Wed, 21 Foo 2026 07:30:00 GMT"}) {
            assertInstanceOf(RetryAfter.Invalid.class, RetryAfter.parse(bad, null, NOW), bad);
        }
        assertEquals("delay-seconds must be a non-negative whole number", ((RetryAfter.Invalid) RetryAfter.parse("-5", null, NOW)).reason());
        assertNull(RetryAfter.httpDateEpochSecond("Wed, 21 Oct 2026 07:30:00", NOW));
    }

    @Test
    void readsTheObsoleteDateFormsRecipientsMustAccept() {
        long expected = Instant.parse("1994-11-06T08:49:37Z").getEpochSecond();
        assertEquals(expected, RetryAfter.httpDateEpochSecond("Sun, 06 Nov 1994 08:49:37 GMT", NOW));
        assertEquals(expected, RetryAfter.httpDateEpochSecond("Sunday, 06-Nov-94 08:49:37 GMT", NOW));
        assertEquals(expected, RetryAfter.httpDateEpochSecond("Sun Nov  6 08:49:37 1994", NOW));
        assertEquals(Instant.parse("2030-11-06T08:49:37Z").getEpochSecond(),
                RetryAfter.httpDateEpochSecond("Wednesday, 06-Nov-30 08:49:37 GMT", NOW), "two-digit year: not 50 years ahead");
    }

    @Test
    void theRecorderCountsEachFormAndIgnoresOtherStatuses() {
        OverloadResponses.Recorder r = new OverloadResponses.Recorder();
        r.record(200, null, null, 1_000, NOW);
        r.record(500, "120", null, 1_000, NOW);
        r.record(503, "120", null, 2_000, NOW);
        r.record(429, "Wed, 21 Oct 2026 07:30:00 GMT", "Wed, 21 Oct 2026 07:28:00 GMT", 3_000, NOW);
        r.record(503, "soon", null, 4_000, NOW);
        r.record(503, null, null, 5_000, NOW);
        OverloadResponses o = r.snapshot("run-1", "formal", 2, 0, 1);
        assertEquals(4, o.responses());
        assertEquals(1, o.retryAfterSeconds());
        assertEquals(1, o.retryAfterDate());
        assertEquals(1, o.retryAfterInvalid());
        assertEquals(1, o.retryAfterAbsent());
        assertEquals(120, o.minDelayS());
        assertEquals(120, o.maxDelayS());
        assertEquals("soon", o.invalidExample());
        assertEquals("overload#formal#002#0000#00001", o.sortKey());
    }
}
