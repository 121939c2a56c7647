package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.graph.Edge;
import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.ExtractedLinks;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Id rules per format ({@link TraceIds}) and what they do to whole documents: mixed 64/128-bit
 * widths join into one trace, ids in another encoding reject the document naming the field and its
 * position. Expected values are worked out by hand in each test.
 */
class TraceIdsTest {
    private static final String B3_64 = "463ac35c9f6413ad";
    private static final String B3_128 = "0000000000000000463ac35c9f6413ad";

    // ---- OTLP/JSON: exactly 32 / 16 hex, any case, never base64 ----

    @Test
    void otlpIdsAreExactHexLowerCased() {
        assertEquals("5b8efff798038103d269b633813fc60c", TraceIds.otlpTraceId("5B8EFFF798038103D269B633813FC60C"));
        assertEquals("eee19b7ec3c1b174", TraceIds.otlpSpanId("EEE19B7EC3C1B174"));
        assertEquals("", TraceIds.otlpTraceId(""), "absent: the span is skipped as missing trace id");
        assertEquals("", TraceIds.otlpParentSpanId(""));
        assertEquals("", TraceIds.otlpParentSpanId("0000000000000000"), "all-zero parent = root");
        assertReason("expected 32 hex characters, got 16 hex characters \"463ac35c9f6413ad\"",
                TraceIds::otlpTraceId, B3_64);
        // base64 of the 16 id bytes (protobuf's generic JSON mapping): rejected, not decoded
        assertReason("expected 32 hex characters, got 24-character base64 value \"xOGge5PSX2jgt6TJHT8uhQ==\"; OTLP/JSON",
                TraceIds::otlpTraceId, "xOGge5PSX2jgt6TJHT8uhQ==");
        assertReason("expected 16 hex characters, got 12-character base64 value \"fS6aSxxvDjg=\"",
                TraceIds::otlpSpanId, "fS6aSxxvDjg=");
        assertReason("expected 32 hex characters, got an all-zero id", TraceIds::otlpTraceId, "0".repeat(32));
        assertReason("expected 16 hex characters, got 16-character value that is not hex \"span-00000000001\"",
                TraceIds::otlpSpanId, "span-00000000001");
    }

    /** A bad link id deep in the document: the path names the link, the position is its value. */
    @Test
    void otlpBadLinkSpanIdNamesTheLink() {
        String doc = """
                {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]},
                 "scopeSpans":[{"spans":[
                  {"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"x"},
                  {"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"00f067aa0ba902b7","name":"y",
                   "links":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"t7ad6b7169203331"}]}]}]}]}""";
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> parse(doc));
        assertEquals("resourceSpans[0].scopeSpans[0].spans[1].links[0].spanId: expected 16 hex characters, "
                + "got 16-character value that is not hex \"t7ad6b7169203331\"", e.reason());
        assertEquals(5, e.line());
        assertEquals(68, e.column(), "3 spaces, \"links\":[{\"traceId\":\"<32>\",\"spanId\": is 67 characters");
    }

    // ---- Zipkin v2: 16 or 32 hex (shorter padded, as Zipkin reads them); 64-bit = 128-bit with zero high half ----

    @Test
    void zipkinIdsArePaddedAndBothWidthsAreOneId() {
        assertEquals(B3_128, TraceIds.zipkinTraceId(B3_64));
        assertEquals(B3_128, TraceIds.zipkinTraceId(B3_128));
        assertEquals("463ac35c9f6413ad48485a3953bb6124", TraceIds.zipkinTraceId("463AC35C9F6413AD48485A3953BB6124"));
        assertEquals("00000000000000000000000000000abc", TraceIds.zipkinTraceId("abc"));
        assertEquals("000000000000000a", TraceIds.zipkinSpanId("a"));
        assertEquals("", TraceIds.zipkinParentId("0000000000000000"), "all-zero parent = root");
        assertReason("expected 16 or 32 hex characters, got 33 hex characters", TraceIds::zipkinTraceId, "1" + B3_128);
        assertReason("expected 16 hex characters, got 17 hex characters", TraceIds::zipkinSpanId, "1" + B3_64);
        assertReason("expected 16 or 32 hex characters, got 24-character base64 value", TraceIds::zipkinTraceId,
                "NDYzYWMzNWM5ZjY0MTNhZA==");
        assertReason("expected 16 hex characters, got an all-zero id", TraceIds::zipkinSpanId, "0");
    }

    /**
     * One B3 trace whose tracers disagree on width: the root (gateway) writes the 64-bit id, the
     * shared client/server span into orders is written by a 128-bit tracer, and orders' database
     * call by a 64-bit one again. By hand: one trace id, edges gateway→orders (client half in
     * gateway, server half in orders) and orders→postgres (CLIENT with remoteEndpoint, no child).
     */
    @Test
    void zipkinMixedWidthsJoinIntoOneTrace() {
        String doc = """
                [{"traceId":"%1$s","id":"0000000000000001","kind":"SERVER","name":"get /checkout",
                  "localEndpoint":{"serviceName":"gateway"}},
                 {"traceId":"%2$s","id":"0000000000000002","parentId":"0000000000000001","kind":"CLIENT","name":"post",
                  "localEndpoint":{"serviceName":"gateway"}},
                 {"traceId":"%2$s","id":"0000000000000002","parentId":"0000000000000001","kind":"SERVER",
                  "name":"post /orders","localEndpoint":{"serviceName":"orders"}},
                 {"traceId":"%1$s","id":"0000000000000003","parentId":"0000000000000002","kind":"CLIENT","name":"insert",
                  "localEndpoint":{"serviceName":"orders"},"remoteEndpoint":{"serviceName":"postgres"}}]"""
                .formatted(B3_64, B3_128);
        ParsedTraces p = parse(doc);
        assertEquals(4, p.spans().size());
        assertEquals(Set.of(B3_128), p.spans().stream().map(Span::traceId).collect(Collectors.toSet()));
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(edges("gateway>orders", "orders>postgres"), l.serviceEdges().keySet());
        assertEquals(edges("gateway get /checkout>orders post /orders", "orders post /orders>postgres insert"),
                l.interfaceEdges().keySet());
        assertEquals(Set.of("gateway get /checkout"), l.interfaceEntries());
    }

    /** Line 2 holds the second span; its traceId value starts at column 13 (after {@code ' {"traceId":'}). */
    @Test
    void zipkinBase64TraceIdIsRejectedWithItsPosition() {
        String doc = """
                [{"traceId":"%s","id":"0000000000000001","localEndpoint":{"serviceName":"a"}},
                 {"traceId":"NDYzYWMzNWM5ZjY0MTNhZA==","id":"0000000000000002","localEndpoint":{"serviceName":"a"}}]"""
                .formatted(B3_64);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> parse(doc));
        assertEquals("[1].traceId: expected 16 or 32 hex characters, got 24-character base64 value "
                + "\"NDYzYWMzNWM5ZjY0MTNhZA==\"", e.reason());
        assertEquals(2, e.line());
        assertEquals(13, e.column());
    }

    // ---- Jaeger UI/query JSON: hex up to 32 / 16 (padded), base64 rejected, other strings opaque ----

    @Test
    void jaegerIdsArePaddedHexOrOpaque() {
        assertEquals(B3_128, TraceIds.jaegerTraceId(B3_64));
        assertEquals(B3_128, TraceIds.jaegerTraceId(B3_128));
        assertEquals("00000000000000000000000000000abc", TraceIds.jaegerTraceId("abc"), "old Jaeger wrote %x");
        assertEquals("000000000000000f", TraceIds.jaegerSpanId("f"));
        assertEquals("", TraceIds.jaegerParentSpanId("0"), "legacy parentSpanID 0 = root");
        assertEquals("trace-123", TraceIds.jaegerTraceId("trace-123"), "jaeger-ui fixtures use opaque ids");
        // api_v2 protobuf JSON: base64 of the 16 id bytes {high:2, low:1} (jaeger model TraceID.MarshalJSON)
        assertReason("expected hex of up to 32 characters (Jaeger UI/query JSON), got 24-character base64 value",
                TraceIds::jaegerTraceId, "AAAAAAAAAAIAAAAAAAAAAQ==");
        assertReason("expected hex of up to 16 characters, got 17 hex characters", TraceIds::jaegerSpanId,
                "1" + B3_64);
    }

    /**
     * A Jaeger UI export whose trace is written with the 64-bit id at the top and the 32-digit
     * form in one span, and span ids with and without leading zeros (Jaeger before 1.x wrote
     * {@code %x}). By hand: one trace; orders' SERVER span is CHILD_OF gateway's CLIENT span →
     * gateway→orders; interface gateway GET /checkout → orders POST /orders.
     */
    @Test
    void jaegerMixedWidthsJoinIntoOneTrace() {
        String doc = """
                {"data":[{"traceID":"%1$s","processes":{"p1":{"serviceName":"gateway"},"p2":{"serviceName":"orders"}},
                 "spans":[
                  {"traceID":"%1$s","spanID":"a1","operationName":"GET /checkout","processID":"p1",
                   "tags":[{"key":"span.kind","type":"string","value":"server"}]},
                  {"traceID":"%2$s","spanID":"00000000000000b2","operationName":"POST","processID":"p1",
                   "references":[{"refType":"CHILD_OF","traceID":"%2$s","spanID":"00000000000000a1"}],
                   "tags":[{"key":"span.kind","type":"string","value":"client"}]},
                  {"spanID":"c3","operationName":"POST /orders","processID":"p2",
                   "references":[{"refType":"CHILD_OF","traceID":"%1$s","spanID":"b2"}],
                   "tags":[{"key":"span.kind","type":"string","value":"server"}]}]}]}"""
                .formatted(B3_64, B3_128);
        ParsedTraces p = parse(doc);
        assertEquals(3, p.spans().size());
        assertEquals(Set.of(B3_128), p.spans().stream().map(Span::traceId).collect(Collectors.toSet()));
        assertEquals("00000000000000b2", p.spans().get(2).parentSpanId());
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(edges("gateway>orders"), l.serviceEdges().keySet());
        assertEquals(edges("gateway GET /checkout>orders POST /orders"), l.interfaceEdges().keySet());
    }

    @Test
    void jaegerBase64SpanIdIsRejectedNamingTheField() {
        String doc = """
                {"data":[{"traceID":"%s","processes":{"p1":{"serviceName":"a"}},"spans":[
                  {"spanID":"00000000000000a1","operationName":"x","processID":"p1"},
                  {"spanID":"AAAAAAAAAKE=","operationName":"y","processID":"p1"}]}]}""".formatted(B3_64);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> parse(doc));
        assertTrue(e.reason().startsWith("data[0].spans[1].spanID: expected hex of up to 16 characters (Jaeger UI/query"
                + " JSON), got 12-character base64 value \"AAAAAAAAAKE=\""), e.reason());
        assertEquals(3, e.line());
        assertEquals(13, e.column());
    }

    // ---- X-Ray: 1-<8 hex>-<24 hex> trace ids → 32 hex; 16-hex segment ids ----

    @Test
    void xrayIdsFollowTheTraceHeaderForm() {
        assertEquals("58406520a006649127e371903a2de979", TraceIds.xrayTraceId("1-58406520-a006649127e371903a2de979"));
        assertEquals("58406520a006649127e371903a2de979", TraceIds.xrayTraceId("1-58406520-A006649127E371903A2DE979"));
        assertEquals("53995c3f42cd8ad8", TraceIds.xraySegmentId("53995c3f42cd8ad8"));
        assertEquals("", TraceIds.xrayParentId(""));
        assertReason("expected 1-<8 hex>-<24 hex> (e.g. 1-58406520-a006649127e371903a2de979), got 32 hex characters",
                TraceIds::xrayTraceId, "58406520a006649127e371903a2de979");
        assertReason("expected 1-<8 hex>-<24 hex>", TraceIds::xrayTraceId, "2-58406520-a006649127e371903a2de979");
        assertReason("expected 16 hex characters, got 8 hex characters", TraceIds::xraySegmentId, "53995c3f");
    }

    /**
     * An API Gateway segment with a remote subsegment, and the downstream Lambda's segment whose
     * {@code parent_id} is that subsegment (upper-case in the document, as some SDKs log it). By
     * hand: one trace; api→orders-fn; the trace id maps to 32 hex digits.
     */
    @Test
    void xraySegmentsJoinAcrossDocumentsAndCase() {
        String doc = """
                [{"trace_id":"1-5f29ab21-d4ebf299219a65bd5c31d6da","id":"88ad1df59cd7a7be","name":"api",
                  "start_time":1.5,"end_time":2.5,
                  "subsegments":[{"id":"1f2e3d4c5b6a7980","name":"orders-fn","namespace":"remote",
                                  "start_time":1.6,"end_time":2.4}]},
                 {"trace_id":"1-5F29AB21-D4EBF299219A65BD5C31D6DA","id":"aa00bb11cc22dd33","name":"orders-fn",
                  "parent_id":"1F2E3D4C5B6A7980","start_time":1.7,"end_time":2.3}]""";
        ParsedTraces p = parse(doc);
        assertEquals(3, p.spans().size());
        assertEquals(Set.of("5f29ab21d4ebf299219a65bd5c31d6da"),
                p.spans().stream().map(Span::traceId).collect(Collectors.toSet()));
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(edges("api>orders-fn"), l.serviceEdges().keySet());
    }

    @Test
    void xrayBadIdsAreRejectedNamingTheField() {
        String nested = """
                {"trace_id":"1-5f29ab21-d4ebf299219a65bd5c31d6da","id":"88ad1df59cd7a7be","name":"api",
                 "subsegments":[{"id":"1f2e3d4c","name":"db"}]}""";
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> parse(nested));
        assertEquals("subsegments[0].id: expected 16 hex characters, got 8 hex characters \"1f2e3d4c\"", e.reason());
        assertEquals(2, e.line());
        assertEquals(23, e.column());

        // BatchGetTraces: the segment is a JSON string; the error points at that string
        String batch = """
                {"Traces":[{"Id":"1-5f29ab21-d4ebf299219a65bd5c31d6da","Segments":[
                  {"Id":"88ad1df59cd7a7be","Document":"{\\"trace_id\\":\\"5f29ab21d4ebf299219a65bd5c31d6da\\",\\"id\\":\\"88ad1df59cd7a7be\\",\\"name\\":\\"api\\"}"}]}]}""";
        TraceFormatException b = assertThrows(TraceFormatException.class, () -> parse(batch));
        assertTrue(b.reason().startsWith("Traces[0].Segments[0].Document (embedded JSON).trace_id: expected 1-<8 hex>-<24 hex>"),
                b.reason());
        assertEquals(2, b.line());
        assertEquals(39, b.column(), "the Document string, after '  {\"Id\":\"<16>\",\"Document\":'");
    }

    // ---- missing service name: kept, counted, edges survive ----

    /**
     * An OTLP batch whose middle service was started without OTEL_SERVICE_NAME (no service.name on
     * its resource). By hand: gateway's CLIENT → the unnamed service's SERVER (child) → its CLIENT
     * → orders' SERVER; so gateway→unknown_service→orders, and both unnamed spans count as repairs.
     */
    @Test
    void otlpSpanWithoutServiceNameKeepsItsEdges() {
        String doc = """
                {"resourceSpans":[
                 {"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"gateway"}}]},
                  "scopeSpans":[{"spans":[
                   {"traceId":"%1$s","spanId":"0000000000000001","name":"GET /checkout","kind":2},
                   {"traceId":"%1$s","spanId":"0000000000000002","parentSpanId":"0000000000000001","name":"GET","kind":3}]}]},
                 {"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"h1"}}]},
                  "scopeSpans":[{"spans":[
                   {"traceId":"%1$s","spanId":"0000000000000003","parentSpanId":"0000000000000002","name":"GET /cart","kind":2},
                   {"traceId":"%1$s","spanId":"0000000000000004","parentSpanId":"0000000000000003","name":"POST","kind":3}]}]},
                 {"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"orders"}}]},
                  "scopeSpans":[{"spans":[
                   {"traceId":"%1$s","spanId":"0000000000000005","parentSpanId":"0000000000000004","name":"POST /orders","kind":2}]}]}]}"""
                .formatted("0af7651916cd43dd8448eb211c80319c");
        for (boolean stream : new boolean[] {true, false}) {
            ParsedTraces p = TraceDocuments.parse("m", doc.getBytes(StandardCharsets.UTF_8), stream);
            assertEquals(5, p.spans().size());
            assertEquals(Map.of(), p.skippedByReason());
            assertEquals(Map.of("missing service name", 2), p.repairedByReason());
            ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
            assertEquals(edges("gateway>unknown_service", "unknown_service>orders"), l.serviceEdges().keySet());
            assertEquals(edges("gateway GET /checkout>unknown_service GET /cart",
                    "unknown_service GET /cart>orders POST /orders"), l.interfaceEdges().keySet());
        }
    }

    private static ParsedTraces parse(String doc) {
        return TraceDocuments.parse("t.json", doc.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertReason(String expectedStart, UnaryOperator<String> rule, String raw) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rule.apply(raw));
        assertTrue(e.getMessage().startsWith(expectedStart), e.getMessage());
    }

    private static Set<Edge> edges(String... fromTo) {
        return Stream.of(fromTo).map(s -> new Edge(s.substring(0, s.indexOf('>')), s.substring(s.indexOf('>') + 1)))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
