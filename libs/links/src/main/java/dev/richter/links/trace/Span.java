package dev.richter.links.trace;

import java.util.List;
import java.util.Map;

/**
 * One span in Richter's normalized model, whatever format it came from.
 *
 * <p>Ids are normalized by {@link TraceIds}, per format: trace ids are 32 lower-case hex digits
 * (128 bit; a 64-bit id is left-padded, X-Ray's {@code 1-…-…} form is joined), span ids 16; only
 * Jaeger UI JSON may carry opaque non-hex ids (its fixtures use {@code span-1}), kept verbatim, and
 * Alibaba CSV trace ids are dataset strings. The half of a Zipkin shared span recorded by the server
 * gets the span id {@code <id>:server} and the client half as its parent (see
 * {@link ZipkinParser}). No field is null: "no parent" is the empty string.
 *
 * @param traceId 32 lower-case hex digits (or an opaque id)
 * @param spanId 16 lower-case hex digits (or an opaque id), unique within the trace
 * @param parentSpanId the parent's span id in the same trace, {@code ""} for none
 * @param links other spans this span refers to (OTLP links, extra Jaeger references)
 * @param service the service that recorded the span (OTLP {@code service.name}, Zipkin
 *     {@code localEndpoint.serviceName}, Jaeger process {@code serviceName}, X-Ray segment name),
 *     {@link #UNKNOWN_SERVICE} when the document names none
 * @param operation span name / Jaeger operationName / X-Ray subsegment name or AWS operation
 * @param kind the span's role in a call
 * @param peerService the called service when the span is a call to a possibly uninstrumented
 *     peer (Zipkin {@code remoteEndpoint.serviceName}, OTel {@code peer.service},
 *     {@code server.address}, {@code db.system}…, X-Ray remote subsegment name), {@code ""} if unknown
 * @param attributes span attributes/tags as strings (arrays and maps as JSON text)
 * @param startEpochNanos start time in nanoseconds since the Unix epoch (precision of the source:
 *     µs for Zipkin/Jaeger/X-Ray); never used to derive edges
 * @param durationNanos duration in nanoseconds, 0 when unknown (X-Ray in-progress segments)
 * @param scope the instrumentation that recorded the span ({@link InstrumentationScope}: OTLP's scope, the
 *     {@code otel.scope.*} / {@code otel.library.*} tags of Jaeger and Zipkin, X-Ray's recording SDK), {@link
 *     InstrumentationScope#NONE} when the document names none
 */
public record Span(
        String traceId,
        String spanId,
        String parentSpanId,
        List<SpanRef> links,
        String service,
        String operation,
        SpanKind kind,
        String peerService,
        Map<String, String> attributes,
        long startEpochNanos,
        long durationNanos,
        InstrumentationScope scope) {

    public Span {
        scope = scope == null ? InstrumentationScope.NONE : scope;
    }

    /** A span whose document names no instrumentation scope ({@link InstrumentationScope#NONE}). */
    public Span(String traceId, String spanId, String parentSpanId, List<SpanRef> links, String service,
                String operation, SpanKind kind, String peerService, Map<String, String> attributes,
                long startEpochNanos, long durationNanos) {
        this(traceId, spanId, parentSpanId, links, service, operation, kind, peerService, attributes, startEpochNanos,
                durationNanos, InstrumentationScope.NONE);
    }

    /**
     * The service name of a span whose document names none: {@code unknown_service}, the name the
     * OpenTelemetry resource semantic conventions give an SDK without {@code service.name}
     * ("unknown_service" + optional {@code :<process.executable.name>}), so such spans keep their
     * edges and read the same as what OTel SDKs export. Counted per span in
     * {@link ParsedTraces#repairedByReason()} as {@code "missing service name"}.
     */
    public static final String UNKNOWN_SERVICE = "unknown_service";

    /** This span with {@code attributes} in place of its own, everything else (its scope included) kept. */
    public Span withAttributes(Map<String, String> attributes) {
        return new Span(traceId, spanId, parentSpanId, links, service, operation, kind, peerService, attributes,
                startEpochNanos, durationNanos, scope);
    }

    /** True when the span names a parent (which may or may not be in the batch). */
    public boolean hasParent() {
        return !parentSpanId.isEmpty();
    }
}
