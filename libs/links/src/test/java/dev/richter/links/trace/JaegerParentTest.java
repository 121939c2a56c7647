package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.ExtractedLinks;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The kind "a Jaeger span's parent is a CHILD_OF reference into the span's own trace" (PublicFixturesTest's
 * ui_01.json finding): as Jaeger's {@code model.Span.ParentSpanID()}, the parent is the first reference whose
 * {@code refType} is {@code CHILD_OF} and whose {@code traceID} is the span's; a reference into another trace, and
 * every {@code FOLLOWS_FROM}, is a link, as an OTLP span's {@code links} are, so a trace reads the same from OTLP and
 * from its Jaeger conversion (parent → CHILD_OF, links → FOLLOWS_FROM).
 */
class JaegerParentTest {
    private static final String OWN = "0000000000000000000000000000000a";
    private static final String OTHER = "0000000000000000000000000000000b";

    @Test
    void theParentIsTheFirstChildOfIntoTheOwnTraceAndEveryOtherReferenceIsALink() {
        Span s = only(trace("""
                [{"refType":"CHILD_OF","traceID":"b","spanID":"f1"},
                 {"refType":"FOLLOWS_FROM","traceID":"a","spanID":"a1"},
                 {"refType":"CHILD_OF","traceID":"a","spanID":"a2"},
                 {"refType":"CHILD_OF","traceID":"a","spanID":"a3"}]"""), "0000000000000001");
        assertEquals("00000000000000a2", s.parentSpanId());
        assertEquals(List.of(new SpanRef(OTHER, "00000000000000f1"), new SpanRef(OWN, "00000000000000a1"),
                new SpanRef(OWN, "00000000000000a3")), s.links());
    }

    @Test
    void aSpanWhoseOnlyChildOfPointsIntoAnotherTraceHasNoParentAndLinksToIt() {
        Span s = only(trace("[{\"refType\":\"CHILD_OF\",\"traceID\":\"b\",\"spanID\":\"f1\"}]"), "0000000000000001");
        assertEquals("", s.parentSpanId());
        assertEquals(List.of(new SpanRef(OTHER, "00000000000000f1")), s.links());
    }

    @Test
    void followsFromIsALinkNeverTheParent() {
        Span s = only(trace("[{\"refType\":\"FOLLOWS_FROM\",\"traceID\":\"a\",\"spanID\":\"a1\"}]"), "0000000000000001");
        assertEquals("", s.parentSpanId());
        assertEquals(List.of(new SpanRef(OWN, "00000000000000a1")), s.links());
    }

    /** A reference without a {@code traceID}, or with the span's 64-bit low half (jaeger #3084), is into its own trace. */
    @Test
    void aReferenceWithoutTraceIdOrWithTheLowHalfIsIntoTheOwnTrace() {
        String doc = """
                {"traceID":"7ca373f7c7e0f17d0a965485593768ce","processes":{"p":{"serviceName":"a"}},"spans":[
                 {"spanID":"1","processID":"p","references":[{"refType":"CHILD_OF","traceID":"0a965485593768ce","spanID":"9"}]},
                 {"spanID":"2","processID":"p","references":[{"refType":"CHILD_OF","spanID":"9"}]}]}""";
        ParsedTraces p = TraceDocuments.parse("low", doc.getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("0000000000000009", "0000000000000009"), p.spans().stream().map(Span::parentSpanId).toList());
        assertEquals(List.of(List.of(), List.of()), p.spans().stream().map(Span::links).toList());
    }

    /**
     * The span of another trace a cross-trace CHILD_OF names gives the edge through the link, and the span is no entry:
     * the graph is the one the OTLP form of the two traces gives.
     */
    @Test
    void aCrossTraceChildOfGivesTheEdgeAsALink() {
        String doc = """
                {"data":[
                 {"traceID":"b","processes":{"p":{"serviceName":"producer"}},"spans":[
                  {"traceID":"b","spanID":"f1","operationName":"send","processID":"p","references":[],
                   "tags":[{"key":"span.kind","type":"string","value":"producer"}]}]},
                 {"traceID":"a","processes":{"q":{"serviceName":"consumer"}},"spans":[
                  {"traceID":"a","spanID":"1","operationName":"receive","processID":"q",
                   "references":[{"refType":"CHILD_OF","traceID":"b","spanID":"f1"}],
                   "tags":[{"key":"span.kind","type":"string","value":"consumer"}]}]}]}""";
        ParsedTraces p = TraceDocuments.parse("cross", doc.getBytes(StandardCharsets.UTF_8));
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(Set.of("producer>consumer"),
                Set.copyOf(l.serviceEdges().keySet().stream().map(e -> e.from() + ">" + e.to()).toList()));
        assertEquals(Set.of(), l.serviceEntries(), "the consumer is no entry, the producer sends");
    }

    /**
     * Two spans in OTLP (one with a {@code parentSpanId} and links into its own and another trace, a root with a link
     * into its own trace) and in Jaeger JSON as Jaeger's OTLP translator writes them (the parent a CHILD_OF, each link a
     * FOLLOWS_FROM): the same parents and links, the root staying a root.
     */
    @Test
    void otlpAndItsJaegerConversionGiveTheSameParentsAndLinks() {
        String otlp = """
                {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]},
                 "scopeSpans":[{"spans":[
                  {"traceId":"%1$s","spanId":"0000000000000001","parentSpanId":"00000000000000a2","name":"op",
                   "links":[{"traceId":"%1$s","spanId":"00000000000000a1"},{"traceId":"%2$s","spanId":"00000000000000f1"}]},
                  {"traceId":"%1$s","spanId":"0000000000000002","name":"op","links":[{"traceId":"%1$s","spanId":"00000000000000a1"}]}]}]}]}
                """.formatted(OWN, OTHER);
        String jaeger = """
                {"traceID":"%1$s","processes":{"p":{"serviceName":"a"}},"spans":[
                 {"spanID":"0000000000000001","operationName":"op","processID":"p","references":[
                  {"refType":"CHILD_OF","traceID":"%1$s","spanID":"00000000000000a2"},
                  {"refType":"FOLLOWS_FROM","traceID":"%1$s","spanID":"00000000000000a1"},
                  {"refType":"FOLLOWS_FROM","traceID":"%2$s","spanID":"00000000000000f1"}]},
                 {"spanID":"0000000000000002","operationName":"op","processID":"p","references":[
                  {"refType":"FOLLOWS_FROM","traceID":"%1$s","spanID":"00000000000000a1"}]}]}""".formatted(OWN, OTHER);
        ParsedTraces fromOtlp = TraceDocuments.parse("otlp", otlp.getBytes(StandardCharsets.UTF_8));
        ParsedTraces fromJaeger = TraceDocuments.parse("jaeger", jaeger.getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("00000000000000a2", ""), fromOtlp.spans().stream().map(Span::parentSpanId).toList());
        assertEquals(parentsAndLinks(fromOtlp), parentsAndLinks(fromJaeger));
    }

    private static List<List<Object>> parentsAndLinks(ParsedTraces p) {
        return p.spans().stream().map(s -> List.<Object>of(s.spanId(), s.parentSpanId(), s.links())).toList();
    }

    /** One trace {@code a} with one span {@code 1} of service {@code a} and the given references, parsed. */
    private static ParsedTraces trace(String references) {
        String doc = """
                {"traceID":"a","processes":{"p":{"serviceName":"a"}},"spans":[
                 {"spanID":"1","operationName":"op","processID":"p","references":%s}]}""".formatted(references);
        return TraceDocuments.parse("refs", doc.getBytes(StandardCharsets.UTF_8));
    }

    private static Span only(ParsedTraces p, String spanId) {
        assertEquals(Map.of(), p.skippedByReason());
        assertEquals(1, p.spans().size());
        Span s = p.spans().get(0);
        assertEquals(spanId, s.spanId());
        return s;
    }
}
