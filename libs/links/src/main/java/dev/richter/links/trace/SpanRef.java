package dev.richter.links.trace;

/**
 * A reference from one span to another by id: an OTLP span link, a Jaeger reference that is not
 * the chosen parent (e.g. {@code FOLLOWS_FROM}, or a second {@code CHILD_OF}).
 *
 * @param traceId normalized trace id (see {@link TraceIds})
 * @param spanId normalized span id (see {@link TraceIds})
 */
public record SpanRef(String traceId, String spanId) {}
