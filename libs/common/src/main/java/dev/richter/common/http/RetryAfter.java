package dev.richter.common.http;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses an HTTP {@code Retry-After} header (RFC 9110 §10.2.3) into a delay in whole seconds.
 *
 * <p>{@code Retry-After = HTTP-date / delay-seconds}. {@code delay-seconds} is {@code 1*DIGIT} (surrounding
 * whitespace allowed, nothing else: no sign, no fraction). An {@code HTTP-date} is read in the three forms RFC 9110
 * §5.6.7 obliges a recipient to accept: IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}), the obsolete RFC 850
 * form ({@code Sunday, 06-Nov-94 08:49:37 GMT}; a two-digit year that would lie more than 50 years in the future
 * is the most recent past year with those digits) and asctime ({@code Sun Nov  6 08:49:37 1994}). Weekday names must
 * be valid but are not cross-checked against the date (clients commonly do not).
 *
 * <p>A date becomes a delay as corpus bug 28 ({@code bugs/28-retry-after-http-date.http}) expects: the date minus the
 * response's {@code Date} header when that header is a valid HTTP-date, otherwise minus the local clock; either way
 * clamped at 0 (a date in the past means "retry now") and rounded up to a whole second (never retry early).
 * {@code Retry-After: 120} and an HTTP-date 120 s after the response's {@code Date} both give 120 s.
 */
public final class RetryAfter {
    private RetryAfter() {}

    /** The form a valid header value had. */
    public enum Form {
        /** {@code delay-seconds}: a non-negative decimal integer. */
        DELAY_SECONDS,
        /** An {@code HTTP-date}, turned into a delay against the response's {@code Date} or the local clock. */
        HTTP_DATE
    }

    /** The outcome of {@link #parse}: a {@link Delay} or an {@link Invalid} value; never null. */
    public sealed interface Parsed permits Delay, Invalid {}

    /**
     * A valid header.
     *
     * @param seconds the delay, whole seconds, ≥ 0 ({@link Long#MAX_VALUE} when delay-seconds overflow a long)
     * @param form    the form it was written in
     * @param againstResponseDate for {@link Form#HTTP_DATE}: true when the delay was taken against the response's
     *                            {@code Date} header, false when against the local clock (no or invalid
     *                            {@code Date}); false for delay-seconds
     */
    public record Delay(long seconds, Form form, boolean againstResponseDate) implements Parsed {}

    /**
     * An unusable header: absent content, a negative or fractional number, an unknown date format.
     *
     * @param value  the header value as received (trimmed), {@code ""} when empty
     * @param reason why it is not a Retry-After value, e.g. {@code "neither delay-seconds nor an HTTP-date"}
     */
    public record Invalid(String value, String reason) implements Parsed {}

    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    private static final String TIME = "([0-9]{2}):([0-9]{2}):([0-9]{2})";
    private static final Pattern IMF_FIXDATE = Pattern.compile(
            "(Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{2}) ([A-Z][a-z]{2}) ([0-9]{4}) " + TIME + " GMT");
    private static final Pattern RFC_850 = Pattern.compile(
            "(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), ([0-9]{2})-([A-Z][a-z]{2})-([0-9]{2}) " + TIME + " GMT");
    private static final Pattern ASCTIME = Pattern.compile(
            "(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([0-9]{2}| [0-9]) " + TIME + " ([0-9]{4})");
    private static final List<String> MONTHS = List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
            "Oct", "Nov", "Dec");

    /**
     * Reads one {@code Retry-After} value.
     *
     * @param value      the header value; null or blank gives {@link Invalid} with reason {@code "empty"}
     * @param dateHeader the same response's {@code Date} header, or null when it had none
     * @param nowEpochMs the local clock, epoch milliseconds, used when {@code dateHeader} is absent or invalid
     * @return the delay, or why the value is not one
     */
    public static Parsed parse(String value, String dateHeader, long nowEpochMs) {
        String v = value == null ? "" : value.strip();
        if (v.isEmpty()) {
            return new Invalid("", "empty");
        }
        if (DIGITS.matcher(v).matches()) {
            String significant = v.replaceFirst("^0+(?=.)", "");
            long seconds = significant.length() > 18 ? Long.MAX_VALUE : Long.parseLong(significant);
            return new Delay(seconds, Form.DELAY_SECONDS, false);
        }
        Long retryAtS = httpDateEpochSecond(v, nowEpochMs);
        if (retryAtS == null) {
            return new Invalid(v, v.startsWith("-") || v.matches("[0-9]*[.,][0-9]+")
                    ? "delay-seconds must be a non-negative whole number" : "neither delay-seconds nor an HTTP-date");
        }
        Long responseAtS = dateHeader == null ? null : httpDateEpochSecond(dateHeader.strip(), nowEpochMs);
        if (responseAtS != null) {
            return new Delay(Math.max(0, retryAtS - responseAtS), Form.HTTP_DATE, true);
        }
        long deltaMs = retryAtS * 1000 - nowEpochMs;
        return new Delay(deltaMs <= 0 ? 0 : (deltaMs + 999) / 1000, Form.HTTP_DATE, false);
    }

    /**
     * An HTTP-date in any of its three forms as epoch seconds, or null when {@code text} is none of them or names an
     * impossible date (31 Feb, hour 24...).
     *
     * @param nowEpochMs the local clock, for the century of an RFC 850 two-digit year
     */
    public static Long httpDateEpochSecond(String text, long nowEpochMs) {
        try {
            Matcher m = IMF_FIXDATE.matcher(text);
            if (m.matches()) {
                return epochSecond(Integer.parseInt(m.group(4)), m.group(3), Integer.parseInt(m.group(2)), m, 5);
            }
            m = RFC_850.matcher(text);
            if (m.matches()) {
                int yy = Integer.parseInt(m.group(4));
                int nowYear = ZonedDateTime.ofInstant(Instant.ofEpochMilli(nowEpochMs), ZoneOffset.UTC).getYear();
                int year = nowYear / 100 * 100 + yy;
                if (year > nowYear + 50) {
                    year -= 100;
                }
                return epochSecond(year, m.group(3), Integer.parseInt(m.group(2)), m, 5);
            }
            m = ASCTIME.matcher(text);
            if (m.matches()) {
                return epochSecond(Integer.parseInt(m.group(7)), m.group(2), Integer.parseInt(m.group(3).strip()), m, 4);
            }
        } catch (DateTimeException impossible) {
            return null;
        }
        return null;
    }

    private static Long epochSecond(int year, String month, int day, Matcher m, int timeGroup) {
        int monthIndex = MONTHS.indexOf(month);
        if (monthIndex < 0) {
            return null;
        }
        LocalDateTime t = LocalDateTime.of(LocalDate.of(year, monthIndex + 1, day),
                LocalTime.of(Integer.parseInt(m.group(timeGroup)), Integer.parseInt(m.group(timeGroup + 1)),
                        Integer.parseInt(m.group(timeGroup + 2))));
        return t.toEpochSecond(ZoneOffset.UTC);
    }

    /** For evidence text: {@code "120 s (HTTP-date - Date)"}, {@code "120 s"}, or {@code "invalid 'soon': ..."}. */
    public static String describe(Parsed p) {
        return switch (p) {
            case Delay d when d.form() == Form.HTTP_DATE ->
                    d.seconds() + " s (HTTP-date minus " + (d.againstResponseDate() ? "Date" : "local clock") + ")";
            case Delay d -> d.seconds() + " s";
            case Invalid i -> String.format(Locale.ROOT, "invalid '%s': %s", i.value(), i.reason());
        };
    }
}
