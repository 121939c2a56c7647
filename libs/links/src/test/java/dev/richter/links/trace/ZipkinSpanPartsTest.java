package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The kind "the parts of one Zipkin span id are merged, not kept first-come" (PublicFixturesTest's
 * smartthings-mobile-web-install.json finding). Zipkin's {@code Trace.merge} joins the parts of one id that share a
 * local endpoint and a side (B3 {@code shared}); Richter holds one span per side of an id, the CLIENT half under the
 * id and the SERVER half of a shared id under {@code <id>:server}. So a part without {@code kind} is merged into the half
 * of its endpoint, filling what that half lacks, and never takes the id from the half; a repeat of a half that adds
 * nothing, or that comes from another endpoint, is a duplicate as before.
 */
class ZipkinSpanPartsTest {
    private static final String DUPLICATE = "duplicate span id";
    private static final String MERGED = "span part merged";

    /** smartthings-mobile-web-install.json's shape: the server's kind-less fragment comes first; the CLIENT keeps its half. */
    @Test
    void aKindlessFragmentOfTheServerBeforeItsClientIsMergedIntoTheServerHalf() {
        ParsedTraces p = parse("""
                [{"traceId":"a","id":"1","parentId":"9","name":"post","localEndpoint":{"serviceName":"server","ipv4":"10.0.0.2","port":8140}},
                 {"traceId":"a","id":"1","parentId":"9","kind":"SERVER","name":"post","timestamp":20,"duration":50,
                  "localEndpoint":{"serviceName":"server","ipv4":"10.0.0.2","port":8140},"shared":true},
                 {"traceId":"a","id":"1","parentId":"9","kind":"CLIENT","name":"post /x","timestamp":10,"duration":70,
                  "localEndpoint":{"serviceName":"client","ipv4":"10.0.0.1"},"remoteEndpoint":{"serviceName":"server"}}]""");
        assertEquals(Map.of(DUPLICATE, 1), p.skippedByReason(), "the fragment adds nothing to the server half");
        assertEquals(List.of(
                        List.of("0000000000000001:server", "0000000000000001", "server", "post", SpanKind.SERVER, 20_000L, 50_000L),
                        List.of("0000000000000001", "0000000000000009", "client", "post /x", SpanKind.CLIENT, 10_000L, 70_000L)),
                fields(p));
        assertEquals("server", p.spans().get(1).peerService());
    }

    /** A fragment fills what its half lacks (Zipkin: a span sent in several parts) and is counted as merged. */
    @Test
    void aFragmentFillsWhatItsHalfLacks() {
        ParsedTraces p = parse("""
                [{"traceId":"a","id":"1","kind":"CLIENT","name":"get","timestamp":10,"localEndpoint":{"serviceName":"client"}},
                 {"traceId":"a","id":"1","kind":"SERVER","name":"get /y","timestamp":12,"localEndpoint":{"serviceName":"server"}},
                 {"traceId":"a","id":"1","duration":30,"localEndpoint":{"serviceName":"SERVER"},"tags":{"http.path":"/y"}},
                 {"traceId":"a","id":"1","duration":40,"localEndpoint":{"serviceName":"client"},"remoteEndpoint":{"serviceName":"server"}}]""");
        assertEquals(Map.of(MERGED, 2), p.skippedByReason());
        assertEquals(List.of(
                        List.of("0000000000000001", "", "client", "get", SpanKind.CLIENT, 10_000L, 40_000L),
                        List.of("0000000000000001:server", "0000000000000001", "server", "get /y", SpanKind.SERVER, 12_000L, 30_000L)),
                fields(p));
        assertEquals(List.of("server", Map.of("http.path", "/y")), List.of(p.spans().get(0).peerService(), p.spans().get(1).attributes()));
    }

    /**
     * A fragment without a local endpoint joins the half of its own {@code shared} flag (none: the CLIENT half), as
     * Zipkin's merge does; one whose endpoint is no half's is a duplicate and leaves the id to the half.
     */
    @Test
    void aFragmentWithoutEndpointJoinsTheHalfOfItsSharedFlagAndOneOfNoHalfIsADuplicate() {
        ParsedTraces p = parse("""
                [{"traceId":"a","id":"1","name":"stray","timestamp":5,"localEndpoint":{"serviceName":"elsewhere"}},
                 {"traceId":"a","id":"1","duration":40},
                 {"traceId":"a","id":"1","kind":"CLIENT","name":"get","timestamp":10,"localEndpoint":{"serviceName":"client"}},
                 {"traceId":"a","id":"1","kind":"SERVER","name":"get /y","timestamp":12,"duration":30,
                  "localEndpoint":{"serviceName":"server"},"shared":true}]""");
        assertEquals(Map.of(MERGED, 1, DUPLICATE, 1), p.skippedByReason());
        assertEquals(List.of(
                        List.of("0000000000000001", "", "client", "get", SpanKind.CLIENT, 10_000L, 40_000L),
                        List.of("0000000000000001:server", "0000000000000001", "server", "get /y", SpanKind.SERVER, 12_000L, 30_000L)),
                fields(p));
    }

    /** Without a CLIENT, a kind-less fragment of a lone SERVER merges into it; kind-less parts alone merge with each other. */
    @Test
    void fragmentsMergeWithoutAClientHalfToo() {
        ParsedTraces p = parse("""
                [{"traceId":"a","id":"1","localEndpoint":{"serviceName":"s"},"timestamp":7},
                 {"traceId":"a","id":"1","kind":"SERVER","name":"get","duration":3,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"2","parentId":"1","name":"work","timestamp":8,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"2","parentId":"1","duration":2,"localEndpoint":{"serviceName":"s"}}]""");
        assertEquals(Map.of(MERGED, 2), p.skippedByReason());
        assertEquals(List.of(
                        List.of("0000000000000001", "", "s", "get", SpanKind.SERVER, 7_000L, 3_000L),
                        List.of("0000000000000002", "0000000000000001", "s", "work", SpanKind.INTERNAL, 8_000L, 2_000L)),
                fields(p));
    }

    /**
     * Real duplicates stay duplicates: an identical repeat of a half, and a repeat of the same kind from another host
     * (smartthings-oauth-authorization.json's five SERVER halves of one id), are counted; the first half keeps the id.
     */
    @Test
    void identicalRepeatsAndRepeatsFromAnotherHostAreDuplicates() {
        ParsedTraces p = parse("""
                [{"traceId":"a","id":"1","kind":"CLIENT","name":"send","timestamp":1,"localEndpoint":{"serviceName":"c"}},
                 {"traceId":"a","id":"1","kind":"SERVER","name":"receive","timestamp":2,"localEndpoint":{"serviceName":"s","ipv4":"10.0.0.1"},"shared":true},
                 {"traceId":"a","id":"1","kind":"SERVER","name":"receive","timestamp":3,"localEndpoint":{"serviceName":"s","ipv4":"10.0.0.2"},"shared":true},
                 {"traceId":"a","id":"1","kind":"CLIENT","name":"send","timestamp":1,"localEndpoint":{"serviceName":"c"}}]""");
        assertEquals(Map.of(DUPLICATE, 2), p.skippedByReason());
        assertEquals(List.of(
                        List.of("0000000000000001", "", "c", "send", SpanKind.CLIENT, 1_000L, 0L),
                        List.of("0000000000000001:server", "0000000000000001", "s", "receive", SpanKind.SERVER, 2_000L, 0L)),
                fields(p));
    }

    private static ParsedTraces parse(String doc) {
        return TraceDocuments.parse("parts", doc.getBytes(StandardCharsets.UTF_8));
    }

    private static List<List<Object>> fields(ParsedTraces p) {
        return p.spans().stream().map(s -> List.<Object>of(s.spanId(), s.parentSpanId(), s.service(), s.operation(), s.kind(),
                s.startEpochNanos(), s.durationNanos())).toList();
    }
}
