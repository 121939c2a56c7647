package dev.richter.data.traffic;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 *   <li>Fields named like a credential in the other body formats, by the same names: JSON (a body that parses as an
 *       object or array, at any depth; a scalar value becomes the slot text, slot {@code json.<name>}), multipart form
 *       data (a part without a filename, slot {@code multipart.<name>}) and XML (an element's text, its local name,
 *       slot {@code xml.<name>}); a body with no such field keeps its bytes (cloudflare/har-sanitizer#34).</li>
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
                    + "|secret|client[_-]?secret|signature|sig|session|sessionid|sid|auth|code|credential|credentials|jwt|otp|totp|pin"
                    + "|passcode|cvv|cvc)");
    private static final ObjectMapper JSON = JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN).disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();
    /** A multipart part's headers and value: the disposition line names it; a part with a filename is a file. */
    private static final Pattern MULTIPART_FIELD = Pattern.compile(
            "(?is)(content-disposition:[^\\r\\n]*?\\bname=\"([^\"]*)\"([^\\r\\n]*)\\r?\\n(?:[^\\r\\n]+\\r?\\n)*\\r?\\n)(.*?)(?=\\r?\\n--)");
    /** An XML element holding text only: {@code <ns:name attr="...">text</ns:name>}. */
    private static final Pattern XML_TEXT_ELEMENT = Pattern.compile("<((?:[\\w.-]+:)?([\\w.-]+))(\\s[^<>]*)?>([^<]+)</\\1\\s*>");
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
            String type = r.contentType().toLowerCase(Locale.ROOT);
            String trimmed = text.stripLeading();
            if (type.startsWith("application/x-www-form-urlencoded")) {
                text = params(text, "form", slots);
            } else if (type.startsWith("multipart/form-data")) {
                text = multipartFields(text, slots);
            } else if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
                text = jsonFields(text, slots);
            } else if (type.contains("xml") || trimmed.startsWith("<")) {
                text = xmlFields(text, slots);
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

    /** {@code text} with the scalar values of credential-named fields replaced, when it is JSON and has one. */
    private static String jsonFields(String text, Slots slots) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JacksonException notJson) {
            return text;
        }
        if (root == null || !root.isContainerNode() || !jsonFields(root, slots)) {
            return text;
        }
        try {
            return JSON.writeValueAsString(root);
        } catch (JacksonException e) {
            throw new IllegalStateException("a parsed JSON body does not serialise: " + e.getMessage(), e);
        }
    }

    private static boolean jsonFields(JsonNode node, Slots slots) {
        boolean changed = false;
        if (node instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode value = object.get(name);
                if (value.isValueNode() && !value.isNull() && isCredentialName(name)) {
                    object.put(name, slots.take("json." + name.toLowerCase(Locale.ROOT)));
                    changed = true;
                } else if (value.isContainerNode()) {
                    changed |= jsonFields(value, slots);
                }
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                changed |= jsonFields(element, slots);
            }
        }
        return changed;
    }

    private static String multipartFields(String text, Slots slots) {
        Matcher m = MULTIPART_FIELD.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            boolean credential = !m.group(3).toLowerCase(Locale.ROOT).contains("filename=") && isCredentialName(m.group(2));
            String value = credential ? slots.take("multipart." + m.group(2).toLowerCase(Locale.ROOT)) : m.group(4);
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String xmlFields(String text, Slots slots) {
        Matcher m = XML_TEXT_ELEMENT.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = isCredentialName(m.group(2)) ? slots.take("xml." + m.group(2).toLowerCase(Locale.ROOT)) : m.group(4);
            m.appendReplacement(out, Matcher.quoteReplacement("<" + m.group(1) + (m.group(3) == null ? "" : m.group(3)) + ">"
                    + value + "</" + m.group(1) + ">"));
        }
        m.appendTail(out);
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
