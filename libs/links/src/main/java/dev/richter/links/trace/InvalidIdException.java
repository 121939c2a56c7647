package dev.richter.links.trace;

/**
 * An id that breaks its format's rule (see {@link TraceIds}), raised by a parser with the field's
 * path; {@link TraceDocuments} turns it into a {@link TraceFormatException} with the file position
 * (given here by the streaming parser, else found by following {@link #path}).
 */
final class InvalidIdException extends RuntimeException {
    final transient JsonPath path;
    final String reason;
    /** 1-based line and column of the value, 0 when the path has to be followed to find it. */
    final int line;
    final int column;

    InvalidIdException(JsonPath path, String reason, int line, int column) {
        super(path + ": " + reason, null, false, false);
        this.path = path;
        this.reason = reason;
        this.line = line;
        this.column = column;
    }

    InvalidIdException(JsonPath path, IllegalArgumentException rule) {
        this(path, rule.getMessage(), 0, 0);
    }
}
