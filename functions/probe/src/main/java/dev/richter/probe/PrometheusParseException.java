package dev.richter.probe;

/**
 * A scrape body that is not valid Prometheus text / OpenMetrics. The message is
 * {@code "line <n>: <reason>"}; the line is 1-based.
 */
public final class PrometheusParseException extends RuntimeException {
    private final int lineNumber;
    private final String reason;

    /** @param lineNumber 1-based line of the offending input; @param reason what is wrong there */
    public PrometheusParseException(int lineNumber, String reason) {
        super("line " + lineNumber + ": " + reason);
        this.lineNumber = lineNumber;
        this.reason = reason;
    }

    /** 1-based line number of the offending line. */
    public int lineNumber() {
        return lineNumber;
    }

    /** What is wrong on that line, without the {@code "line <n>: "} prefix. */
    public String reason() {
        return reason;
    }
}
