package dev.richter.probe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rules of OpenMetrics 1.0 that hold across lines, over an exposition the parser has read: metric families and
 * their metadata ("MetricFamily", "Metric types"), and the values each type allows. Each broken rule is a
 * {@link RuleBreach} naming the line and the rule; {@link PrometheusTextParser} rejects the scrape on the first in
 * strict mode and keeps the samples with a warning for each otherwise, so a value that cannot be trusted (a negative
 * or NaN counter, buckets that are not cumulative) is never read unflagged.
 *
 * <p>Rules (OpenMetrics 1.0, checked against the OpenMetrics parser conformance suite): metadata ({@code HELP},
 * {@code TYPE}, {@code UNIT}) at most once per family and before its samples; no family whose name is a sample name of
 * another ({@code a_created} beside counter {@code a}); a {@code UNIT} is the name's suffix and not on info or stateset;
 * a family's samples together, not interleaved with another family's, and one metric's (label set's) samples together;
 * sample names the family's type allows (counter {@code _total}, {@code _created}; histogram {@code _bucket},
 * {@code _count}, {@code _sum}, {@code _created}; gaugehistogram {@code _bucket}, {@code _gcount}, {@code _gsum};
 * summary the name with {@code quantile}, {@code _count}, {@code _sum}, {@code _created}; info {@code _info}; stateset,
 * gauge and unknown the name); counters, counts and buckets neither negative nor NaN; a histogram's {@code _sum} not
 * NaN, not negative, and absent when a bucket is negative; buckets with a canonical {@code le}, increasing, cumulative,
 * ending with {@code +Inf}, and {@code _count} equal to it; {@code _count} and {@code _sum} both or neither; summary
 * quantiles in [0, 1] with non-negative values; stateset values 0 or 1 with the family's name as a label; info value 1;
 * exemplars only on counter {@code _total} and (gauge)histogram {@code _bucket}; a metric's timestamps on all its
 * samples or none, never decreasing.
 */
final class OpenMetricsRules {
    /**
     * A broken rule: the 1-based line and what it breaks.
     *
     * @param untrusted whether the values read cannot be trusted (a negative or NaN counter, count or bucket, buckets
     *                  not cumulative or without {@code +Inf}, a count that is not the {@code +Inf} bucket, a bucket
     *                  without {@code le}, an info or stateset value out of its range): warned in a lenient parse;
     *                  the others break the form only (order, metadata, names) and are rejected by a strict parse alone
     */
    record RuleBreach(int lineNumber, String reason, boolean untrusted) {
        RuleBreach(int lineNumber, String reason) {
            this(lineNumber, reason, false);
        }
    }

    private static final Map<String, List<String>> SUFFIXES = Map.of(
            "counter", List.of("_total", "_created"),
            "gauge", List.of(""),
            "histogram", List.of("_bucket", "_count", "_sum", "_created"),
            "gaugehistogram", List.of("_bucket", "_gcount", "_gsum"),
            "summary", List.of("", "_count", "_sum", "_created"),
            "info", List.of("_info"),
            "stateset", List.of(""),
            "unknown", List.of(""));

    private OpenMetricsRules() {}

    /** One family's metadata and what has been seen of it. */
    private static final class Family {
        final String name;
        String type = "unknown";
        final Set<String> metadata = new HashSet<>();
        boolean sampled;
        boolean closed;
        String unit = "";
        /** metric (label set without le/quantile) → its samples, in order. */
        final Map<Map<String, String>, List<MetricSample>> metrics = new LinkedHashMap<>();
        Map<String, String> lastMetric;

        Family(String name) {
            this.name = name;
        }
    }

    /**
     * @param lines         the exposition's lines
     * @param samples       its samples as read
     * @param exemplarLines the lines whose sample has an exemplar
     */
    static List<RuleBreach> check(String[] lines, List<MetricSample> samples, Set<Integer> exemplarLines) {
        return check(lines, samples, exemplarLines, SUFFIXES);
    }

    /**
     * The value rules over a Prometheus text 0.0.4 exposition, whose counter families are named with their
     * {@code _total} ({@code # TYPE x_total counter}) and which has {@code untyped} for unknown: only the breaches that
     * make a value untrusted, as the form rules are OpenMetrics' own.
     */
    static List<RuleBreach> checkValues(String[] lines, List<MetricSample> samples) {
        Map<String, List<String>> suffixes = new HashMap<>(SUFFIXES);
        suffixes.put("counter", List.of("", "_total", "_created"));
        suffixes.put("untyped", List.of(""));
        List<RuleBreach> out = new ArrayList<>();
        for (RuleBreach b : check(lines, samples, Set.of(), suffixes)) {
            if (b.untrusted()) {
                out.add(b);
            }
        }
        return out;
    }

    private static List<RuleBreach> check(String[] lines, List<MetricSample> samples, Set<Integer> exemplarLines,
                                          Map<String, List<String>> suffixesByType) {
        List<RuleBreach> out = new ArrayList<>();
        Map<String, Family> families = new LinkedHashMap<>();
        Map<Integer, MetricSample> byLine = new HashMap<>();
        for (MetricSample s : samples) {
            byLine.put(s.lineNumber(), s);
        }
        Family current = null;
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i];
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE ") || line.startsWith("# UNIT ")) {
                String[] parts = line.substring(2).split(" ", 3);
                String kind = parts[0];
                String name = parts.length > 1 ? parts[1] : "";
                Family f = families.get(name);
                if (f == null) {
                    for (Family other : families.values()) {
                        if (!other.name.equals(name) && sampleNames(other, suffixesByType).contains(name)) {
                            out.add(new RuleBreach(lineNo, "family '" + name + "' clashes with a sample name of " + other.type + " '" + other.name + "'"));
                        }
                    }
                    f = new Family(name);
                    families.put(name, f);
                }
                if (current != null && current != f) {
                    current.closed = true;
                }
                if (f.closed || f.sampled) {
                    out.add(new RuleBreach(lineNo, "# " + kind + " of '" + name + "' after its samples (metadata comes first)"));
                } else if (!f.metadata.add(kind)) {
                    out.add(new RuleBreach(lineNo, "# " + kind + " of '" + name + "' repeated"));
                }
                String value = parts.length > 2 ? parts[2] : "";
                if (kind.equals("TYPE")) {
                    f.type = value;
                    for (String sampleName : sampleNames(f, suffixesByType)) {
                        if (!sampleName.equals(name) && families.containsKey(sampleName)) {
                            out.add(new RuleBreach(lineNo, "family '" + name + "' (" + value + ") clashes with family '" + sampleName + "'"));
                        }
                    }
                } else if (kind.equals("UNIT")) {
                    f.unit = value;
                }
                if (!f.unit.isEmpty() && kind.matches("TYPE|UNIT")) {
                    if (!name.endsWith("_" + f.unit)) {
                        out.add(new RuleBreach(lineNo, "unit '" + f.unit + "' is not the suffix of '" + name + "'"));
                    } else if (f.type.equals("info") || f.type.equals("stateset")) {
                        out.add(new RuleBreach(lineNo, "an " + f.type + " has no unit"));
                    }
                }
                current = f;
                continue;
            }
            MetricSample s = byLine.get(lineNo);
            if (s == null) {
                continue;
            }
            Family f = familyOf(s.name(), families, suffixesByType);
            if (f == null) {
                f = new Family(s.name());
                families.put(s.name(), f);
            }
            if (current != null && current != f) {
                current.closed = true;
            }
            if (f.closed) {
                out.add(new RuleBreach(lineNo, "sample of family '" + f.name + "' after another family's (families are not interleaved)"));
            }
            current = f;
            f.sampled = true;
            String suffix = s.name().substring(f.name.length());
            if (!suffixesByType.getOrDefault(f.type, List.of("")).contains(suffix)) {
                out.add(new RuleBreach(lineNo, "sample '" + s.name() + "' is not one a " + f.type + " '" + f.name + "' has"));
                continue;
            }
            Map<String, String> metric = new TreeMap<>(s.labels());
            metric.remove("le");
            if (f.type.equals("summary")) {
                metric.remove("quantile");
            }
            if (f.lastMetric != null && !f.lastMetric.equals(metric) && f.metrics.containsKey(metric)) {
                out.add(new RuleBreach(lineNo, "sample of metric " + metric + " of '" + f.name + "' apart from its others (a metric's samples are together)"));
            }
            f.lastMetric = metric;
            f.metrics.computeIfAbsent(metric, k -> new ArrayList<>()).add(s);
            if (exemplarLines.contains(lineNo) && !(suffix.equals("_total") && f.type.equals("counter")
                    || suffix.equals("_bucket") && (f.type.equals("histogram") || f.type.equals("gaugehistogram")))) {
                out.add(new RuleBreach(lineNo, "an exemplar on '" + s.name() + "' (only counter _total and histogram _bucket samples have them)"));
            }
            valueRules(f, suffix, s, out);
        }
        for (Family f : families.values()) {
            for (List<MetricSample> metric : f.metrics.values()) {
                metricRules(f, metric, out);
            }
        }
        out.sort((a, b) -> Integer.compare(a.lineNumber(), b.lineNumber()));
        return out;
    }

    private static Set<String> sampleNames(Family f, Map<String, List<String>> suffixesByType) {
        Set<String> names = new HashSet<>();
        for (String suffix : suffixesByType.getOrDefault(f.type, List.of(""))) {
            names.add(f.name + suffix);
        }
        return names;
    }

    /** The declared family a sample name belongs to: the longest family name the type's suffixes complete. */
    private static Family familyOf(String sampleName, Map<String, Family> families, Map<String, List<String>> suffixesByType) {
        Family best = null;
        for (Family f : families.values()) {
            if (sampleName.startsWith(f.name) && suffixesByType.getOrDefault(f.type, List.of("")).contains(sampleName.substring(f.name.length()))
                    && (best == null || f.name.length() > best.name.length())) {
                best = f;
            }
        }
        Family exact = families.get(sampleName);
        return best != null ? best : exact;
    }

    private static void valueRules(Family f, String suffix, MetricSample s, List<RuleBreach> out) {
        double v = s.value();
        int line = s.lineNumber();
        boolean countLike = switch (f.type) {
            case "counter" -> suffix.equals("_total") || suffix.isEmpty();
            case "histogram" -> suffix.equals("_bucket") || suffix.equals("_count");
            case "gaugehistogram" -> suffix.equals("_bucket") || suffix.equals("_gcount");
            case "summary" -> suffix.equals("_count");
            default -> false;
        };
        if (countLike && (Double.isNaN(v) || v < 0)) {
            out.add(new RuleBreach(line, "'" + s.name() + "' is " + v + ": a " + f.type + "'s " + (suffix.isEmpty() ? "value" : suffix)
                    + " is neither negative nor NaN", true));
        }
        if (f.type.equals("summary") && (suffix.equals("_sum") && (Double.isNaN(v) || v < 0) || suffix.isEmpty() && v < 0)) {
            out.add(new RuleBreach(line, "'" + s.name() + "' is " + v + ": a summary's " + (suffix.isEmpty() ? "quantile value" : "_sum")
                    + " is not negative" + (suffix.isEmpty() ? "" : " nor NaN")));
        }
        if ((suffix.equals("_sum") && f.type.equals("histogram") || suffix.equals("_gsum")) && Double.isNaN(v)) {
            out.add(new RuleBreach(line, "'" + s.name() + "' is NaN"));
        }
        if (suffix.equals("_bucket") && !s.labels().containsKey("le")) {
            out.add(new RuleBreach(line, "bucket '" + s.name() + "' without an le label", true));
        }
        if (suffix.equals("_bucket") && s.labels().containsKey("le") && Double.isNaN(le(s.labels().get("le")))) {
            out.add(new RuleBreach(line, "bucket le '" + s.labels().get("le") + "' is not a number (+Inf is written so)"));
        }
        if (f.type.equals("summary") && suffix.isEmpty()) {
            String q = s.labels().get("quantile");
            double quantile = q == null ? Double.NaN : le(q);
            if (!(quantile >= 0 && quantile <= 1)) {
                out.add(new RuleBreach(line, "summary sample '" + s.name() + "' needs a quantile label in [0, 1], has " + q));
            }
        }
        if (f.type.equals("stateset") && (!(v == 0 || v == 1) || !s.labels().containsKey(f.name))) {
            out.add(new RuleBreach(line, "stateset '" + f.name + "' samples are 0 or 1 with a label '" + f.name + "'", true));
        }
        if (f.type.equals("info") && v != 1) {
            out.add(new RuleBreach(line, "info '" + s.name() + "' is " + v + ", not 1", true));
        }
    }

    /** The rules on one metric's samples together: timestamps, and a (gauge)histogram's buckets, count and sum. */
    private static void metricRules(Family f, List<MetricSample> samples, List<RuleBreach> out) {
        Map<String, Long> lastTs = new HashMap<>();
        for (MetricSample s : samples) {
            String series = s.name() + s.labels();
            boolean has = s.timestamp().isPresent();
            Long last = lastTs.get(series);
            if (lastTs.containsKey(series) && (last == null) != !has) {
                out.add(new RuleBreach(s.lineNumber(), "'" + series + "' has a timestamp on some samples only"));
            } else if (last != null && s.timestampMs() < last) {
                out.add(new RuleBreach(s.lineNumber(), "'" + series + "' timestamp goes backwards"));
            }
            lastTs.put(series, has ? s.timestampMs() : null);
        }
        if (!f.type.equals("histogram") && !f.type.equals("gaugehistogram")) {
            return;
        }
        boolean gauge = f.type.equals("gaugehistogram");
        String countSuffix = gauge ? "_gcount" : "_count";
        String sumSuffix = gauge ? "_gsum" : "_sum";
        MetricSample count = null;
        MetricSample sum = null;
        List<MetricSample> buckets = new ArrayList<>();
        for (MetricSample s : samples) {
            String suffix = s.name().substring(f.name.length());
            if (suffix.equals("_bucket")) {
                buckets.add(s);
            } else if (suffix.equals(countSuffix)) {
                count = s;
            } else if (suffix.equals(sumSuffix)) {
                sum = s;
            }
        }
        int line = samples.getFirst().lineNumber();
        if (buckets.isEmpty() || !"+Inf".equals(buckets.getLast().labels().get("le"))) {
            out.add(new RuleBreach(buckets.isEmpty() ? line : buckets.getLast().lineNumber(), f.type + " '" + f.name + "' does not end its buckets with le=\"+Inf\"", true));
        }
        double previousLe = Double.NEGATIVE_INFINITY;
        double previousValue = 0;
        boolean negative = false;
        for (MetricSample b : buckets) {
            double le = le(b.labels().getOrDefault("le", "NaN"));
            negative |= le < 0;
            if (!(le > previousLe)) {
                out.add(new RuleBreach(b.lineNumber(), "bucket le=" + b.labels().get("le") + " of '" + f.name + "' not above the one before"));
            }
            if (b.value() < previousValue) {
                out.add(new RuleBreach(b.lineNumber(), "bucket le=" + b.labels().get("le") + " of '" + f.name + "' below the one before (buckets are cumulative)", true));
            }
            previousLe = le;
            previousValue = b.value();
        }
        if ((count == null) != (sum == null)) {
            out.add(new RuleBreach(count == null ? sum.lineNumber() : count.lineNumber(), f.type + " '" + f.name + "' has "
                    + (count == null ? sumSuffix + " without " + countSuffix : countSuffix + " without " + sumSuffix)));
        }
        if (count != null && !buckets.isEmpty() && count.value() != buckets.getLast().value()) {
            out.add(new RuleBreach(count.lineNumber(), countSuffix + " " + count.value() + " of '" + f.name + "' is not its +Inf bucket's " + buckets.getLast().value(), true));
        }
        if (count != null && buckets.indexOf(buckets.isEmpty() ? null : buckets.getLast()) >= 0
                && count.lineNumber() < buckets.getLast().lineNumber()) {
            out.add(new RuleBreach(count.lineNumber(), countSuffix + " of '" + f.name + "' before its buckets"));
        }
        if (sum != null && !Double.isNaN(sum.value()) && sum.value() < 0 && !negative) {
            out.add(new RuleBreach(sum.lineNumber(), sumSuffix + " of '" + f.name + "' is negative without a negative bucket"));
        }
        if (sum != null && negative && !gauge) {
            out.add(new RuleBreach(sum.lineNumber(), "a histogram with negative buckets has no _sum"));
        }
    }

    /** An {@code le} or {@code quantile} value as OpenMetrics writes it ({@code +Inf}, {@code -Inf}, a float); NaN otherwise. */
    private static double le(String text) {
        if (text.equals("+Inf")) return Double.POSITIVE_INFINITY;
        if (text.equals("-Inf")) return Double.NEGATIVE_INFINITY;
        if (!text.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) return Double.NaN;
        return Double.parseDouble(text);
    }
}
