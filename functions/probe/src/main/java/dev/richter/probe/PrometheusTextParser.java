package dev.richter.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Strict parser for the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0 text.
 *
 * <p>Accepts: {@code # HELP}, {@code # TYPE}, {@code # UNIT}, {@code # EOF} and other comments;
 * missing HELP/TYPE (untyped samples); label values with the escapes {@code \\}, {@code \"} and
 * {@code \n}; values {@code NaN}, {@code +Inf}, {@code -Inf} (case-insensitive, as Go's
 * {@code strconv.ParseFloat} used by Prometheus); optional timestamps; OpenMetrics exemplars
 * ({@code # {labels} value [ts]}) and a trailing comma in label sets.
 *
 * <p>Rejects, with the 1-based line number ({@link PrometheusParseException}): any other escape
 * (e.g. {@code \A} in a Windows path, Prometheus' "invalid escape sequence"), an unescaped quote
 * (the value ends early and the next character is not {@code ,} or {@code }}), bad metric or label
 * names, duplicate labels, unparsable values, and text after {@code # EOF}. Unlike
 * {@code prometheus_client}'s Python parser it never keeps a bad backslash silently.
 * Source: prometheus/docs exposition_formats.md; OpenMetrics spec; prometheus/common expfmt.
 */
public final class PrometheusTextParser {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");

    private PrometheusTextParser() {}

    /**
     * Parses a whole exposition.
     *
     * @param text the scrape body (LF or CRLF line ends)
     * @return every sample in order
     * @throws PrometheusParseException on the first invalid line
     */
    public static List<MetricSample> parse(String text) {
        List<MetricSample> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        boolean eof = false;
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i];
            if (eof) {
                if (!line.isEmpty() || i != lines.length - 1) {
                    throw new PrometheusParseException(lineNo, "content after # EOF");
                }
                continue;
            }
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                eof = parseComment(line, lineNo);
                continue;
            }
            out.add(parseSample(line, lineNo));
        }
        return out;
    }

    /** Checks HELP/TYPE/UNIT structure; returns true for {@code # EOF}. */
    private static boolean parseComment(String line, int lineNo) {
        String[] parts = line.substring(1).trim().split("[ \t]+", 3);
        String keyword = parts.length > 0 ? parts[0] : "";
        switch (keyword) {
            case "EOF" -> {
                return parts.length == 1;
            }
            case "HELP", "UNIT" -> {
                if (parts.length < 2 || !METRIC_NAME.matcher(parts[1]).matches()) {
                    throw new PrometheusParseException(lineNo, "# " + keyword + " needs a valid metric name");
                }
                if (parts.length == 3 && keyword.equals("HELP")) {
                    checkHelpEscapes(parts[2], lineNo);
                }
            }
            case "TYPE" -> {
                if (parts.length < 3 || !METRIC_NAME.matcher(parts[1]).matches()) {
                    throw new PrometheusParseException(lineNo, "# TYPE needs a metric name and a type");
                }
                String type = parts[2].trim();
                if (!List.of("counter", "gauge", "histogram", "summary", "untyped", "unknown", "gaugehistogram",
                        "stateset", "info").contains(type)) {
                    throw new PrometheusParseException(lineNo, "unknown metric type '" + type + "'");
                }
            }
            default -> { /* an ordinary comment */ }
        }
        return false;
    }

    /** HELP text allows {@code \\}, {@code \n} (and {@code \"} in OpenMetrics). */
    private static void checkHelpEscapes(String help, int lineNo) {
        for (int i = 0; i < help.length(); i++) {
            if (help.charAt(i) == '\\') {
                if (i + 1 >= help.length() || "\\n\"".indexOf(help.charAt(i + 1)) < 0) {
                    throw new PrometheusParseException(lineNo, "invalid escape sequence in HELP at column " + (i + 1));
                }
                i++;
            }
        }
    }

    private static MetricSample parseSample(String line, int lineNo) {
        int pos = 0;
        int n = line.length();
        int nameEnd = pos;
        while (nameEnd < n && line.charAt(nameEnd) != '{' && line.charAt(nameEnd) != ' ' && line.charAt(nameEnd) != '\t') {
            nameEnd++;
        }
        String name = line.substring(pos, nameEnd);
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new PrometheusParseException(lineNo, "invalid metric name '" + name + "'");
        }
        pos = nameEnd;
        Map<String, String> labels = new LinkedHashMap<>();
        if (pos < n && line.charAt(pos) == '{') {
            pos = parseLabels(line, pos + 1, labels, lineNo);
        }
        String rest = line.substring(pos);
        String exemplar = null;
        int hash = rest.indexOf(" # ");
        if (hash >= 0) {
            exemplar = rest.substring(hash + 3).trim();
            rest = rest.substring(0, hash);
        }
        if (!rest.isEmpty() && rest.charAt(0) != ' ' && rest.charAt(0) != '\t') {
            throw new PrometheusParseException(lineNo, "expected whitespace before the value, got '" + rest.charAt(0) + "'");
        }
        String[] fields = rest.trim().split("[ \t]+");
        if (fields.length == 0 || fields[0].isEmpty()) {
            throw new PrometheusParseException(lineNo, "missing value");
        }
        if (fields.length > 2) {
            throw new PrometheusParseException(lineNo, "unexpected text after the timestamp: '" + fields[2] + "'");
        }
        double value = parseValue(fields[0], lineNo);
        long tsMs = Long.MIN_VALUE;
        if (fields.length == 2) {
            tsMs = parseTimestamp(fields[1], lineNo);
        }
        if (exemplar != null) {
            checkExemplar(exemplar, lineNo);
        }
        return new MetricSample(name, labels, value, tsMs, lineNo);
    }

    /** Parses {@code name="value",...}} from {@code pos} (just after '{'); returns the index after '}'. */
    private static int parseLabels(String line, int pos, Map<String, String> labels, int lineNo) {
        int n = line.length();
        while (true) {
            while (pos < n && (line.charAt(pos) == ' ' || line.charAt(pos) == '\t')) pos++;
            if (pos >= n) throw new PrometheusParseException(lineNo, "unterminated label set");
            if (line.charAt(pos) == '}') return pos + 1;
            int eq = line.indexOf('=', pos);
            if (eq < 0) throw new PrometheusParseException(lineNo, "label without '='");
            String labelName = line.substring(pos, eq).trim();
            if (!LABEL_NAME.matcher(labelName).matches()) {
                throw new PrometheusParseException(lineNo, "invalid label name '" + labelName + "'");
            }
            pos = eq + 1;
            while (pos < n && (line.charAt(pos) == ' ' || line.charAt(pos) == '\t')) pos++;
            if (pos >= n || line.charAt(pos) != '"') {
                throw new PrometheusParseException(lineNo, "label value of '" + labelName + "' must start with '\"'");
            }
            pos++;
            StringBuilder value = new StringBuilder();
            boolean closed = false;
            while (pos < n) {
                char c = line.charAt(pos);
                if (c == '\\') {
                    if (pos + 1 >= n) throw new PrometheusParseException(lineNo, "dangling backslash in label value");
                    char e = line.charAt(pos + 1);
                    switch (e) {
                        case '\\' -> value.append('\\');
                        case '"' -> value.append('"');
                        case 'n' -> value.append('\n');
                        default -> throw new PrometheusParseException(lineNo,
                                "invalid escape sequence '\\" + e + "' in value of label '" + labelName + "'");
                    }
                    pos += 2;
                } else if (c == '"') {
                    closed = true;
                    pos++;
                    break;
                } else {
                    value.append(c);
                    pos++;
                }
            }
            if (!closed) throw new PrometheusParseException(lineNo, "unterminated value of label '" + labelName + "'");
            if (labels.put(labelName, value.toString()) != null) {
                throw new PrometheusParseException(lineNo, "duplicate label '" + labelName + "'");
            }
            while (pos < n && (line.charAt(pos) == ' ' || line.charAt(pos) == '\t')) pos++;
            if (pos >= n) throw new PrometheusParseException(lineNo, "unterminated label set");
            char next = line.charAt(pos);
            if (next == ',') {
                pos++;
            } else if (next != '}') {
                throw new PrometheusParseException(lineNo, "unexpected '" + next + "' after value of label '"
                        + labelName + "' (unescaped quote?)");
            }
        }
    }

    /** Go ParseFloat-compatible subset: decimal/exponent numbers, NaN, [+-]Inf(inity), case-insensitive. */
    static double parseValue(String s, int lineNo) {
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        switch (lower) {
            case "nan" -> { return Double.NaN; }
            case "inf", "+inf", "infinity", "+infinity" -> { return Double.POSITIVE_INFINITY; }
            case "-inf", "-infinity" -> { return Double.NEGATIVE_INFINITY; }
            default -> { }
        }
        if (!NUMBER.matcher(s).matches()) {
            throw new PrometheusParseException(lineNo, "invalid sample value '" + s + "'");
        }
        return Double.parseDouble(s);
    }

    /** Text format: integer ms; OpenMetrics: float seconds. */
    private static long parseTimestamp(String s, int lineNo) {
        if (INTEGER.matcher(s).matches()) {
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new PrometheusParseException(lineNo, "timestamp out of range '" + s + "'");
            }
        }
        if (NUMBER.matcher(s).matches()) {
            return Math.round(Double.parseDouble(s) * 1000.0);
        }
        throw new PrometheusParseException(lineNo, "invalid timestamp '" + s + "'");
    }

    private static void checkExemplar(String exemplar, int lineNo) {
        if (!exemplar.startsWith("{")) {
            throw new PrometheusParseException(lineNo, "exemplar must start with a label set");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        int pos = parseLabels(exemplar, 1, labels, lineNo);
        String[] fields = exemplar.substring(pos).trim().split("[ \t]+");
        if (fields.length < 1 || fields.length > 2 || fields[0].isEmpty()) {
            throw new PrometheusParseException(lineNo, "exemplar needs a value and an optional timestamp");
        }
        parseValue(fields[0], lineNo);
        if (fields.length == 2) parseTimestamp(fields[1], lineNo);
    }
}
