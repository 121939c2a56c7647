package dev.richter.links.trace;

/** The document formats {@link TraceDocuments} recognizes, by content (never by file name). */
public enum TraceFormat {
    /** OTLP/JSON {@code ExportTraceServiceRequest}: {@code {"resourceSpans":[…]}}. */
    OTLP_JSON,
    /** Zipkin API v2 JSON: an array of spans, or an array of traces (arrays of spans). */
    ZIPKIN_V2_JSON,
    /** Jaeger JSON: the UI/API export {@code {"data":[trace…]}}, one trace, or an array of traces. */
    JAEGER_JSON,
    /** AWS X-Ray segment documents: one segment, an array, the daemon's header+segment form, or BatchGetTraces output. */
    XRAY_SEGMENTS,
    /** Alibaba microservices call-graph CSV (cluster-trace-microservices v2021 and v2022 headers). */
    ALIBABA_CALLGRAPH_CSV,
    /** Spans read from a configured trace source (any of the formats above, merged). */
    TRACE_SOURCE,
    /** A service dependency list {@code [{"parent","child","callCount"}]} (Zipkin/Jaeger dependencies API). */
    DEPENDENCY_LINKS
}
