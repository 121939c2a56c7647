package dev.richter.common;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a JSON syntax error says to a person: where it is and what is wrong there, in Richter's words. The parser's
 * own message is never passed on (STYLE.md: messages name the input and the rule, never a library's internals): it
 * names Jackson's features and its input source ({@code [Source: REDACTED (`StreamReadFeature...` disabled)]}).
 *
 * <p>Reasons, for a {@code document} called "file" (or "body"):
 * <ul>
 *   <li>{@code the file ends before the JSON value does}, with {@code : the array opened at line 1, column 21 is not
 *       closed} when an array or object is still open; {@code the file ends inside a string} (or {@code a field
 *       name});</li>
 *   <li>{@code unexpected character ','}; {@code unexpected ']': the object opened at line 1, column 1 is still
 *       open}; {@code unexpected ']': nothing is open to close};</li>
 *   <li>{@code unknown word 'nope'}; {@code 'NaN' is not a JSON value}; {@code a number with a leading zero};
 *       {@code a malformed number (unexpected 'x')}; {@code unknown escape '\q' in a string};
 *       {@code a control character inside a string must be escaped}; {@code more content after the JSON value};
 *       {@code not UTF-8 text};</li>
 *   <li>{@code malformed JSON} for anything else.</li>
 * </ul>
 */
public final class JsonSyntax {
    private static final Pattern UNEXPECTED_CHAR = Pattern.compile("^Unexpected character \\('(.{1,2})' \\(code");
    private static final Pattern IN_NUMBER = Pattern.compile("^Unexpected character \\('(.{1,2})' \\(code \\d+\\)\\) in numeric value");
    private static final Pattern UNRECOGNIZED = Pattern.compile("^Unrecognized token '([^']{0,40})");
    private static final Pattern NON_STANDARD = Pattern.compile("^Non-standard token '([^']{0,40})'");
    private static final Pattern ESCAPE = Pattern.compile("^Unrecognized character escape '(.{1,2})'");
    private static final Pattern CLOSE_MARKER = Pattern.compile("^Unexpected close marker '(.)'");

    private JsonSyntax() {}

    /**
     * The error's position as {@code line L, column C} (1-based; the column counts characters), or an empty string
     * when the parser gave none.
     */
    public static String where(JsonProcessingException e) {
        JsonLocation loc = e.getLocation();
        return loc == null || loc.getLineNr() < 1 ? "" : "line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    }

    /**
     * What is wrong at {@link #where}, in plain words (the list in the class comment).
     *
     * @param e        the parser's error
     * @param document what the text is, for the sentences that name it: {@code file}, {@code body}
     */
    public static String reason(JsonProcessingException e, String document) {
        String msg = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        String open = openContainer(e);
        if (e instanceof JsonEOFException || msg.startsWith("Unexpected end-of-input")) {
            if (msg.contains("closing quote") || msg.contains("VALUE_STRING")) {
                return "the " + document + " ends inside a string";
            }
            if (msg.contains("field name")) {
                return "the " + document + " ends inside a field name";
            }
            return "the " + document + " ends before the JSON value does" + (open.isEmpty() ? "" : ": " + open + " is not closed");
        }
        Matcher m = CLOSE_MARKER.matcher(msg);
        if (m.find()) {
            return "unexpected '" + m.group(1) + "': " + (open.isEmpty() ? "nothing is open to close" : open + " is still open");
        }
        m = IN_NUMBER.matcher(msg);
        if (m.find()) {
            return "a malformed number (unexpected '" + m.group(1) + "')";
        }
        m = UNEXPECTED_CHAR.matcher(msg);
        if (m.find()) {
            return "unexpected character '" + m.group(1) + "'";
        }
        m = UNRECOGNIZED.matcher(msg);
        if (m.find()) {
            return "unknown word '" + m.group(1) + "'";
        }
        m = NON_STANDARD.matcher(msg);
        if (m.find()) {
            return "'" + m.group(1) + "' is not a JSON value";
        }
        m = ESCAPE.matcher(msg);
        if (m.find()) {
            return "unknown escape '\\" + m.group(1) + "' in a string";
        }
        if (msg.contains("Leading zeroes not allowed")) {
            return "a number with a leading zero";
        }
        if (msg.startsWith("Trailing token")) {
            return "more content after the JSON value";
        }
        if (msg.contains("Illegal unquoted character") || msg.contains("control character")) {
            return "a control character inside a string must be escaped";
        }
        if (msg.startsWith("Invalid UTF-8") || msg.startsWith("Invalid UTF-32")) {
            return "not UTF-8 text";
        }
        return "malformed JSON";
    }

    /**
     * {@code the array opened at line L, column C}: the innermost array or object still open where the parser stopped
     * (its parsing context), or an empty string at the top level.
     */
    private static String openContainer(JsonProcessingException e) {
        if (!(e.getProcessor() instanceof JsonParser p) || p.getParsingContext() == null || p.getParsingContext().inRoot()) {
            return "";
        }
        JsonStreamContext open = p.getParsingContext();
        JsonLocation start = open.startLocation(p.currentLocation().contentReference());
        return "the " + (open.inArray() ? "array" : "object") + " opened at line " + start.getLineNr() + ", column "
                + start.getColumnNr();
    }
}
