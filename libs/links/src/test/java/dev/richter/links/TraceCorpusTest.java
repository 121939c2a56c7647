package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.graph.Edge;
import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.ExtractedLinks;
import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import dev.richter.links.trace.TraceDocuments;
import dev.richter.links.trace.TraceFormat;
import dev.richter.links.trace.TraceFormatException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Parsing and edge extraction on the real files of {@code corpus/traces} and {@code corpus/bugs}.
 * Expected edges are derived by hand from the files with the rules of {@link EdgeExtractor}
 * (written out per test).
 */
class TraceCorpusTest {

    static Stream<String> traceFiles() {
        return Corpus.traceFiles();
    }

    /** Every file ingests, except OTLP metrics and logs, which are rejected by decision (not traces). */
    @ParameterizedTest
    @MethodSource("traceFiles")
    void everyTraceFileParses(String file) {
        byte[] bytes = Corpus.bytes(file);
        String name = file.substring(file.lastIndexOf('/') + 1);
        if (name.equals("otlp-metrics.json") || name.equals("otlp-logs.json")) {
            TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceDocuments.parse(name, bytes));
            assertEquals(name, e.fileName());
            assertEquals(2, e.line(), "line of the resourceMetrics/resourceLogs key");
            assertEquals(3, e.column());
            assertTrue(e.reason().contains("not traces"), e.reason());
            return;
        }
        ParsedTraces parsed = TraceDocuments.parse(name, bytes);
        ExtractedLinks links = EdgeExtractor.extract(parsed.spans(), parsed.dependencies());
        assertTrue(parsed.spans().size() + parsed.spansSkipped() + parsed.dependencies().size() > 0, file);
        for (Span s : parsed.spans()) {
            assertFalse(s.service().isEmpty());
            assertFalse(s.parentSpanId().equals(s.spanId()), "no self parent survives: " + s);
            assertTrue(s.durationNanos() >= 0);
        }
        links.serviceEdges().keySet().forEach(e -> assertFalse(e.from().equals(e.to())));
    }

    /**
     * yelp.json (16 Zipkin spans, one trace). By hand: the shared id pairs are f5f2… (CLIENT
     * yelp-main / SERVER mobile_api), 7a77… (CLIENT mobile_api / SERVER spectre), 668e… (CLIENT
     * unknown / SERVER yelp_main/api_proxy); the root 2e8c… is a SERVER in routing. Parent → child
     * service changes: routing→unknown (668e client), unknown→yelp_main/api_proxy (668e server
     * half), yelp_main/api_proxy→yelp-main (241c, e7d1), routing→yelp-main (f5f2 client),
     * yelp-main→mobile_api (f5f2 server half), mobile_api→spectre (7a77 server half). CLIENT spans
     * with a remoteEndpoint and no instrumented child: yelp-main→memcache (e7d1, 0fac, 2b68),
     * yelp-main→mysql (50b5, b593), mobile_api→blt (15fc), mobile_api→memcache (6a65, cb4d).
     */
    @Test
    void yelpZipkin() {
        ExtractedLinks l = links("traces/zipkin/yelp.json", TraceFormat.ZIPKIN_V2_JSON, 16);
        assertEquals(edges("routing>unknown", "unknown>yelp_main/api_proxy", "yelp_main/api_proxy>yelp-main",
                "routing>yelp-main", "yelp-main>mobile_api", "mobile_api>spectre", "yelp-main>memcache",
                "yelp-main>mysql", "mobile_api>blt", "mobile_api>memcache"), l.serviceEdges().keySet());
        assertEquals(3, l.serviceEdges().get(new Edge("yelp-main", "memcache")).calls());
        // interface: a CLIENT stands for its caller's entry op; the SERVER half is the callee's op
        Set<Edge> iface = l.interfaceEdges().keySet();
        assertTrue(iface.contains(new Edge("yelp-main post", "mobile_api post /location/update/v4")));
        assertTrue(iface.contains(new Edge("mobile_api post /location/update/v4", "spectre get")));
        assertTrue(iface.contains(new Edge("mobile_api post /location/update/v4", "blt post")));
        assertTrue(iface.contains(new Edge("yelp-main txn: user_get_basic_and_scout_info", "mysql begin")));
        assertTrue(iface.contains(new Edge("unknown post", "yelp_main/api_proxy post api proxy proxy")));
        assertEquals(15, iface.size());
        assertEquals(Set.of("routing"), l.serviceEntries());
        assertEquals(Set.of("routing post /location/update/v4"), l.interfaceEntries());
    }

    /**
     * messaging-kafka.json (28 spans, servicea and serviceb). By hand: CONSUMER spans of serviceb
     * (b4a2, a552, 519d) are children of PRODUCER spans of servicea → servicea→serviceb, 3 calls.
     * The PRODUCER spans with no consumer child in another service (79145, 26bd, b7808, 5bc0,
     * e2fe, b42b) called the uninstrumented broker: servicea→kafka, 6 calls. Everything else stays
     * inside one service. Entry: the root CONSUMER "poll" of servicea.
     */
    @Test
    void messagingKafkaZipkin() {
        ExtractedLinks l = links("traces/zipkin/messaging-kafka.json", TraceFormat.ZIPKIN_V2_JSON, 28);
        assertEquals(edges("servicea>serviceb", "servicea>kafka"), l.serviceEdges().keySet());
        assertEquals(3, l.serviceEdges().get(new Edge("servicea", "serviceb")).calls());
        assertEquals(6, l.serviceEdges().get(new Edge("servicea", "kafka")).calls());
        // the producers run under on-message/handle (INTERNAL) below the root CONSUMER poll
        assertEquals(edges("servicea poll>serviceb poll", "servicea poll>kafka send"), l.interfaceEdges().keySet());
        assertEquals(Set.of("servicea poll"), l.interfaceEntries());
    }

    /**
     * ddbSample.json: one X-Ray segment "DDB" (SERVER) with subsegments; the two "dynamodb"
     * subsegments have namespace aws and aws.operation DescribeTable / PutItem → CLIENT calls to
     * dynamodb; the rest (marshal, attempt, connect, dns…) are in-process. So one service edge
     * DDB→dynamodb (2 calls) and two interface edges from the segment's own operation.
     */
    @Test
    void xrayDdbSample() {
        ExtractedLinks l = links("traces/xray/ddbSample.json", TraceFormat.XRAY_SEGMENTS, 18);
        assertEquals(edges("DDB>dynamodb"), l.serviceEdges().keySet());
        assertEquals(2, l.serviceEdges().get(new Edge("DDB", "dynamodb")).calls());
        assertEquals(edges("DDB DDB>dynamodb DescribeTable", "DDB DDB>dynamodb PutItem"), l.interfaceEdges().keySet());
        ParsedTraces p = TraceDocuments.parse("ddbSample.json", Corpus.bytes("traces/xray/ddbSample.json"));
        Span root = p.spans().get(0);
        assertEquals("5f29ab21d4ebf299219a65bd5c31d6da", root.traceId(), "X-Ray id → 128-bit hex");
        assertEquals(SpanKind.SERVER, root.kind());
        assertEquals(1596566305535414000L, root.startEpochNanos());
    }

    /**
     * jaegerui TraceGraph testTrace (11 spans, p1=service1, p2=service2). By hand: span-4 (SERVER
     * op1 of service2) is CHILD_OF span-3 (CLIENT op3 of service1, below SERVER op1 span-1);
     * span-7 (CONSUMER op3 of service2) FOLLOWS_FROM span-6 (PRODUCER op4 under span-1). span-5 is
     * inside service2. Service edge service1→service2 twice; interface edges from service1's entry
     * op1 to service2 op1 and op3.
     */
    @Test
    void jaegerTraceGraphTestTrace() {
        ExtractedLinks l = links("traces/jaeger/jaegerui-TraceGraph-testTrace.json", TraceFormat.JAEGER_JSON, 11);
        assertEquals(edges("service1>service2"), l.serviceEdges().keySet());
        assertEquals(2, l.serviceEdges().get(new Edge("service1", "service2")).calls());
        assertEquals(edges("service1 op1>service2 op1", "service1 op1>service2 op3"), l.interfaceEdges().keySet());
        assertEquals(Set.of("service1 op1"), l.interfaceEntries());
    }

    /** otlp2jaeger-in/out are the same trace in two formats: same spans, same (empty) graph, same entry. */
    @Test
    void otlpAndJaegerFormsGiveTheSameGraph() {
        ParsedTraces in = TraceDocuments.parse("in", Corpus.bytes("traces/jaeger/otlp2jaeger-in.json"));
        ParsedTraces out = TraceDocuments.parse("out", Corpus.bytes("traces/jaeger/otlp2jaeger-out.json"));
        assertEquals(TraceFormat.OTLP_JSON, in.format());
        assertEquals(TraceFormat.JAEGER_JSON, out.format());
        assertEquals(Map.of("duplicate span id", 1), in.skippedByReason(), "the fixture repeats its span");
        assertEquals(in.skippedByReason(), out.skippedByReason());
        assertEquals(1, in.spans().size());
        Span a = in.spans().get(0);
        Span b = out.spans().get(0);
        for (var f : new java.util.function.Function[] {
                (java.util.function.Function<Span, Object>) Span::traceId, (java.util.function.Function<Span, Object>) Span::spanId,
                (java.util.function.Function<Span, Object>) Span::parentSpanId, (java.util.function.Function<Span, Object>) Span::service,
                (java.util.function.Function<Span, Object>) Span::operation, (java.util.function.Function<Span, Object>) Span::kind,
                (java.util.function.Function<Span, Object>) Span::startEpochNanos,
                (java.util.function.Function<Span, Object>) Span::durationNanos}) {
            assertEquals(f.apply(a), f.apply(b));
        }
        ExtractedLinks la = EdgeExtractor.extract(in.spans(), in.dependencies());
        ExtractedLinks lb = EdgeExtractor.extract(out.spans(), out.dependencies());
        assertEquals(la.serviceEdges().keySet(), lb.serviceEdges().keySet());
        assertEquals(la.interfaceEdges().keySet(), lb.interfaceEdges().keySet());
        assertEquals(la.interfaceEntries(), lb.interfaceEntries());
        assertEquals(Set.of("telemetrygen okey-dokey-0"), la.interfaceEntries());
    }

    /** Bug 03: the consumer starts a new trace and points at the producer only through a span link. */
    @Test
    void bug03KafkaLinkGivesTheEdgeAndNoNewEntry() {
        ExtractedLinks l = links("bugs/03-kafka-link-not-parent.otlp.json", TraceFormat.OTLP_JSON, 2);
        assertEquals(edges("order-svc>billing-svc"), l.serviceEdges().keySet());
        assertEquals(edges("order-svc orders publish>billing-svc orders process"), l.interfaceEdges().keySet());
        assertTrue(l.serviceEntries().isEmpty(), "the linked consumer is not a new entry point");
    }

    /**
     * Bug 05 (jaegertracing/jaeger #3084): a client that sends only the low 64 bits of a 128-bit
     * trace id. Its span joins the one trace of the document whose low half matches, so the edge
     * gateway → health-svc survives and health-svc is no false entry.
     */
    @Test
    void bug05LowHalfOfA128BitTraceIdJoinsItsTrace() {
        ParsedTraces p = TraceDocuments.parse("05", Corpus.bytes("bugs/05-truncated-64bit-traceid.jaeger.json"));
        assertEquals(3, p.spans().size());
        assertEquals(Set.of("7ca373f7c7e0f17d0a965485593768ce"),
                p.spans().stream().map(Span::traceId).collect(Collectors.toSet()), "one trace");
        assertEquals(Map.of("64-bit trace id joined to its 128-bit trace", 1), p.repairedByReason());
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(edges("gateway>health-svc"), l.serviceEdges().keySet());
        assertEquals(Set.of("gateway"), l.serviceEntries(), "health-svc is no orphan entry");
    }

    /** A 64-bit id whose low half matches two 128-bit traces is ambiguous and joins neither. */
    @Test
    void aLowHalfMatchingTwoTracesJoinsNeither() {
        String doc = """
                {"data":[{"traceID":"x","processes":{"p":{"serviceName":"a"},"q":{"serviceName":"b"}},"spans":[
                 {"traceID":"11110000000000000a965485593768ce","spanID":"0000000000000001","processID":"p","operationName":"r1","references":[]},
                 {"traceID":"22220000000000000a965485593768ce","spanID":"0000000000000002","processID":"p","operationName":"r2","references":[]},
                 {"traceID":"0a965485593768ce","spanID":"0000000000000003","processID":"q","operationName":"c",
                  "references":[{"refType":"CHILD_OF","traceID":"0a965485593768ce","spanID":"0000000000000001"}]}]}]}
                """;
        ParsedTraces p = TraceDocuments.parse("amb", doc.getBytes(StandardCharsets.UTF_8));
        assertEquals("00000000000000000a965485593768ce", p.spans().get(2).traceId());
        assertEquals(Map.of(), p.repairedByReason());
    }

    /** Bug 07: a span lists itself as CHILD_OF; the self-reference is ignored, the valid parent kept. */
    @Test
    void bug07SelfReferenceIgnored() {
        ParsedTraces p = TraceDocuments.parse("07", Corpus.bytes("bugs/07-self-reference-child-of.jaeger.json"));
        assertEquals(Map.of("self-referencing parent ignored", 1), p.repairedByReason());
        Span check = p.spans().get(1);
        assertEquals("0f609f77cf61528f", check.parentSpanId());
        assertTrue(check.links().isEmpty());
        assertEquals("00000000000000004fad4dd4cf61528f", check.traceId(), "64-bit trace id left-padded");
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(edges("gateway>auth-svc"), l.serviceEdges().keySet());
        assertEquals(edges("gateway GET /auth>auth-svc /auth.v1.Auth/Check"), l.interfaceEdges().keySet());
    }

    @Test
    void parentCycleIsBrokenNotFollowed() {
        ParsedTraces p = TraceDocuments.parse("c", Corpus.bytes("traces/jaeger/parent-cycle.legacy.json"));
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(Map.of("parent cycle broken", 1), l.repairedByReason());
        assertTrue(l.interfaceEdges().isEmpty(), "both spans collapse onto the root's interface");
        assertEquals(Set.of("serviceName someOperationName"), l.interfaceEntries());
    }

    @Test
    void orphansAndMultipleRootsAreEntries() {
        ExtractedLinks l = links("traces/jaeger/multiple-orphans.legacy.json", TraceFormat.JAEGER_JSON, 5);
        assertEquals(Set.of("serviceName rootOperation", "serviceName orphanOp1", "serviceName orphanOp2"),
                l.interfaceEntries());
        ExtractedLinks roots = links("traces/jaeger/multiple-roots.legacy.json", TraceFormat.JAEGER_JSON, 2);
        assertEquals(2, roots.interfaceEntries().size());
    }

    /** skew.json has a child that starts before its parent: edges come from ids only. */
    @Test
    void clockSkewDoesNotMatter() {
        ExtractedLinks l = links("traces/zipkin/skew.json", TraceFormat.ZIPKIN_V2_JSON, 4);
        assertEquals(edges("servicea>serviceb"), l.serviceEdges().keySet());
        assertEquals(edges("servicea get>serviceb post"), l.interfaceEdges().keySet());
    }

    /** The Alibaba files: columns by header (the two "first_row" files carry each other's header). */
    @Test
    void alibabaCallGraph() {
        ExtractedLinks l = links("traces/alibaba/SYNTHETIC_v2022_callgraph_example.csv",
                TraceFormat.ALIBABA_CALLGRAPH_CSV, 9);
        assertEquals(edges("MS_A>MS_B", "MS_A>MS_C", "MS_B>MC_1", "MS_B>DB_1"), l.serviceEdges().keySet());
        assertEquals(Set.of("MS_A entry-if"), l.interfaceEntries());
        ParsedTraces p = TraceDocuments.parse("s", Corpus.bytes("traces/alibaba/SYNTHETIC_v2022_callgraph_example.csv"));
        assertEquals(Map.of("duplicate span id", 1, "unknown downstream microservice", 1), p.skippedByReason());
    }

    @Test
    void dependencyListGivesServiceEdges() {
        ExtractedLinks l = links("traces/jaeger/jaegerui-dependencies-small.json", TraceFormat.DEPENDENCY_LINKS, 0);
        assertEquals(7, l.serviceEdges().size());
        assertEquals(129216, l.serviceEdges().get(new Edge("Service2", "Service4")).calls());
    }

    @Test
    void malformedJsonIsRejectedWithPosition() {
        byte[] bad = "[\n  {\"traceId\": \"a\", \"id\": \"b\",,}\n]".getBytes(StandardCharsets.UTF_8);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceDocuments.parse("bad.json", bad));
        assertEquals("bad.json", e.fileName());
        assertEquals(2, e.line());
        assertEquals(30, e.column()); // the second comma
        assertEquals("bad.json:2:30: not valid JSON (unexpected character ',')", e.getMessage(), "plain words, not the parser's");
        assertThrows(TraceFormatException.class, () -> TraceDocuments.parse("x", "{\"hello\":1}".getBytes()));
        assertThrows(TraceFormatException.class, () -> TraceDocuments.parse("x", "hello".getBytes()));
        assertThrows(TraceFormatException.class, () -> TraceDocuments.parse("x", "  ".getBytes()));
    }

    /**
     * Spans without an id are skipped (nothing can join them), a repeated id is skipped as a
     * duplicate, and a span without a service name is kept under {@code unknown_service} and
     * counted as a repair (skipping it would drop its edges).
     */
    @Test
    void badSpansAreSkippedAndCounted() {
        String doc = """
                [{"traceId":"ab","id":"01","kind":"SERVER","localEndpoint":{"serviceName":"a"}},
                 {"traceId":"ab","kind":"CLIENT","localEndpoint":{"serviceName":"a"}},
                 {"id":"03","localEndpoint":{"serviceName":"a"}},
                 {"traceId":"ab","id":"04","parentId":"01"},
                 {"traceId":"AB","id":"01","kind":"SERVER","localEndpoint":{"serviceName":"a"}}]""";
        ParsedTraces p = TraceDocuments.parse("z", doc.getBytes(StandardCharsets.UTF_8));
        assertEquals(2, p.spans().size());
        assertEquals(Map.of("missing span id", 1, "missing trace id", 1, "duplicate span id", 1), p.skippedByReason());
        assertEquals(Map.of("missing service name", 1), p.repairedByReason());
        assertEquals("000000000000000000000000000000ab", p.spans().get(0).traceId());
        assertEquals("0000000000000001", p.spans().get(0).spanId());
        assertEquals(Span.UNKNOWN_SERVICE, p.spans().get(1).service());
        assertEquals("0000000000000001", p.spans().get(1).parentSpanId());
    }

    /**
     * Bug 22 (opentelemetry-swift #537): an OTLP/JSON exporter wrote its ids as base64 of the hex
     * text. The index's expected behaviour: reject the payload with an error that names the field,
     * ingest 0 spans, do not guess ids. The value is on line 14, column 26 of the file (14 spaces,
     * then {@code "traceId": }).
     */
    @Test
    void bug22Base64IdsRejectThePayloadNamingTheField() {
        byte[] bytes = Corpus.bytes("bugs/22-otlp-base64-ids.json");
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> TraceDocuments.parse("22-otlp-base64-ids.json", bytes));
        assertEquals("22-otlp-base64-ids.json", e.fileName());
        assertEquals(14, e.line());
        assertEquals(26, e.column());
        assertTrue(e.reason().startsWith("resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex characters, "
                + "got 44-character base64 value \"YzRlMWEwN2I5M2QyNWY2OGUwYjdhNGM5MWQzZjJlODU=\""), e.reason());
        assertTrue(e.reason().contains("not base64"), e.reason());
    }

    /**
     * Bug 22's control, from the index: the same file with trace id c4e1a07b93d25f68e0b7a4c91d3f2e85
     * and span ids 7d2e9a4b1c6f0e38 / 19b5c0d4e6a27f31 gives 1 trace and 2 spans, the child parented
     * to the root. By hand: the child is a CLIENT of checkout with peer.service inventory and no
     * child of its own, so checkout→inventory, from checkout's entry op POST /orders.
     */
    @Test
    void bug22ControlWithHexIdsGivesOneTraceOfTwoSpans() {
        ParsedTraces p = TraceDocuments.parse("22-control", bug22Control());
        assertEquals(2, p.spans().size());
        assertEquals(Set.of("c4e1a07b93d25f68e0b7a4c91d3f2e85"),
                p.spans().stream().map(Span::traceId).collect(Collectors.toSet()));
        assertEquals("7d2e9a4b1c6f0e38", p.spans().get(0).spanId());
        assertEquals("", p.spans().get(0).parentSpanId());
        assertEquals("19b5c0d4e6a27f31", p.spans().get(1).spanId());
        assertEquals("7d2e9a4b1c6f0e38", p.spans().get(1).parentSpanId(), "child parented to root");
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(edges("checkout>inventory"), l.serviceEdges().keySet());
        assertEquals(edges("checkout POST /orders>inventory GET inventory"), l.interfaceEdges().keySet());
        assertEquals(Set.of("checkout POST /orders"), l.interfaceEntries());
    }

    /** The bug 22 file with the hex ids the index gives for its control. */
    static byte[] bug22Control() {
        return new String(Corpus.bytes("bugs/22-otlp-base64-ids.json"), StandardCharsets.UTF_8)
                .replace("YzRlMWEwN2I5M2QyNWY2OGUwYjdhNGM5MWQzZjJlODU=", "c4e1a07b93d25f68e0b7a4c91d3f2e85")
                .replace("N2QyZTlhNGIxYzZmMGUzOA==", "7d2e9a4b1c6f0e38")
                .replace("MTliNWMwZDRlNmEyN2YzMQ==", "19b5c0d4e6a27f31")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** OTLP NDJSON (one ResourceSpans per line, as the OTel agent's logging-otlp exporter writes). */
    @Test
    void otlpLinesAreAccepted() {
        String lines = """
                {"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]},"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"GET /x","kind":2}]}]}
                {"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"b"}}]},"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"00f067aa0ba902b7","parentSpanId":"b7ad6b7169203331","name":"GET /y","kind":"SPAN_KIND_SERVER"}]}]}
                """;
        ParsedTraces p = TraceDocuments.parse("l", lines.getBytes(StandardCharsets.UTF_8));
        ExtractedLinks l = EdgeExtractor.extract(p.spans(), p.dependencies());
        assertEquals(edges("a GET /x>b GET /y"), l.interfaceEdges().keySet());
    }

    /**
     * The Zipkin files of the corpus no other test reads value by value (zipkin-lens testdata). Expected values read
     * from each file by the rules of {@link EdgeExtractor} and the B3 join of the Zipkin reader, and the edge counts of
     * the 175-span file checked with a short script over its JSON that applies the same rules, apart from Richter's code.
     * <ul>
     *   <li>ascend.json: 8 spans, one 64-bit trace {@code ef86c83c0a05a6d6} (left-padded to 32 digits). Two shared
     *       ids: {@code ecc00062ceef4bf0} (CLIENT mobile-gateway, SERVER content-service) and {@code 52b1ab4956917c39}
     *       (CLIENT mobile-gateway, SERVER auth-service). Each server half becomes {@code <id>:server} under its client,
     *       and the spans whose {@code parentId} is the shared id (content-service's {@code hystrix} and CLIENT
     *       {@code get}, auth-service's {@code extend-token-life}) move under the server half. content-service's CLIENT
     *       {@code get} has no remoteEndpoint and no peer tag: no exit. Edges mobile-gateway→content-service and
     *       mobile-gateway→auth-service, 1 call each; the entry is the root SERVER of mobile-gateway.</li>
     *   <li>envoy.json: 1 SERVER span whose localEndpoint has an IP and no serviceName: kept as
     *       {@code unknown_service}, counted as the repair "missing service name". Its {@code "shared": true} has no
     *       CLIENT half, so its id stays as it is.</li>
     *   <li>messaging.json: 4 spans, 128-bit trace. frontend's PRODUCER {@code publish} (remoteEndpoint rabbitmq) is the
     *       parent of backend's CONSUMER {@code next-message}: frontend→backend, and no frontend→rabbitmq, the consumer
     *       being instrumented.</li>
     *   <li>messaging2.json: 11 spans of an incomplete trace (the parents {@code 0153a596db406c83} and
     *       {@code 0153a596db406111} are not in the file). auth-service's SERVER (marked shared, its client half absent)
     *       is a child of the mobile-gateway root: mobile-gateway→auth-service. transfer-service's PRODUCER
     *       {@code publish} names rabbitmq and has no consumer child: transfer-service→rabbitmq. notification-service's
     *       CONSUMER {@code consume} has no parent in the file: an entry. The orphan CLIENT and kind-less spans of
     *       transfer-service are not entries (Zipkin: a span without kind is local).</li>
     *   <li>smartthings-oauth-authorization.json: 175 spans, one 64-bit trace. bouncer's CLIENT
     *       {@code send iot-events360} shares its id {@code 9d2d35b746db84f3} with five SERVER {@code receive} spans of
     *       pusher: the first is the server half, the other four are skipped as "duplicate span id", so 171 spans. The
     *       50 Cassandra CLIENT spans of auth name auth itself as remoteEndpoint: no edge. 9 service edges; the entry is
     *       the root SERVER {@code get /oauth/authorize} of datamgmt.</li>
     * </ul>
     */
    @Test
    void theOtherZipkinCorpusFiles() {
        ParsedTraces ascend = TraceDocuments.parse("ascend", Corpus.bytes("traces/zipkin/ascend.json"));
        assertEquals(Set.of("0000000000000000ef86c83c0a05a6d6"), ascend.spans().stream().map(Span::traceId).collect(Collectors.toSet()));
        Map<String, Span> byId = ascend.spans().stream().collect(Collectors.toMap(Span::spanId, s -> s));
        assertEquals("ecc00062ceef4bf0", byId.get("ecc00062ceef4bf0:server").parentSpanId());
        assertEquals(SpanKind.SERVER, byId.get("ecc00062ceef4bf0:server").kind());
        assertEquals("content-service", byId.get("ecc00062ceef4bf0:server").service());
        assertEquals("ecc00062ceef4bf0:server", byId.get("e6422f7ff7d78099").parentSpanId(), "hystrix under the server half");
        assertEquals("52b1ab4956917c39:server", byId.get("80c0d1d62f437a1b").parentSpanId());
        assertEquals("", byId.get("c21c6c51ac71b3ba").peerService());
        assertEquals(1_531_282_088_552_037_000L, byId.get("ecc00062ceef4bf0:server").startEpochNanos());
        assertEquals(15_888_000L, byId.get("ecc00062ceef4bf0:server").durationNanos());
        ExtractedLinks a = links("traces/zipkin/ascend.json", TraceFormat.ZIPKIN_V2_JSON, 8);
        assertEquals(Map.of("mobile-gateway>content-service", 1L, "mobile-gateway>auth-service", 1L), calls(a));
        assertEquals(Set.of("mobile-gateway get"), a.interfaceEntries());
        assertEquals(Map.of(), ascend.skippedByReason());

        ParsedTraces envoy = TraceDocuments.parse("envoy", Corpus.bytes("traces/zipkin/envoy.json"));
        assertEquals(Map.of("missing service name", 1), envoy.repairedByReason());
        Span proxy = envoy.spans().get(0);
        assertEquals(List.of(Span.UNKNOWN_SERVICE, "978883983d506fa5", "", SpanKind.SERVER, "localhost:10000"),
                List.of(proxy.service(), proxy.spanId(), proxy.parentSpanId(), proxy.kind(), proxy.operation()));
        ExtractedLinks e = links("traces/zipkin/envoy.json", TraceFormat.ZIPKIN_V2_JSON, 1);
        assertEquals(Map.of(), calls(e));
        assertEquals(Set.of(Span.UNKNOWN_SERVICE), e.serviceEntries());

        ExtractedLinks m = links("traces/zipkin/messaging.json", TraceFormat.ZIPKIN_V2_JSON, 4);
        assertEquals(Map.of("frontend>backend", 1L), calls(m));
        assertEquals(edges("frontend get />backend next-message"), m.interfaceEdges().keySet());
        assertEquals(Set.of("frontend"), m.serviceEntries());

        ExtractedLinks m2 = links("traces/zipkin/messaging2.json", TraceFormat.ZIPKIN_V2_JSON, 11);
        assertEquals(Map.of("mobile-gateway>auth-service", 1L, "transfer-service>rabbitmq", 1L), calls(m2));
        assertEquals(Set.of("mobile-gateway", "notification-service"), m2.serviceEntries());

        ParsedTraces st = TraceDocuments.parse("smartthings", Corpus.bytes("traces/zipkin/smartthings-oauth-authorization.json"));
        assertEquals(Map.of("duplicate span id", 4), st.skippedByReason());
        assertEquals(Set.of("0000000000000000" + "8ce82b2e9ed820ba"), st.spans().stream().map(Span::traceId).collect(Collectors.toSet()));
        ExtractedLinks s = links("traces/zipkin/smartthings-oauth-authorization.json", TraceFormat.ZIPKIN_V2_JSON, 171);
        assertEquals(Map.of("datamgmt>auth", 20L, "datamgmt>account", 5L, "datamgmt>stlogin", 2L, "datamgmt>bouncer", 1L,
                "stlogin>auth", 2L, "stlogin>datamgmt", 2L, "bouncer>pusher", 1L, "pusher>dove", 1L, "pusher>paperboy", 1L), calls(s));
        assertEquals(Set.of("datamgmt get /oauth/authorize"), s.interfaceEntries());
    }

    /**
     * The X-Ray files of the corpus no other test reads (opentelemetry-collector-contrib {@code internal/aws/xray/testdata}).
     * <ul>
     *   <li>segmentWithParentId.txt: one segment with a {@code parent_id} (its caller is not in the file), no
     *       {@code end_time} and no {@code in_progress}. X-Ray requires one of the two ("Segment documents", required
     *       fields), so the segment is skipped and counted as "xray segment without a numeric start_time or end_time".
     *       The same segment marked {@code "in_progress": true} is a SERVER span of service and operation
     *       {@code segment}; the trace id {@code 1-5f187253-6a106696d56b1f4ef9eba2ed} becomes
     *       {@code 5f1872536a106696d56b1f4ef9eba2ed}; the parent is kept; start 1595437651.680097 s, duration 0. Its
     *       parent not being in the file, it is an entry.</li>
     *   <li>indepSubsegment.txt: an independent subsegment ({@code "type": "subsegment"}) whose parent
     *       {@code defdfd9912dc5a56} is not in the file: skipped as "xray subsegment without its segment", no span.
     *       Followed in one document by a segment with that id (the segment may come after, as the daemon sends
     *       documents one at a time), it is a CLIENT span of that segment's service: namespace {@code remote}, so its
     *       peer is its name {@code api.example.com} and its operation its HTTP method {@code POST}; 0.178 s long.</li>
     * </ul>
     */
    @Test
    void theOtherXRayCorpusFiles() {
        byte[] withParentBytes = Corpus.bytes("traces/xray/segmentWithParentId.txt");
        ParsedTraces noEnd = TraceDocuments.parse("segmentWithParentId.txt", withParentBytes);
        assertEquals(TraceFormat.XRAY_SEGMENTS, noEnd.format());
        assertEquals(List.of(), noEnd.spans());
        assertEquals(Map.of("xray segment without a numeric start_time or end_time", 1), noEnd.skippedByReason());
        String inProgress = new String(withParentBytes, StandardCharsets.UTF_8).replaceFirst("\\{", "{\"in_progress\": true,");
        ParsedTraces withParent = TraceDocuments.parse("in progress", inProgress.getBytes(StandardCharsets.UTF_8));
        assertEquals(Map.of(), withParent.skippedByReason());
        assertEquals(1, withParent.spans().size());
        Span segment = withParent.spans().get(0);
        assertEquals(List.of("5f1872536a106696d56b1f4ef9eba2ed", "5cc4a447f5d4d696", "bda182a644eee9b3", SpanKind.SERVER, "segment", "segment"),
                List.of(segment.traceId(), segment.spanId(), segment.parentSpanId(), segment.kind(), segment.service(), segment.operation()));
        assertEquals(1_595_437_651_680_097_000L, segment.startEpochNanos());
        assertEquals(0L, segment.durationNanos(), "in progress, no end_time");
        assertEquals(Set.of("segment"), EdgeExtractor.extract(withParent.spans(), withParent.dependencies()).serviceEntries());

        byte[] alone = Corpus.bytes("traces/xray/indepSubsegment.txt");
        ParsedTraces orphan = TraceDocuments.parse("indepSubsegment.txt", alone);
        assertEquals(TraceFormat.XRAY_SEGMENTS, orphan.format());
        assertEquals(List.of(), orphan.spans());
        assertEquals(Map.of("xray subsegment without its segment", 1), orphan.skippedByReason());

        String gateway = "\n{\"trace_id\": \"1-581cf771-a006649127e371903a2de979\", \"id\": \"defdfd9912dc5a56\", \"name\": \"gateway\","
                + " \"start_time\": 1478293361.2, \"end_time\": 1478293361.5}\n";
        ParsedTraces joined = TraceDocuments.parse("joined", (new String(alone, StandardCharsets.UTF_8) + gateway).getBytes(StandardCharsets.UTF_8));
        assertEquals(Map.of(), joined.skippedByReason());
        Span call = joined.spans().stream().filter(x -> x.spanId().equals("53995c3f42cd8ad8")).findFirst().orElseThrow();
        assertEquals(List.of("581cf771a006649127e371903a2de979", "defdfd9912dc5a56", SpanKind.CLIENT, "gateway", "api.example.com", "POST"),
                List.of(call.traceId(), call.parentSpanId(), call.kind(), call.service(), call.peerService(), call.operation()));
        assertEquals(1_478_293_361_271_000_000L, call.startEpochNanos());
        assertEquals(178_000_000L, call.durationNanos());
        assertEquals("https://api.example.com/health", call.attributes().get("url.full"));
        assertEquals("200", call.attributes().get("http.response.status_code"));
        assertEquals(Map.of("gateway>api.example.com", 1L), calls(EdgeExtractor.extract(joined.spans(), joined.dependencies())));
    }

    /** Service edges as {@code from>to} → calls. */
    private static Map<String, Long> calls(ExtractedLinks l) {
        Map<String, Long> out = new TreeMap<>();
        l.serviceEdges().forEach((edge, stats) -> out.put(edge.from() + ">" + edge.to(), stats.calls()));
        return out;
    }

    private static ExtractedLinks links(String file, TraceFormat format, int spans) {
        ParsedTraces p = TraceDocuments.parse(file, Corpus.bytes(file));
        assertEquals(format, p.format());
        assertEquals(spans, p.spans().size());
        return EdgeExtractor.extract(p.spans(), p.dependencies());
    }

    private static Set<Edge> edges(String... fromTo) {
        return Stream.of(fromTo).map(s -> new Edge(s.substring(0, s.indexOf('>')), s.substring(s.indexOf('>') + 1)))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
