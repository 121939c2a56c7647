package dev.richter.probe;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parser for the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0 text, each read by its own rules: the
 * format is the one the scrape's {@code Content-Type} declares, else the one its body shows ({@link ExpositionFormat#of}).
 * Timestamps are integer milliseconds in Prometheus text (a fraction is rejected by a strict parse, read as OpenMetrics
 * seconds with a warning by a lenient one) and seconds, integer or not, in OpenMetrics (1764583200 is
 * 2025-12-01T10:00:00Z; corpus bug 40); {@code # EOF} ends an OpenMetrics exposition only,
 * and one declared OpenMetrics without it is read with a warning (strict: rejected), as it may be truncated.
 *
 * <p>OpenMetrics is read by its own ABNF: an unknown escape in a label value or HELP text is kept as written (the
 * conformance suite's {@code escaping} cases; Prometheus text rejects it, corpus bug 12), and a strict parse also
 * rejects what only OpenMetrics forbids (blank lines, other comments, more than one space, a trailing comma) and every
 * rule across lines that {@link OpenMetricsRules} checks. A lenient parse of OpenMetrics keeps the samples and warns,
 * with the line, for each value that cannot be trusted (a negative counter, buckets not cumulative; Prometheus text
 * too, by the same value rules: {@link OpenMetricsRules#checkValues}); it passes the
 * OpenMetrics conformance suite's 44 valid cases and its strict form rejects all 167 invalid ones
 * ({@code OpenMetricsSuiteTest}).
 *
 * <p>Names: the legacy charset ({@code [a-zA-Z_:][a-zA-Z0-9_:]*}, labels without {@code :}) unquoted, and any
 * non-empty UTF-8 name quoted, as Prometheus 3 writes it (prometheus/proposals "UTF-8 support for metric and label
 * names", prometheus/common expfmt; corpus bug 41): a quoted metric name first inside the braces
 * ({@code {"http.server.active_requests","http.route"="/api/items"} 3}), quoted label names
 * ({@code m{"a.b"="x"}}), and quoted names in {@code # HELP}, {@code # TYPE} and {@code # UNIT}; a quoted name takes
 * the label-value escapes.
 *
 * <p>Accepts: {@code # HELP}, {@code # TYPE}, {@code # UNIT}, {@code # EOF} and other comments;
 * missing HELP/TYPE (untyped samples); label values with the escapes {@code \\}, {@code \"} and
 * {@code \n}; values {@code NaN}, {@code +Inf}, {@code -Inf} (case-insensitive, as Go's
 * {@code strconv.ParseFloat} used by Prometheus); optional timestamps; OpenMetrics exemplars
 * ({@code # {labels} value [ts]}) and a trailing comma in label sets.
 *
 * <p>Rejects the whole exposition, with the 1-based line number ({@link PrometheusParseException}):
 * any other escape in a label value (e.g. {@code \A} in a Windows path, Prometheus' "invalid escape
 * sequence"), an unescaped quote (the value ends early and the next character is not {@code ,} or
 * <code>}</code>), bad metric or label names, duplicate labels, unparsable values or timestamps, bad
 * {@code # TYPE} or {@code # UNIT} lines, and text after {@code # EOF}. Unlike {@code prometheus_client}'s
 * Python parser it never keeps a bad backslash silently.
 *
 * <p>Optional parts that carry no sample are dropped instead, with a warning naming the line, by
 * {@link #parse} (and rejected like the rest by {@link #parseStrict}):
 * <ul>
 *   <li>an <b>exemplar</b> that is malformed: no label set (client_golang#1333 wrote {@code #  1.0 ts}
 *       for an empty one; OpenMetrics' ABNF is {@code exemplar = SP HASH SP labels SP number [SP timestamp]}),
 *       a bad label set, a label set longer than 128 UTF-8 characters (OpenMetrics "Exemplars"), or a bad
 *       value or timestamp. An exemplar points at data outside the MetricSet (a trace); the sample's own
 *       value and timestamp stand before the {@code #} and are read as usual, so the exemplar's value is
 *       never taken for the sample's.</li>
 *   <li>a <b>{@code # HELP}</b> line that is malformed (bad metric name, invalid escape): its text is
 *       documentation only.</li>
 * </ul>
 * A malformed timestamp is <em>not</em> dropped: it is part of the sample (it dates the value), and a
 * line whose sample part does not follow the grammar cannot be trusted to hold its value either.
 * A {@code # TYPE} line is not dropped either: the type decides how the samples of the family read.
 * Sources: prometheus/docs exposition_formats.md; OpenMetrics 1.0 spec (ABNF, "Exemplars");
 * prometheus/common expfmt; bug corpus cases 12 and 26.
 */
public final class PrometheusTextParser {
    /** Most warnings listed one by one in a {@link PrometheusScrape}; the rest are counted in one closing entry. */
    public static final int MAX_WARNINGS = 10;
    /** OpenMetrics: the combined length of an exemplar's label names and values, UTF-8 characters. */
    public static final int MAX_EXEMPLAR_LABEL_CHARS = 128;

    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");
    /** OpenMetrics metadata lines (ABNF {@code metricdescriptor} and {@code # EOF}), single spaces. */
    private static final Pattern OM_METADATA = Pattern.compile("^# (?:EOF|HELP (?:[a-zA-Z_:][a-zA-Z0-9_:]*|\"(?:[^\"\\\\]|\\\\.)+\") .*"
            + "|TYPE (?:[a-zA-Z_:][a-zA-Z0-9_:]*|\"(?:[^\"\\\\]|\\\\.)+\") (?:counter|gauge|histogram|gaugehistogram|stateset|info|summary|unknown)"
            + "|UNIT (?:[a-zA-Z_:][a-zA-Z0-9_:]*|\"(?:[^\"\\\\]|\\\\.)+\") [a-zA-Z0-9_:]*)$");
    /** What follows an OpenMetrics sample's name and labels: value, timestamp, exemplar, single spaces, nothing after. */
    private static final Pattern OM_SAMPLE_REST = Pattern.compile("^ [^ \t]+(?: [^ \t]+)?(?: # \\{.*\\} [^ \t]+(?: [^ \t]+)?)?$");
    /** Where an exemplar starts: whitespace, {@code #}, then whitespace or the end of the line. */
    private static final Pattern EXEMPLAR_START = Pattern.compile("[ \t]#(?=[ \t]|$)");

    private PrometheusTextParser() {}

    /**
     * Parses a whole exposition, dropping malformed optional parts (see the class comment) with a warning.
     *
     * @param text the scrape body (LF or CRLF line ends)
     * @return every sample in order, and one warning per dropped part
     * @throws PrometheusParseException on the first line with any other defect
     */
    public static PrometheusScrape parse(String text) {
        return parse(text, "", false);
    }

    /**
     * {@link #parse(String)} of a scrape whose {@code Content-Type} is known, which decides its format
     * ({@link ExpositionFormat#of}).
     *
     * @param contentType the answer's {@code Content-Type}, e.g. {@code application/openmetrics-text; version=1.0.0};
     *                    empty when unknown (the body decides)
     */
    public static PrometheusScrape parse(String text, String contentType) {
        return parse(text, contentType, false);
    }

    /**
     * Parses a whole exposition and rejects it on any defect, optional parts included (for configuration
     * text such as metric selectors, where nothing should be dropped quietly).
     *
     * @param text the exposition (LF or CRLF line ends)
     * @return every sample in order; its warnings are always empty
     * @throws PrometheusParseException on the first invalid line
     */
    public static PrometheusScrape parseStrict(String text) {
        return parse(text, "", true);
    }

    /** {@link #parseStrict(String)} of an exposition whose {@code Content-Type} is known ({@link #parse(String, String)}). */
    public static PrometheusScrape parseStrict(String text, String contentType) {
        return parse(text, contentType, true);
    }

    private static PrometheusScrape parse(String text, String contentType, boolean strict) {
        ExpositionFormat format = ExpositionFormat.of(contentType, text);
        boolean openMetrics = format == ExpositionFormat.OPENMETRICS_1_0;
        Drops drops = new Drops(strict);
        List<MetricSample> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        boolean eof = false;
        int lastLine = 0;
        Set<Integer> exemplarLines = new HashSet<>();
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
                if (openMetrics && strict && i != lines.length - 1) {
                    throw new PrometheusParseException(lineNo, "blank line (OpenMetrics has none)");
                }
                continue;
            }
            lastLine = lineNo;
            if (line.startsWith("#")) {
                if (openMetrics && strict && !OM_METADATA.matcher(line).matches()) {
                    throw new PrometheusParseException(lineNo, "not OpenMetrics metadata: '# HELP|TYPE|UNIT name ...' with single spaces, "
                            + "a known type, or '# EOF'");
                }
                eof = parseComment(line, lineNo, drops, openMetrics) && openMetrics;
                continue;
            }
            out.add(parseSample(line, lineNo, drops, openMetrics, exemplarLines));
        }
        if (openMetrics && !eof) {
            drops.warn(Math.max(lastLine, 1), "missing '# EOF': an OpenMetrics exposition ends with it (the scrape may be truncated)");
        }
        if (!openMetrics) {
            for (OpenMetricsRules.RuleBreach v : OpenMetricsRules.checkValues(lines, out)) {
                drops.warn(v.lineNumber(), v.reason());
            }
        } else {
            for (OpenMetricsRules.RuleBreach v : OpenMetricsRules.check(lines, out, exemplarLines)) {
                if (strict || v.untrusted()) {
                    drops.warn(v.lineNumber(), v.reason());
                }
            }
        }
        return new PrometheusScrape(out, drops.warnings(), format);
    }

    /** Collects dropped optional parts, or throws for them in strict mode. */
    private static final class Drops {
        private final boolean strict;
        private final List<String> listed = new ArrayList<>();
        private int unlisted;
        private int lastUnlistedLine;

        Drops(boolean strict) {
            this.strict = strict;
        }

        void drop(int lineNo, String part, String reason) {
            if (strict) {
                throw new PrometheusParseException(lineNo, part + ": " + reason);
            }
            if (listed.size() < MAX_WARNINGS) {
                listed.add("line " + lineNo + ": " + part + " dropped: " + reason);
            } else {
                unlisted++;
                lastUnlistedLine = lineNo;
            }
        }

        /** A defect that loses nothing read: a warning, or rejected in strict mode. */
        void warn(int lineNo, String reason) {
            if (strict) {
                throw new PrometheusParseException(lineNo, reason);
            }
            if (listed.size() < MAX_WARNINGS) {
                listed.add("line " + lineNo + ": " + reason);
            } else {
                unlisted++;
                lastUnlistedLine = lineNo;
            }
        }

        List<String> warnings() {
            if (unlisted == 0) return listed;
            List<String> all = new ArrayList<>(listed);
            all.add("line " + lastUnlistedLine + ": " + unlisted + " more optional part"
                    + (unlisted == 1 ? "" : "s") + " dropped (up to this line; first " + MAX_WARNINGS + " listed)");
            return all;
        }
    }

    /** Checks HELP/TYPE/UNIT structure (a bad HELP line is dropped through {@code drops}); true for {@code # EOF}. */
    private static boolean parseComment(String line, int lineNo, Drops drops, boolean openMetrics) {
        String[] parts = commentParts(line, lineNo);
        String keyword = parts.length > 0 ? parts[0] : "";
        switch (keyword) {
            case "EOF" -> {
                return parts.length == 1;
            }
            case "HELP" -> {
                if (parts.length < 2 || parts[1] == null) {
                    drops.drop(lineNo, "HELP", "# HELP needs a valid metric name");
                } else if (parts.length == 3 && !openMetrics) {
                    helpEscapeError(parts[2]).ifPresent(reason -> drops.drop(lineNo, "HELP", reason));
                }
            }
            case "UNIT" -> {
                if (parts.length < 2 || parts[1] == null) {
                    throw new PrometheusParseException(lineNo, "# UNIT needs a valid metric name");
                }
            }
            case "TYPE" -> {
                if (parts.length < 3 || parts[1] == null) {
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

    /**
     * A comment line as {@code [keyword, name, rest]} (fewer when the line ends early): the name unquoted when written
     * quoted, {@code null} when it is no valid name (legacy charset unquoted, non-empty quoted); for any other comment
     * the words as {@code String.split} gives them.
     */
    private static String[] commentParts(String line, int lineNo) {
        String body = line.substring(1).strip();
        String[] words = body.split("[ \t]+", 2);
        if (!List.of("HELP", "TYPE", "UNIT").contains(words[0]) || words.length < 2) {
            return body.split("[ \t]+", 3);
        }
        String after = words[1];
        String name;
        String rest;
        if (after.startsWith("\"")) {
            int[] end = new int[1];
            try {
                name = readQuoted(after, 1, end, lineNo, "metric name");
            } catch (PrometheusParseException e) {
                return new String[] {words[0], null};
            }
            rest = after.substring(end[0]);
            if (name.isEmpty() || !(rest.isEmpty() || rest.charAt(0) == ' ' || rest.charAt(0) == '\t')) {
                name = null;
            }
        } else {
            String[] nameRest = after.split("[ \t]+", 2);
            name = METRIC_NAME.matcher(nameRest[0]).matches() ? nameRest[0] : null;
            rest = nameRest.length > 1 ? " " + nameRest[1] : "";
        }
        rest = rest.strip();
        return rest.isEmpty() ? new String[] {words[0], name} : new String[] {words[0], name, rest};
    }

    /**
     * Reads a double-quoted string from just after its opening quote at {@code pos}, with the label-value escapes
     * ({@code \\}, {@code \"}, {@code \n}); sets {@code end[0]} to the index after the closing quote.
     *
     * @throws PrometheusParseException for another escape or a missing closing quote
     */
    private static String readQuoted(String line, int pos, int[] end, int lineNo, String what) {
        int n = line.length();
        StringBuilder value = new StringBuilder();
        while (pos < n) {
            char c = line.charAt(pos);
            if (c == '\\') {
                if (pos + 1 >= n) throw new PrometheusParseException(lineNo, "dangling backslash in " + what);
                char e = line.charAt(pos + 1);
                switch (e) {
                    case '\\' -> value.append('\\');
                    case '"' -> value.append('"');
                    case 'n' -> value.append('\n');
                    default -> throw new PrometheusParseException(lineNo, "invalid escape sequence '\\" + e + "' in " + what);
                }
                pos += 2;
            } else if (c == '"') {
                end[0] = pos + 1;
                return value.toString();
            } else {
                value.append(c);
                pos++;
            }
        }
        throw new PrometheusParseException(lineNo, "unterminated " + what);
    }

    /** HELP text allows {@code \\}, {@code \n} (and {@code \"} in OpenMetrics); the first other escape, if any. */
    private static Optional<String> helpEscapeError(String help) {
        for (int i = 0; i < help.length(); i++) {
            if (help.charAt(i) == '\\') {
                if (i + 1 >= help.length() || "\\n\"".indexOf(help.charAt(i + 1)) < 0) {
                    return Optional.of("invalid escape sequence in HELP text at column " + (i + 1));
                }
                i++;
            }
        }
        return Optional.empty();
    }

    private static MetricSample parseSample(String line, int lineNo, Drops drops, boolean openMetrics, Set<Integer> exemplarLines) {
        int pos = 0;
        int n = line.length();
        int nameEnd = pos;
        while (nameEnd < n && line.charAt(nameEnd) != '{' && line.charAt(nameEnd) != ' ' && line.charAt(nameEnd) != '\t') {
            nameEnd++;
        }
        String name = line.substring(pos, nameEnd);
        if (name.startsWith("\"")) {
            throw new PrometheusParseException(lineNo, "a quoted metric name goes first inside the braces: {\"name\", ...}");
        }
        if (!name.isEmpty() && !METRIC_NAME.matcher(name).matches()) {
            throw new PrometheusParseException(lineNo, "invalid metric name '" + name + "'");
        }
        pos = nameEnd;
        Map<String, String> labels = new LinkedHashMap<>();
        String[] quotedName = {name.isEmpty() ? null : name};
        if (pos < n && line.charAt(pos) == '{') {
            pos = parseLabels(line, pos + 1, labels, lineNo, quotedName, openMetrics);
            if (openMetrics && drops.strict && line.charAt(pos - 2) == ',') {
                throw new PrometheusParseException(lineNo, "a comma before '}' (OpenMetrics has no trailing comma)");
            }
        }
        if (quotedName[0] == null) {
            throw new PrometheusParseException(lineNo, "missing metric name");
        }
        name = quotedName[0];
        String rest = line.substring(pos);
        String afterLabels = rest;
        String exemplar = null;
        Matcher hash = EXEMPLAR_START.matcher(rest);
        if (hash.find()) {
            exemplar = rest.substring(hash.end());
            rest = rest.substring(0, hash.start());
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
            tsMs = parseTimestamp(fields[1], lineNo, openMetrics || fractionalSeconds(fields[1], lineNo, drops));
        }
        if (exemplar != null) {
            exemplarLines.add(lineNo);
            exemplarError(exemplar, lineNo, openMetrics).ifPresent(reason -> drops.drop(lineNo, "exemplar", reason));
        }
        if (openMetrics && drops.strict && !OM_SAMPLE_REST.matcher(afterLabels).matches()) {
            throw new PrometheusParseException(lineNo, "not ' value[ timestamp][ # {labels} value[ timestamp]]' with single spaces "
                    + "and nothing after (OpenMetrics sample)");
        }
        return new MetricSample(name, labels, value, tsMs, lineNo);
    }

    /**
     * Parses {@code name="value",...}} from {@code pos} (just after '{'); returns the index after '}'. Label names are
     * legacy or quoted; when {@code metricName[0]} is {@code null} (no name before the braces) the first element may be
     * a quoted metric name alone, which is put there. {@code metricName} is {@code null} where no name may be (an
     * exemplar's label set).
     */
    private static int parseLabels(String line, int pos, Map<String, String> labels, int lineNo, String[] metricName,
                                   boolean keepUnknownEscapes) {
        int n = line.length();
        boolean first = true;
        while (true) {
            while (pos < n && (line.charAt(pos) == ' ' || line.charAt(pos) == '\t')) pos++;
            if (pos >= n) throw new PrometheusParseException(lineNo, "unterminated label set");
            if (line.charAt(pos) == '}') return pos + 1;
            String labelName;
            if (line.charAt(pos) == '"') {
                int[] end = new int[1];
                String quoted = readQuoted(line, pos + 1, end, lineNo, "quoted name");
                pos = end[0];
                while (pos < n && (line.charAt(pos) == ' ' || line.charAt(pos) == '\t')) pos++;
                if (quoted.isEmpty()) {
                    throw new PrometheusParseException(lineNo, "empty quoted name");
                }
                if (pos < n && line.charAt(pos) == '=') {
                    labelName = quoted;
                } else if (first && metricName != null && metricName[0] == null && pos < n
                        && (line.charAt(pos) == ',' || line.charAt(pos) == '}')) {
                    metricName[0] = quoted;
                    first = false;
                    if (line.charAt(pos) == ',') pos++;
                    continue;
                } else {
                    throw new PrometheusParseException(lineNo, "quoted name '" + quoted + "' must be followed by '=' "
                            + "(only a sample without a name before its braces may start them with its quoted metric name)");
                }
            } else {
                int eq = line.indexOf('=', pos);
                if (eq < 0) throw new PrometheusParseException(lineNo, "label without '='");
                labelName = line.substring(pos, eq).trim();
                if (!LABEL_NAME.matcher(labelName).matches()) {
                    throw new PrometheusParseException(lineNo, "invalid label name '" + labelName + "'");
                }
                pos = eq;
            }
            first = false;
            pos = pos + 1;
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
                        default -> {
                            if (!keepUnknownEscapes) {
                                throw new PrometheusParseException(lineNo,
                                        "invalid escape sequence '\\" + e + "' in value of label '" + labelName + "'");
                            }
                            value.append('\\').append(e);
                        }
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
        String lower = s.toLowerCase(Locale.ROOT);
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

    private static boolean isValue(String s) {
        try {
            parseValue(s, 0);
            return true;
        } catch (PrometheusParseException e) {
            return false;
        }
    }

    /**
     * Whether a Prometheus text timestamp is fractional, so no timestamp of that format (integer milliseconds): a
     * strict parse rejects it; a lenient one reads it as OpenMetrics seconds, the only format that writes one, with a
     * warning (an OpenMetrics scrape without {@code # EOF} and Content-Type, e.g. cut short).
     */
    private static boolean fractionalSeconds(String s, int lineNo, Drops drops) {
        if (!NUMBER.matcher(s).matches() || INTEGER.matcher(s).matches() || drops.strict) {
            return false;
        }
        drops.warn(lineNo, "timestamp '" + s + "' is not Prometheus text's integer milliseconds: read as OpenMetrics seconds");
        return true;
    }

    /**
     * Prometheus text 0.0.4: an integer of milliseconds (exposition_formats.md: "an int64 (milliseconds since epoch)");
     * OpenMetrics 1.0: seconds, integer or not ("Timestamps MUST be Unix Epoch in seconds"), as milliseconds rounded
     * half up.
     */
    private static long parseTimestamp(String s, int lineNo, boolean openMetrics) {
        if (openMetrics) {
            if (!NUMBER.matcher(s).matches()) {
                throw new PrometheusParseException(lineNo, "invalid timestamp '" + s + "' (OpenMetrics: seconds)");
            }
            java.math.BigDecimal ms = new java.math.BigDecimal(s).movePointRight(3).setScale(0, java.math.RoundingMode.HALF_UP);
            // beyond the epoch-ms range (OpenMetrics bounds no timestamp): the nearest that is
            return ms.max(java.math.BigDecimal.valueOf(Long.MIN_VALUE + 1)).min(java.math.BigDecimal.valueOf(Long.MAX_VALUE)).longValue();
        }
        if (NUMBER.matcher(s).matches() && !INTEGER.matcher(s).matches()) {
            throw new PrometheusParseException(lineNo, "invalid timestamp '" + s
                    + "': Prometheus text 0.0.4 timestamps are integer milliseconds (an OpenMetrics scrape, in seconds, ends with # EOF)");
        }
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

    /**
     * What is wrong with an exemplar ({@code text} follows the {@code #}), if anything. OpenMetrics 1.0:
     * {@code exemplar = SP HASH SP labels SP number [SP timestamp]}, label set at most
     * {@value #MAX_EXEMPLAR_LABEL_CHARS} characters of names and values.
     */
    private static Optional<String> exemplarError(String text, int lineNo, boolean openMetrics) {
        String exemplar = text.strip();
        if (!exemplar.startsWith("{")) {
            return Optional.of("an exemplar needs a label set ('{}' when empty)");
        }
        try {
            Map<String, String> labels = new LinkedHashMap<>();
            int pos = parseLabels(exemplar, 1, labels, lineNo, null, openMetrics);
            int chars = labels.entrySet().stream()
                    .mapToInt(e -> e.getKey().codePointCount(0, e.getKey().length())
                            + e.getValue().codePointCount(0, e.getValue().length()))
                    .sum();
            if (chars > MAX_EXEMPLAR_LABEL_CHARS) {
                return Optional.of("exemplar label set has " + chars + " characters, more than the "
                        + MAX_EXEMPLAR_LABEL_CHARS + " OpenMetrics allows");
            }
            String[] fields = exemplar.substring(pos).strip().split("[ \t]+");
            if (fields[0].isEmpty()) {
                return Optional.of("an exemplar needs a value after its label set");
            }
            if (fields.length > 2) {
                return Optional.of("unexpected text after the exemplar's timestamp: '" + fields[2] + "'");
            }
            if (!isValue(fields[0])) {
                return Optional.of("invalid exemplar value '" + fields[0] + "'");
            }
            if (fields.length == 2 && !NUMBER.matcher(fields[1]).matches()) {
                return Optional.of("invalid exemplar timestamp '" + fields[1] + "'");
            }
            return Optional.empty();
        } catch (PrometheusParseException e) {
            return Optional.of("exemplar label set: " + e.reason());
        }
    }
}
