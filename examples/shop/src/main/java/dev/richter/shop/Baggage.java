package dev.richter.shop;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parser for the W3C Baggage HTTP header (https://www.w3.org/TR/baggage/).
 *
 * <p>A header value is a comma-separated list of members {@code key=value}, each optionally followed
 * by properties after {@code ;} (ignored here). Optional whitespace (space, tab) may surround every
 * separator. Keys are RFC 7230 tokens; values are percent-decoded as UTF-8 ({@code +} stays a plus,
 * unlike form encoding). Several {@code baggage} header lines are one list joined by commas.
 * Invalid members (no {@code =}, a key that is not a token, a bad percent escape) are skipped and
 * the rest of the list is kept, as the OpenTelemetry Java propagator does. For duplicate keys the
 * last member wins.
 */
public final class Baggage {

  private Baggage() {}

  /**
   * Parses every {@code baggage} header line of one request.
   *
   * @param headerValues the raw header values, in arrival order; null or empty means no baggage
   * @return key → decoded value, in first-seen order; never null
   */
  public static Map<String, String> parse(List<String> headerValues) {
    if (headerValues == null || headerValues.isEmpty()) {
      return Map.of();
    }
    Map<String, String> members = new LinkedHashMap<>();
    for (String line : headerValues) {
      if (line == null) {
        continue;
      }
      for (String member : line.split(",", -1)) {
        parseMember(member).ifPresent(e -> members.put(e.getKey(), e.getValue()));
      }
    }
    return Collections.unmodifiableMap(members);
  }

  /** Parses one header value; see {@link #parse(List)}. */
  public static Map<String, String> parse(String headerValue) {
    return parse(headerValue == null ? List.of() : List.of(headerValue));
  }

  private static Optional<Map.Entry<String, String>> parseMember(String member) {
    int semicolon = member.indexOf(';');
    String keyValue = semicolon < 0 ? member : member.substring(0, semicolon);
    int eq = keyValue.indexOf('=');
    if (eq < 0) {
      return Optional.empty();
    }
    String key = trimOws(keyValue.substring(0, eq));
    String rawValue = trimOws(keyValue.substring(eq + 1));
    if (!isToken(key)) {
      return Optional.empty();
    }
    return percentDecode(rawValue).map(value -> Map.entry(key, value));
  }

  /** Strips W3C optional whitespace (SP and HTAB only) from both ends. */
  static String trimOws(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && isOws(s.charAt(start))) {
      start++;
    }
    while (end > start && isOws(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(start, end);
  }

  private static boolean isOws(char c) {
    return c == ' ' || c == '\t';
  }

  /** RFC 7230 token: one or more tchar. */
  static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!tchar) {
        return false;
      }
    }
    return true;
  }

  /** Decodes %XX escapes as UTF-8 bytes; empty if an escape is malformed. */
  static Optional<String> percentDecode(String s) {
    if (s.indexOf('%') < 0) {
      return Optional.of(s);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length()) {
          return Optional.empty();
        }
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          return Optional.empty();
        }
        out.write((hi << 4) | lo);
        i += 2;
      } else {
        byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
      }
    }
    return Optional.of(out.toString(StandardCharsets.UTF_8));
  }
}
