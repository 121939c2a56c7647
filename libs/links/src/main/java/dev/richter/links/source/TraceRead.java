package dev.richter.links.source;

import dev.richter.links.trace.Span;
import java.util.List;

/**
 * What one read of a {@link TraceSource} gave: the spans it could read, and the parts it could not.
 *
 * <p>A source never fails a whole read for one part it cannot read (a document with an id its format does not allow,
 * a log line whose export does not parse, an X-Ray trace with a malformed segment): that part is listed here with its
 * position and reason, and the rest is read. A caller that decides from spans treats every unreadable part as missing
 * evidence: what it held is not known, so nothing it could have shown is proven.
 *
 * @param spans           the spans read, de-duplicated by (trace id, span id)
 * @param unreadable      one entry per part not read, {@code position: reason} (e.g. {@code spans.log:12: ...},
 *                        {@code trace 1-5f84c7a1-...: ...}), in reading order; at most {@link #MAX_LISTED}, then one
 *                        {@code ... and N more} entry
 * @param unreadableParts how many parts were not read, the listed ones and those only counted
 */
public record TraceRead(List<Span> spans, List<String> unreadable, int unreadableParts) {
    /** Unreadable parts listed by position before the rest are only counted. */
    public static final int MAX_LISTED = 20;

    public TraceRead {
        spans = List.copyOf(spans);
        unreadable = List.copyOf(unreadable);
    }

    /**
     * The spans read and every part not read, the parts listed up to {@link #MAX_LISTED} ({@link #capped}) and all
     * counted.
     *
     * @param problems {@code position: reason} of every part not read, in reading order
     */
    public TraceRead(List<Span> spans, List<String> problems) {
        this(spans, capped(problems), problems.size());
    }

    /** Spans only, every part read. */
    public static TraceRead of(List<Span> spans) {
        return new TraceRead(spans, List.of());
    }

    /** True when every part of the source in the window was read. */
    public boolean whole() {
        return unreadable.isEmpty();
    }

    /**
     * {@code problems} capped at {@link #MAX_LISTED} entries, the rest counted in one last entry.
     *
     * @param problems {@code position: reason} entries, in reading order
     */
    public static List<String> capped(List<String> problems) {
        if (problems.size() <= MAX_LISTED) {
            return problems;
        }
        List<String> out = new java.util.ArrayList<>(problems.subList(0, MAX_LISTED));
        out.add("... and " + (problems.size() - MAX_LISTED) + " more");
        return out;
    }
}
