package dev.richter.data.traffic;

import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes personal data and credentials from a recorded request before anything is stored. Every removed value is
 * replaced by a named slot {@code {{slot:<name>}}} that a data-construction flow fills at replay time; never by a fixed
 * fake value (which would collide across rows, e.g. one e-mail for every shadow buyer).
 *
 * <p>What is scrubbed, and the slot names:
 * <ul>
 *   <li>Headers {@code Authorization}, {@code Proxy-Authorization}, {@code Cookie}, {@code Set-Cookie} and the
 *       credential headers {@code X-Api-Key}, {@code X-Auth-Token}, {@code X-Amz-Security-Token},
 *       {@code X-Csrf-Token}: the whole value, slot {@code header.<name lower case>}.</li>
 *   <li>Query and form ({@code application/x-www-form-urlencoded} body) parameters named like a credential
 *       ({@code access_token}, {@code token}, {@code api_key}, {@code apikey}, {@code password}, {@code secret},
 *       {@code signature}, {@code session}, ... see {@link #isCredentialName}): slot {@code query.<name>} or
 *       {@code form.<name>}.</li>
 *   <li>In the path, the query and text bodies: payment card numbers (13 to 19 digits, blanks or dashes allowed,
 *       Luhn-checked: ISO/IEC 7812-1), e-mail addresses, and phone numbers (E.164 {@code +} and 8 to 15 digits, or
 *       digits in three or more groups split by blanks, dots or dashes, 9 digits or more): slots {@code card},
 *       {@code email}, {@code phone}, numbered in order of appearance within the request ({@code email},
 *       {@code email_2}, ...) so every field gets its own slot. A body that is not UTF-8 text is not scanned.</li>
 * </ul>
 */
public final class PiiScrubber {
    /** Headers whose whole value is a credential or personal, lower case. */
    static final Set<String> SECRET_HEADERS = Set.of("authorization", "proxy-authorization", "cookie", "set-cookie",
            "x-api-key", "x-auth-token", "x-amz-security-token", "x-csrf-token", "x-xsrf-token");
    private static final Pattern CREDENTIAL_NAME = Pattern.compile(
            "(?i)(.*[_-])?(access[_-]?token|id[_-]?token|refresh[_-]?token|token|api[_-]?key|apikey|key|password|passwd|pwd"
                    + "|secret|client[_-]?secret|signature|sig|session|sessionid|sid|auth|code|credential|credentials|jwt)");
    private static final Pattern CARD = Pattern.compile("(?<![\\d.])\\d(?:[ -]?\\d){12,18}(?![\\d.])");
    private static final Pattern EMAIL = Pattern.compile("[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}");
    private static final Pattern PHONE = Pattern.compile(
            "(?<![\\w+])(?:\\+\\d{8,15}|(?:\\+|%2B)?\\d{1,4}(?:[ .-]|%20)\\(?\\d{1,4}\\)?(?:(?:[ .-]|%20)\\d{2,4}){1,3})(?![\\w:])");

    /** Numbers a phone pattern also matches but that are not phones: IPv4 addresses, dates. */
    private static final Pattern NOT_PHONE = Pattern.compile("\\d{1,3}(?:\\.\\d{1,3}){3}|\\d{4}-\\d{2}-\\d{2}.*");

    private PiiScrubber() {}

    /**
     * The request with every value above replaced by its slot.
     *
     * @return the scrubbed request and the names of the slots it now has, in order
     */
    public static Scrubbed scrub(RecordedRequest r) {
        Slots slots = new Slots();
        List<Header> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            String lower = h.name().toLowerCase(Locale.ROOT);
            headers.add(SECRET_HEADERS.contains(lower) ? new Header(h.name(), slots.take("header." + lower)) : new Header(h.name(), h.value()));
        }
        String target = r.target();
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? null : target.substring(q + 1);
        path = scanText(path, slots);
        if (query != null) {
            query = scanText(params(query, "query", slots), slots);
        }
        byte[] body = r.body();
        String text = utf8(body);
        if (text != null && !text.isEmpty()) {
            if (r.contentType().toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
                text = params(text, "form", slots);
            }
            body = scanText(text, slots).getBytes(StandardCharsets.UTF_8);
        }
        RecordedRequest out = new RecordedRequest(r.host(), r.method(), query == null ? path : path + "?" + query, headers, body,
                r.contentType(), r.notes(), r.response(), r.source());
        return new Scrubbed(out, slots.names);
    }

    /**
     * @param request the request without personal data or credentials
     * @param slots   the slots it holds, in order of appearance (e.g. {@code header.authorization}, {@code email})
     */
    public record Scrubbed(RecordedRequest request, List<String> slots) {}

    /** Whether a query or form parameter of this name carries a credential ({@code access_token}, {@code x-api-key}, ...). */
    public static boolean isCredentialName(String name) {
        return CREDENTIAL_NAME.matcher(name).matches();
    }

    private static String params(String encoded, String kind, Slots slots) {
        StringJoiner out = new StringJoiner("&");
        for (String pair : encoded.split("&", -1)) {
            int eq = pair.indexOf('=');
            String name = eq > 0 ? URLDecoder.decode(pair.substring(0, eq).replace("+", "%2B"), StandardCharsets.UTF_8) : "";
            if (eq > 0 && eq < pair.length() - 1 && isCredentialName(name)) {
                out.add(pair.substring(0, eq + 1) + slots.take(kind + "." + name.toLowerCase(Locale.ROOT)));
            } else {
                out.add(pair);
            }
        }
        return out.toString();
    }

    private static String scanText(String text, Slots slots) {
        String out = replace(CARD, text, "card", slots, PiiScrubber::luhn);
        out = replace(EMAIL, out, "email", slots, s -> true);
        return replace(PHONE, out, "phone", slots, s -> {
            int digits = (int) s.chars().filter(Character::isDigit).count();
            return digits >= 9 && digits <= 15 && !NOT_PHONE.matcher(s).matches();
        });
    }

    private static String replace(Pattern p, String text, String slot, Slots slots, Predicate<String> accept) {
        Matcher m = p.matcher(text);
        StringBuilder b = new StringBuilder();
        boolean any = false;
        while (m.find()) {
            if (accept.test(m.group())) {
                m.appendReplacement(b, Matcher.quoteReplacement(slots.take(slot)));
                any = true;
            }
        }
        if (!any) {
            return text;
        }
        m.appendTail(b);
        return b.toString();
    }

    /** The Luhn check (ISO/IEC 7812-1 annex B) over the digits of {@code s}. */
    static boolean luhn(String s) {
        int sum = 0;
        boolean dbl = false;
        int digits = 0;
        for (int i = s.length() - 1; i >= 0; i--) {
            char c = s.charAt(i);
            if (!Character.isDigit(c)) {
                continue;
            }
            int d = c - '0';
            if (dbl) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            dbl = !dbl;
            digits++;
        }
        return digits >= 13 && digits <= 19 && sum % 10 == 0;
    }

    private static String utf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Slot names of one request, numbered when a name repeats. */
    private static final class Slots {
        final List<String> names = new ArrayList<>();
        final Map<String, Integer> seen = new HashMap<>();

        String take(String base) {
            int n = seen.merge(base, 1, Integer::sum);
            String name = n == 1 ? base : base + "_" + n;
            names.add(name);
            return "{{slot:" + name + "}}";
        }
    }
}
