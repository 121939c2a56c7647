package dev.richter.links.source;

/**
 * Where a team's spans are read from: by the dynamic safety checks (the pre-test's or the nightly
 * replay's traces) and by the link builder's periodic rebuild. Configured per team in its safety configuration ({@code traceSource}, see
 * {@link TraceSourceSpec}).
 *
 * <p>Implementations: {@link DirectoryTraceSource} (files: OTLP JSON documents or the OpenTelemetry
 * agent's {@code logging-otlp} log lines; used locally with the demo shop) and {@link XRayTraceSource}
 * (the X-Ray API). An S3 prefix of exported OTLP files is not implemented yet ({@link TraceSourceSpec#open()}).
 */
public interface TraceSource {
    /**
     * The team's spans that started in {@code [fromEpochMs, toEpochMs]}, and the parts of the source that could not be
     * read, each with its position (see {@link TraceRead}).
     *
     * @param teamId the team (sources shared by several teams filter by it; a team's own directory ignores it)
     * @param fromEpochMs window start, epoch milliseconds, inclusive
     * @param toEpochMs window end, epoch milliseconds, inclusive
     * @return the spans, de-duplicated by (trace id, span id), empty when there are none yet; and the unreadable parts
     * @throws java.io.UncheckedIOException when the source cannot be read at all
     */
    TraceRead read(String teamId, long fromEpochMs, long toEpochMs);

    /** For evidence text, e.g. {@code directory /tmp/shop/run}. */
    String describe();
}
