package dev.richter.data.traffic;

import java.util.List;

/**
 * The input is not a file of the named format at all (not JSON, no {@code log.entries}, an unparseable
 * {@code log_format} directive), or no line or entry of it could be read. Nothing is imported.
 */
public final class TrafficFormatException extends RuntimeException {
    private final List<ImportProblem> problems;

    /** @param problems each failing position and its reason; the message is the first of them */
    public TrafficFormatException(List<ImportProblem> problems) {
        super(problems.isEmpty() ? "no traffic" : problems.get(0).toString()
                + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : ""));
        this.problems = List.copyOf(problems);
    }

    /** One problem at {@code position}. */
    public TrafficFormatException(String position, String reason) {
        this(List.of(new ImportProblem(position, reason)));
    }

    /** Every failing position (at most {@link TrafficImporter#MAX_PROBLEMS}). */
    public List<ImportProblem> problems() {
        return problems;
    }
}
