package dev.richter.decider;

/**
 * One threshold a metric crossed, as evidence.
 *
 * @param metric e.g. {@code heapUsedRatio}, {@code p99Ms}, {@code successRate}
 * @param value  observed value
 * @param limit  the limit it crossed
 * @param rule   which rule: {@code static}, {@code sigma}, {@code ewma}, {@code baseline}, {@code trend}, {@code saturation},
 *               {@code exhaustion} (then {@code metric} is {@code heapSecondsToFull}, below its limit)
 */
public record Breach(String metric, double value, double limit, String rule) {
    @Override
    public String toString() {
        boolean lowIsBad = metric.equals("successRate") || metric.endsWith("SecondsToFull");
        return "%s %.4g %s %.4g (%s)".formatted(metric, value, lowIsBad ? "<" : ">", limit, rule);
    }
}
