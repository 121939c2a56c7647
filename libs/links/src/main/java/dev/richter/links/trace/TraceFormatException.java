package dev.richter.links.trace;

/**
 * A trace document Richter rejects as a whole: malformed JSON/CSV, a document that is not a
 * trace (e.g. OTLP metrics or logs), or one holding an id its format does not allow (the reason
 * then starts with the field's path, e.g. {@code resourceSpans[0].scopeSpans[0].spans[0].traceId: },
 * and the position is the id value's). Nothing from a rejected document is stored.
 *
 * <p>The position comes from Jackson's {@code JsonLocation} (1-based line and column) for JSON,
 * from the line number for CSV; {@code line} and {@code column} are 0 when no position applies.
 */
public final class TraceFormatException extends RuntimeException {
    private final String fileName;
    private final int line;
    private final int column;
    private final String reason;

    /**
     * @param fileName the name the caller gave the document
     * @param line 1-based line, 0 if unknown
     * @param column 1-based column, 0 if unknown
     * @param reason what is wrong, in words a user can act on
     */
    public TraceFormatException(String fileName, int line, int column, String reason) {
        super(fileName + ":" + line + ":" + column + ": " + reason);
        this.fileName = fileName;
        this.line = line;
        this.column = column;
        this.reason = reason;
    }

    public String fileName() {
        return fileName;
    }

    public int line() {
        return line;
    }

    public int column() {
        return column;
    }

    public String reason() {
        return reason;
    }
}
