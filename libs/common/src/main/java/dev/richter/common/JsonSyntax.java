package dev.richter.common;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.util.List;
import java.util.function.Function;
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
    private static final Pattern CLOSE_MARKER = Pattern.compile("^Unexpected close marker '(.)'");

    /** One parser message (the pattern, found in it) and the reason it gets (its groups at hand). */
    private record ParserMessage(Pattern message, Function<Matcher, String> reason) {
        ParserMessage(String message, Function<Matcher, String> reason) {
            this(Pattern.compile(message), reason);
        }
    }

    /** The messages after end-of-input and close markers, first match wins (a number's character before any other). */
    private static final List<ParserMessage> RULES = List.of(
            new ParserMessage("^Unexpected character \\('(.{1,2})' \\(code \\d+\\)\\) in numeric value",
                    m -> "a malformed number (unexpected '" + m.group(1) + "')"),
            new ParserMessage("^Unexpected character \\('(.{1,2})' \\(code", m -> "unexpected character '" + m.group(1) + "'"),
            new ParserMessage("^Unrecognized token '([^']{0,40})", m -> "unknown word '" + m.group(1) + "'"),
            new ParserMessage("^Non-standard token '([^']{0,40})'", m -> "'" + m.group(1) + "' is not a JSON value"),
            new ParserMessage("^Unrecognized character escape '(.{1,2})'", m -> "unknown escape '\\" + m.group(1) + "' in a string"),
            new ParserMessage("Leading zeroes not allowed", m -> "a number with a leading zero"),
            new ParserMessage("^Trailing token", m -> "more content after the JSON value"),
            new ParserMessage("Illegal unquoted character|control character", m -> "a control character inside a string must be escaped"),
            new ParserMessage("^Invalid UTF-(8|32)", m -> "not UTF-8 text"));

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
        for (ParserMessage rule : RULES) {
            m = rule.message().matcher(msg);
            if (m.find()) {
                return rule.reason().apply(m);
            }
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
