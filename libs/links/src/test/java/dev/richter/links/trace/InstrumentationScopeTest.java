package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every trace reader keeps the instrumentation scope that recorded each span. Expected values are read by hand from the
 * corpus files: {@code otlp-trace.json} names scope {@code my.library} {@code 1.0.0}; {@code otlp2jaeger-in.json}
 * names {@code telemetrygen} with no version, and its Jaeger translation {@code otlp2jaeger-out.json} carries the same
 * as the tag {@code otel.library.name}; the X-Ray sample's segment says {@code "xray": {"sdk": "X-Ray for Go",
 * "sdk_version": "1.1.0"}}, and its 17 subsegments were recorded by the same SDK.
 */
class InstrumentationScopeTest {
    private static byte[] corpus(String relative) throws IOException {
        return Files.readAllBytes(Path.of(System.getProperty("richter.corpus", "/work/shared/corpus")).resolve(relative));
    }

    private static Set<InstrumentationScope> scopes(ParsedTraces traces) {
        return traces.spans().stream().map(Span::scope).collect(Collectors.toSet());
    }

    @Test
    void otlpScopeNameAndVersionOnEverySpanOfItsGroup() throws IOException {
        byte[] doc = corpus("traces/otlp/otlp-trace.json");
        for (boolean stream : new boolean[] {true, false}) {
            ParsedTraces t = TraceDocuments.parse("otlp-trace.json", doc, stream);
            assertEquals(1, t.spans().size());
            assertEquals(new InstrumentationScope("my.library", "1.0.0"), t.spans().get(0).scope(), "stream " + stream);
        }
    }

    @Test
    void jaegerOtelLibraryTagIsTheSameScopeAsItsOtlpSource() throws IOException {
        ParsedTraces otlp = TraceDocuments.parse("otlp2jaeger-in.json", corpus("traces/jaeger/otlp2jaeger-in.json"));
        ParsedTraces jaeger = TraceDocuments.parse("otlp2jaeger-out.json", corpus("traces/jaeger/otlp2jaeger-out.json"));
        Set<InstrumentationScope> expected = Set.of(new InstrumentationScope("telemetrygen", ""));
        assertEquals(expected, scopes(otlp));
        assertEquals(expected, scopes(jaeger));
    }

    @Test
    void xraySubsegmentsTakeTheSdkOfTheirSegment() throws IOException {
        ParsedTraces t = TraceDocuments.parse("ddbSample.json", corpus("traces/xray/ddbSample.json"));
        assertEquals(18, t.spans().size(), "1 segment + 17 subsegments");
        assertEquals(Set.of(new InstrumentationScope("X-Ray for Go", "1.1.0")), scopes(t));
    }

    /** Pre-1.0 OTLP names its groups {@code instrumentationLibrarySpans[].instrumentationLibrary}; here after the spans. */
    @Test
    void preOneOtlpInstrumentationLibraryAfterItsSpans() {
        byte[] doc = """
                {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"order"}}]},
                  "instrumentationLibrarySpans":[
                    {"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","kind":3}],
                     "instrumentationLibrary":{"name":"io.opentelemetry.apache-httpclient-4.3","version":"1.9.0"}},
                    {"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203332","kind":3}]}]}]}"""
                .getBytes(StandardCharsets.UTF_8);
        for (boolean stream : new boolean[] {true, false}) {
            List<Span> spans = TraceDocuments.parse("pre-1.0", doc, stream).spans();
            assertEquals(new InstrumentationScope("io.opentelemetry.apache-httpclient-4.3", "1.9.0"), spans.get(0).scope(),
                    "stream " + stream);
            assertEquals(InstrumentationScope.NONE, spans.get(1).scope(), "a group without a scope, stream " + stream);
        }
    }

    /** OpenTelemetry's Zipkin exporter writes {@code otel.scope.name/version}; the older tags lose to them. */
    @Test
    void zipkinOtelScopeTags() {
        byte[] doc = """
                [{"traceId":"0af7651916cd43dd8448eb211c80319c","id":"b7ad6b7169203331","kind":"CLIENT",
                  "localEndpoint":{"serviceName":"cart"},
                  "tags":{"otel.scope.name":"io.opentelemetry.lettuce-5.1","otel.scope.version":"2.22.0-alpha",
                          "otel.library.name":"old","db.system":"redis"}},
                 {"traceId":"0af7651916cd43dd8448eb211c80319c","id":"b7ad6b7169203332","kind":"CLIENT",
                  "localEndpoint":{"serviceName":"cart"},
                  "tags":{"otel.library.name":"io.opentelemetry.okhttp-3.0","otel.library.version":"1.32.0"}},
                 {"traceId":"0af7651916cd43dd8448eb211c80319c","id":"b7ad6b7169203333","kind":"CLIENT",
                  "localEndpoint":{"serviceName":"cart"}}]""".getBytes(StandardCharsets.UTF_8);
        List<Span> spans = TraceDocuments.parse("zipkin", doc).spans();
        assertEquals(new InstrumentationScope("io.opentelemetry.lettuce-5.1", "2.22.0-alpha"), spans.get(0).scope());
        assertEquals(new InstrumentationScope("io.opentelemetry.okhttp-3.0", "1.32.0"), spans.get(1).scope());
        assertEquals(InstrumentationScope.NONE, spans.get(2).scope());
    }
}
