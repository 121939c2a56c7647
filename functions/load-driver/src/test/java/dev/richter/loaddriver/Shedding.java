package dev.richter.loaddriver;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * The test servers' scripted over-capacity answers, by path: {@code /shed-seconds} is 429 with {@code Retry-After: 120},
 * {@code /shed-date} is 503 with {@code Retry-After} as an IMF-fixdate 120 s after its {@code Date} header (as corpus
 * bug 28), {@code /shed-none} is 429 without {@code Retry-After}; every other path is 200.
 */
final class Shedding {
    private Shedding() {}

    /** The status and headers of one answer. */
    record Answer(int status, Map<String, String> headers) {}

    /** IMF-fixdate (RFC 9110 §5.6.7): two-digit day, GMT. */
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    static Answer answer(String path, long nowEpochMs) {
        String date = IMF_FIXDATE.format(Instant.ofEpochMilli(nowEpochMs));
        String later = IMF_FIXDATE.format(Instant.ofEpochMilli(nowEpochMs).plusSeconds(120));
        return switch (path) {
            case "/shed-seconds" -> new Answer(429, Map.of("Retry-After", "120"));
            case "/shed-date" -> new Answer(503, Map.of("Retry-After", later, "Date", date));
            case "/shed-none" -> new Answer(429, Map.of());
            default -> new Answer(200, Map.of());
        };
    }
}
