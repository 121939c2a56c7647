package dev.richter.probe;

/** A scrape body that is not valid Prometheus text / OpenMetrics; carries the 1-based line number. */
public final class PrometheusParseException extends RuntimeException {
    private final int lineNumber;

    /** @param lineNumber 1-based line of the offending input; @param reason what is wrong there */
    public PrometheusParseException(int lineNumber, String reason) {
        super("line " + lineNumber + ": " + reason);
        this.lineNumber = lineNumber;
    }

    /** 1-based line number of the offending line. */
    public int lineNumber() {
        return lineNumber;
    }
}
