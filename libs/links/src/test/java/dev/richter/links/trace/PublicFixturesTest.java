package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.ExtractedLinks;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The public fixture sets of the projects whose formats Richter reads (issue 43), run through
 * {@link TraceDocuments#parse}: the OpenTelemetry collector's X-Ray segment documents, Jaeger's and jaeger-ui's
 * trace JSON, Zipkin's test data. Provenance of every file: {@code src/test/resources/public-fixtures/README.md}.
 *
 * <p>The expected spans are not taken from the reader: each test walks the file with Jackson and derives them by
 * the rules {@code docs/formats.md} states for the format (X-Ray: a segment is a SERVER span, each subsegment a span
 * under its enclosing (sub)segment, CLIENT when its namespace is {@code aws} or {@code remote}, skipped without its
 * required times; Jaeger: the first CHILD_OF reference into the span's own trace is the parent, the service is the
 * span's process; Zipkin: hex ids left-padded, the SERVER half of a shared id under its CLIENT, the parts of one id
 * merged into its halves). Where a file showed the reader departing from what the project that wrote the file does, a
 * test states the finding and the behaviour wanted; the four findings of the first run (a Jaeger parent in another
 * trace, an X-Ray segment without {@code start_time}, X-Ray times past 2262, a Zipkin fragment taking its CLIENT's id)
 * are fixed for their kind, each with its own tests ({@code JaegerParentTest}, {@code SpanTimesTest},
 * {@code ZipkinSpanPartsTest}).
 */
class PublicFixturesTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final Path ROOT = root();
    private static final String ORPHAN = "xray subsegment without its segment";
    private static final String DUPLICATE = "duplicate span id";
    private static final String NO_SERVICE = "missing service name";
    private static final String SELF_PARENT = "self-referencing parent ignored";
    private static final String NO_TIMES = "xray segment without a numeric start_time or end_time";
    private static final String OUT_OF_RANGE = "time out of range";
    private static final String MERGED = "span part merged";
    /** One microsecond: X-Ray writes seconds with a decimal fraction, rounded to the µs on both sides. */
    private static final long MICROSECOND = 1_000;
    /** The last epoch second whose nanoseconds a {@code long} holds (2262-04-11). */
    private static final BigDecimal LAST_NANOSECOND_SECOND = BigDecimal.valueOf(Long.MAX_VALUE).movePointLeft(9);

    /**
     * The X-Ray files the collector's own tests expect an error for ({@code translator_test.go},
     * {@code tracesegment_test.go}), with that error. Richter rejects none of them: see {@link #xrayFilesTheCollectorRejects}.
     */
    private static final Map<String, String> COLLECTOR_REJECTS = Map.of(
            "xray/invalidNamespace.txt", "unexpected namespace: invalidNs",
            "xray/indepSubsegmentWithInvalidSqlUrl.txt", "failed to parse out the database name in the \"sql.url\" field",
            "xray/minCauseIsInvalid.txt", "the value assigned to the `cause` field does not appear to be a string",
            "xray/segmentValidationFailed.txt", "segment \"start_time\" can not be nil");

    /** Files {@link TraceDocuments} rejects as a whole: one Zipkin span object is no {@code ListOfSpans}. */
    private static final Set<String> REJECTED = Set.of(
            "zipkin/benchmarks/zipkin2-chinese.json", "zipkin/benchmarks/zipkin2-client.json");

    private static Path root() {
        try {
            return Path.of(PublicFixturesTest.class.getResource("/public-fixtures/README.md").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- every file, and the summary ----

    /**
     * Every file of the fixture sets is named in the README (so its provenance is written down) and is run: it is read,
     * or it is one of {@link #REJECTED} and rejected with a {@link TraceFormatException} that has a position. Prints
     * {@code public fixtures: xray <read>/<files> jaeger <read>/<files> zipkin <read>/<files>}.
     */
    @Test
    void everyPublicFixtureIsListedAndRun() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Set<String> listed = new HashSet<>();
        Matcher m = Pattern.compile("^\\| `([^`]+)` \\|", Pattern.MULTILINE).matcher(readme);
        while (m.find()) {
            listed.add(m.group(1));
        }
        Map<String, int[]> perProject = new LinkedHashMap<>();
        for (String project : List.of("xray", "jaeger", "zipkin")) {
            perProject.put(project, new int[2]);
        }
        Map<String, Integer> spans = new TreeMap<>();
        List<String> all = allFiles().toList();
        for (String file : all) {
            String project = file.startsWith("jaeger") ? "jaeger" : file.substring(0, file.indexOf('/'));
            String inDir = file.substring(file.indexOf('/') + 1);
            assertTrue(listed.contains(inDir), file + " is not listed in public-fixtures/README.md");
            int[] counts = perProject.get(project);
            counts[1]++;
            try {
                ParsedTraces p = parse(file);
                assertFalse(REJECTED.contains(file), file + " was expected to be rejected");
                counts[0]++;
                spans.merge(project, p.spans().size(), Integer::sum);
            } catch (TraceFormatException e) {
                assertTrue(REJECTED.contains(file), file + " rejected: " + e.getMessage());
                assertTrue(e.line() > 0 && e.column() > 0, e.getMessage());
            }
        }
        assertEquals(listed.size(), all.size(), "the README lists a file that is not there");
        assertEquals(68, all.size());
        String summary = perProject.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()[0] + "/" + e.getValue()[1])
                .collect(Collectors.joining(" ", "public fixtures: ", ""));
        System.out.println(summary + " (files read/run; spans " + spans + "; rejected as documented: " + REJECTED.size()
                + " single Zipkin span objects)");
        assertEquals("public fixtures: xray 16/16 jaeger 40/40 zipkin 10/12", summary);
    }

    // ---- AWS X-Ray: opentelemetry-collector-contrib internal/aws/xray/testdata ----

    static Stream<String> xrayFiles() {
        return files("xray");
    }

    /**
     * Walked with Jackson: every segment is a SERVER span of service and operation {@code name}; every subsegment, at
     * any depth, a span of that service whose parent is its enclosing (sub)segment, CLIENT with the subsegment name as
     * peer when its namespace is {@code aws} or {@code remote} (operation: {@code aws.operation}, else the HTTP method,
     * else the name), else INTERNAL under its name. The daemon's {@code {"format":"json","version":1}} header line is no
     * segment. An independent subsegment ({@code "type":"subsegment"}) whose segment is not in the file is skipped as
     * {@value #ORPHAN}. A (sub)segment without a numeric {@code start_time}, or without a numeric {@code end_time} while
     * not {@code in_progress}, is skipped as {@value #NO_TIMES} (segmentValidationFailed.txt, segmentWithParentId.txt),
     * one with a time past a {@code long} of nanoseconds as {@value #OUT_OF_RANGE}; what is under it is still read. So
     * spans + skipped = segments + subsegments of the file. Times: epoch seconds to ns, to the µs.
     */
    @ParameterizedTest
    @MethodSource("xrayFiles")
    void xraySegmentsAndSubsegmentsAreSpans(String file) {
        List<JsonNode> docs = values(file).stream().filter(v -> !isDaemonHeader(v)).toList();
        List<XRayExpected> walked = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Map<String, Integer> skipped = new TreeMap<>();
        for (JsonNode doc : docs) {
            ids.add(doc.path("id").asText());
            if ("subsegment".equals(doc.path("type").asText())) {
                skipped.merge(ORPHAN, 1, Integer::sum);
                continue;
            }
            String traceId = xrayTraceId(doc.path("trace_id").asText());
            String service = doc.path("name").asText();
            String sdk = doc.path("aws").path("xray").path("sdk").asText("");
            walked.add(new XRayExpected(traceId, doc.path("id").asText(), doc.path("parent_id").asText(""), service,
                    service, SpanKind.SERVER, "", sdk, doc));
            subsegments(doc, traceId, doc.path("id").asText(), service, sdk, walked);
        }
        for (JsonNode doc : docs) {
            if ("subsegment".equals(doc.path("type").asText())) {
                assertFalse(ids.contains(doc.path("parent_id").asText()), "an orphan's segment is not in " + file);
            }
        }
        List<XRayExpected> expected = new ArrayList<>();
        for (XRayExpected x : walked) {
            String reason = xrayTimesSkipReason(x.doc());
            if (reason.isEmpty()) {
                expected.add(x);
            } else {
                skipped.merge(reason, 1, Integer::sum);
            }
        }
        ParsedTraces p = parse(file);
        assertEquals(TraceFormat.XRAY_SEGMENTS, p.format());
        assertEquals(skipped, p.skippedByReason(), file);
        assertEquals(Map.of(), p.repairedByReason(), file);
        assertEquals(walked.size() + skipped.getOrDefault(ORPHAN, 0), p.spans().size() + p.spansSkipped(),
                "segments + subsegments of " + file);
        assertEquals(expected.stream().map(XRayExpected::fields).toList(),
                p.spans().stream().map(s -> List.<Object>of(s.traceId(), s.spanId(), s.parentSpanId(), s.service(),
                        s.operation(), s.kind(), s.peerService())).toList(), file);
        for (int i = 0; i < expected.size(); i++) {
            JsonNode doc = expected.get(i).doc();
            Span s = p.spans().get(i);
            long start = epochNanos(doc.get("start_time"));
            assertEquals(start, s.startEpochNanos(), MICROSECOND, file + " " + s.spanId());
            long duration = doc.path("end_time").isNumber() ? Math.max(0, epochNanos(doc.get("end_time")) - start) : 0;
            assertEquals(duration, s.durationNanos(), 2 * MICROSECOND, file + " " + s.spanId());
            assertEquals(expected.get(i).sdk(), s.scope().name(), "the segment's SDK, " + file);
        }
    }

    /**
     * Why a (sub)segment is skipped for its times, by X-Ray's required fields ("Segment documents": {@code start_time},
     * and {@code end_time} unless {@code in_progress}) and a {@code long} of nanoseconds; "" when it is read.
     */
    private static String xrayTimesSkipReason(JsonNode doc) {
        JsonNode start = doc.path("start_time");
        JsonNode end = doc.path("end_time");
        if (!start.isNumber() || !(end.isNumber() || doc.path("in_progress").asBoolean(false))) {
            return NO_TIMES;
        }
        try {
            epochNanos(start);
            if (end.isNumber()) {
                epochNanos(end);
            }
            return "";
        } catch (ArithmeticException e) {
            return OUT_OF_RANGE;
        }
    }

    static Stream<String> xrayIndependentSubsegments() {
        return xrayFiles().filter(f -> "subsegment".equals(values(f).get(0).path("type").asText()));
    }

    /**
     * Each independent subsegment of the set, followed in one document by a segment with its {@code parent_id}: it is
     * then a span of that segment's service under that segment, CLIENT (peer its name) for namespace {@code remote},
     * INTERNAL for {@code local} or none. Nothing is skipped, but the subsegment whose times are past 2262
     * ({@link #xrayTimesPastTheYear2262AreRejectedOrSkipped}).
     */
    @ParameterizedTest
    @MethodSource("xrayIndependentSubsegments")
    void xrayIndependentSubsegmentJoinsItsSegment(String file) throws IOException {
        JsonNode sub = values(file).get(0);
        ParsedTraces p = joined(file, sub);
        if (sub.get("start_time").decimalValue().compareTo(LAST_NANOSECOND_SECOND) > 0) {
            assertEquals(Map.of(OUT_OF_RANGE, 1), p.skippedByReason(), file);
            assertEquals(List.of("gateway"), p.spans().stream().map(Span::service).toList());
            return; // indepSubsegmentWithContentLengthString.txt
        }
        assertEquals(Map.of(), p.skippedByReason());
        assertEquals(2, p.spans().size());
        Span s = p.spans().stream().filter(x -> x.spanId().equals(sub.path("id").asText())).findFirst().orElseThrow();
        boolean remote = List.of("aws", "remote").contains(sub.path("namespace").asText());
        String operation = remote && sub.path("http").path("request").has("method")
                ? sub.path("http").path("request").path("method").asText() : sub.path("name").asText();
        assertEquals(List.of(xrayTraceId(sub.path("trace_id").asText()), sub.path("parent_id").asText(), "gateway",
                        remote ? SpanKind.CLIENT : SpanKind.INTERNAL, remote ? sub.path("name").asText() : "", operation),
                List.of(s.traceId(), s.parentSpanId(), s.service(), s.kind(), s.peerService(), s.operation()), file);
        long start = epochNanos(sub.get("start_time"));
        assertEquals(start, s.startEpochNanos(), MICROSECOND);
        assertEquals(epochNanos(sub.get("end_time")) - start, s.durationNanos(), 2 * MICROSECOND);
    }

    /**
     * indepSubsegmentWithContentLengthString.txt has {@code start_time} 14782323361.271 and {@code end_time}
     * 14789232374.449 (the year 2438; an extra digit, the other files have 1478293361.271), past what a {@code long} of
     * nanoseconds holds (2262-04-11). The collector reads them (as unsigned nanoseconds). Richter's
     * {@code Math.round(seconds * 1e6) * 1000} overflowed without a word: the start became -3,664,420,712,438,551,616 ns
     * (the year 1853). Now the subsegment is skipped and counted as {@value #OUT_OF_RANGE}, and its segment is read; the
     * kind, a time outside a {@code long} of epoch nanoseconds in any reader: {@code SpanTimesTest}.
     */
    @Test
    void xrayTimesPastTheYear2262AreRejectedOrSkipped() throws IOException {
        String file = "xray/indepSubsegmentWithContentLengthString.txt";
        JsonNode sub = values(file).get(0);
        assertTrue(sub.get("start_time").decimalValue().movePointRight(9).compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0);
        assertThrows(ArithmeticException.class, () -> epochNanos(sub.get("start_time")));
        ParsedTraces p = joined(file, sub);
        assertTrue(p.spans().stream().noneMatch(s -> s.spanId().equals("53995c3f42cd8ad8")), "not read as a span");
        assertEquals(Map.of(OUT_OF_RANGE, 1), p.skippedByReason());
        assertEquals(1, p.spansSkipped());
        assertEquals(List.of(sub.path("parent_id").asText()), p.spans().stream().map(Span::spanId).toList(), "the segment is read");
    }

    /**
     * The X-Ray daemon's header line {@code {"format": "json", "version": 1}} (serverSample.txt, invalidNamespace.txt)
     * is skipped: the file reads as the same segment without it.
     */
    @Test
    void xrayDaemonHeaderLineIsSkipped() {
        for (String file : List.of("xray/serverSample.txt", "xray/invalidNamespace.txt")) {
            String text = new String(bytes(file), StandardCharsets.UTF_8);
            assertTrue(text.startsWith("{\"format\": \"json\", \"version\": 1}\n"), file);
            String body = text.substring(text.indexOf('\n') + 1);
            assertEquals(TraceDocuments.parse("body", body.getBytes(StandardCharsets.UTF_8)).spans(), parse(file).spans(), file);
        }
        Span server = parse("xray/serverSample.txt").spans().get(0);
        assertEquals(List.of("5f2aebccb475d14618c51eaa28753d37", "bda182a644eee9b3", "", "SampleServer", SpanKind.SERVER,
                        "GET", "http://localhost:8000/", "200", "X-Ray for Go 1.1.0"),
                List.of(server.traceId(), server.spanId(), server.parentSpanId(), server.service(), server.kind(),
                        server.attributes().get("http.request.method"), server.attributes().get("url.full"),
                        server.attributes().get("http.response.status_code"), server.scope().toString()));
    }

    /**
     * The four files the collector's tests expect an error for ({@link #COLLECTOR_REJECTS}). Richter reads the fields it
     * needs, not the whole segment schema, so it rejects none of the four documents; what it makes of each:
     * <ul>
     *   <li>invalidNamespace.txt ({@code "namespace": "invalidNs"} on the DescribeTable call {@code 7318c46a385557f5},
     *       not a namespace X-Ray defines): read as ddbSample.txt is, 18 spans, except that this call is an INTERNAL span,
     *       so DDB→dynamodb has 1 call instead of 2. Finding: an invalid document read as valid; the edge is lost
     *       silently.</li>
     *   <li>minCauseIsInvalid.txt ({@code "cause": 200}): {@code cause} is not read, so the same span as
     *       minCauseIsExceptionId.txt. Finding: read as valid; harmless, the field is not used.</li>
     *   <li>indepSubsegmentWithInvalidSqlUrl.txt (a {@code sql.url} without a database name): skipped as every
     *       independent subsegment without its segment is; {@code sql} is not read. The collector's error is about its
     *       own mapping of {@code sql.url}, not the document.</li>
     *   <li>segmentValidationFailed.txt (no {@code start_time}, which X-Ray requires): the segment is skipped and counted
     *       as {@value #NO_TIMES}; it was read as a span starting at the epoch that lasted until its {@code end_time},
     *       1,596,648,396.64 s (50.6 years): {@link #xraySegmentWithoutStartTimeIsRejectedOrSkipped}.</li>
     * </ul>
     */
    @Test
    void xrayFilesTheCollectorRejects() {
        COLLECTOR_REJECTS.forEach((file, collectorError) ->
                assertEquals(TraceFormat.XRAY_SEGMENTS, parse(file).format(), file + ", which the collector rejects: " + collectorError));
        ParsedTraces ddb = parse("xray/ddbSample.txt");
        ParsedTraces invalid = parse("xray/invalidNamespace.txt");
        assertEquals(18, invalid.spans().size());
        for (int i = 0; i < 18; i++) {
            Span a = ddb.spans().get(i);
            Span b = invalid.spans().get(i);
            assertEquals(List.of(a.traceId(), a.spanId(), a.parentSpanId(), a.service()),
                    List.of(b.traceId(), b.spanId(), b.parentSpanId(), b.service()));
        }
        Span describe = span(invalid, "7318c46a385557f5");
        assertEquals(List.of(SpanKind.INTERNAL, "", "dynamodb", "invalidNs"),
                List.of(describe.kind(), describe.peerService(), describe.operation(), describe.attributes().get("xray.namespace")));
        assertEquals(SpanKind.CLIENT, span(ddb, "7318c46a385557f5").kind());
        assertEquals(Map.of("DDB>dynamodb", 2L), calls(ddb));
        assertEquals(Map.of("DDB>dynamodb", 1L), calls(invalid), "only PutItem is left a call");

        ParsedTraces cause = parse("xray/minCauseIsInvalid.txt");
        assertEquals(parse("xray/minCauseIsExceptionId.txt").spans(), cause.spans());
        assertEquals("true", cause.spans().get(0).attributes().get("xray.fault"));

        ParsedTraces sql = parse("xray/indepSubsegmentWithInvalidSqlUrl.txt");
        assertEquals(List.of(), sql.spans());
        assertEquals(Map.of(ORPHAN, 1), sql.skippedByReason());

        assertEquals(Map.of(NO_TIMES, 1), parse("xray/segmentValidationFailed.txt").skippedByReason());
    }

    /**
     * segmentValidationFailed.txt: a segment without {@code start_time} (X-Ray requires it; the collector rejects the
     * file: segment "start_time" can not be nil) is skipped and counted as {@value #NO_TIMES}, as the readers skip every
     * span they cannot place, never read as starting in 1970; the document is not rejected. The same file with a
     * {@code start_time} reads as its segment. The kind, every (sub)segment without its required times:
     * {@code SpanTimesTest}.
     */
    @Test
    void xraySegmentWithoutStartTimeIsRejectedOrSkipped() {
        ParsedTraces p = parse("xray/segmentValidationFailed.txt");
        assertEquals(TraceFormat.XRAY_SEGMENTS, p.format());
        assertEquals(List.of(), p.spans());
        assertEquals(Map.of(NO_TIMES, 1), p.skippedByReason());
        String withStart = new String(bytes("xray/segmentValidationFailed.txt"), StandardCharsets.UTF_8)
                .replaceFirst("\\{", "{\"start_time\": 1596648396.5, ");
        Span s = TraceDocuments.parse("with start", withStart.getBytes(StandardCharsets.UTF_8)).spans().get(0);
        assertEquals(List.of("bda182a644eee9b3", 1_596_648_396_500_000_000L, 140_139_000L),
                List.of(s.spanId(), s.startEpochNanos(), s.durationNanos()));
    }

    // ---- Jaeger JSON: jaegertracing/jaeger and jaegertracing/jaeger-ui ----

    static Stream<String> jaegerTraceFiles() {
        return files("jaeger", "jaeger-ui").filter(f -> {
            JsonNode v = values(f).get(0);
            return v.isObject() && (v.path("data").isArray() || v.has("spans"));
        });
    }

    /**
     * Walked with Jackson: every span object of every trace ({@code {"data": [trace…]}} or one trace) in document
     * order, ids left-padded to 32/16 hex digits, the service from {@code processes[processID]} (or an embedded
     * {@code process}), the parent the first CHILD_OF reference into the span's own trace that is not the span itself
     * (Jaeger's {@code model.Span.ParentSpanID()}), the other references links (FOLLOWS_FROM, and a reference into
     * another trace: ui_01.json), the kind from the {@code span.kind} tag, {@code startTime} and
     * {@code duration} µs → ns. A span repeating a (trace, span) id is skipped as {@value #DUPLICATE}
     * (ui_01.json and traceWithMultipleSpansWithTheSameValueInDifferentTags.json have one each; otlp2jaeger-out.json
     * repeats its span).
     */
    @ParameterizedTest
    @MethodSource("jaegerTraceFiles")
    void jaegerTracesGiveOneSpanPerSpanObject(String file) {
        JsonNode root = values(file).get(0);
        List<JsonNode> traces = new ArrayList<>();
        (root.path("data").isArray() ? root.get("data") : JSON.createArrayNode().add(root)).forEach(traces::add);
        List<List<Object>> expected = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Map<String, Integer> skipped = new TreeMap<>();
        Map<String, Integer> repaired = new TreeMap<>();
        for (JsonNode trace : traces) {
            Map<String, String> services = new HashMap<>();
            trace.path("processes").properties().forEach(e -> services.put(e.getKey(), e.getValue().path("serviceName").asText("")));
            for (JsonNode s : trace.path("spans")) {
                String traceId = hexId(s.has("traceID") ? s.get("traceID").asText() : trace.path("traceID").asText(), 32);
                String spanId = hexId(s.path("spanID").asText(), 16);
                JsonNode refs = s.path("references");
                int chosen = -1;
                for (int r = 0; r < refs.size() && chosen < 0; r++) {
                    JsonNode ref = refs.get(r);
                    if ("CHILD_OF".equals(ref.path("refType").asText()) && !hexId(ref.path("spanID").asText(), 16).equals(spanId)
                            && hexId(ref.path("traceID").asText(), 32).equals(traceId)) {
                        chosen = r;
                    }
                }
                List<String> links = new ArrayList<>();
                for (int r = 0; r < refs.size(); r++) {
                    String refSpan = hexId(refs.get(r).path("spanID").asText(), 16);
                    if (refSpan.equals(spanId)) {
                        repaired.merge(SELF_PARENT, 1, Integer::sum);
                    } else if (r != chosen) {
                        links.add(hexId(refs.get(r).path("traceID").asText(), 32) + "/" + refSpan);
                    }
                }
                String parent = chosen < 0 ? "" : hexId(refs.get(chosen).path("spanID").asText(), 16);
                String service = s.has("process") ? s.path("process").path("serviceName").asText("")
                        : services.getOrDefault(s.path("processID").asText(), "");
                String kind = "";
                for (JsonNode tag : s.path("tags")) {
                    if (tag.path("key").asText().equals("span.kind")) {
                        kind = tag.path("value").asText();
                    }
                }
                if (!seen.add(traceId + "/" + spanId)) {
                    skipped.merge(DUPLICATE, 1, Integer::sum);
                    continue;
                }
                if (service.isBlank()) {
                    repaired.merge(NO_SERVICE, 1, Integer::sum);
                    service = Span.UNKNOWN_SERVICE;
                }
                expected.add(List.of(traceId, spanId, parent, links, service, s.path("operationName").asText(),
                        kind.toUpperCase(Locale.ROOT), s.path("startTime").asLong(0) * 1000, s.path("duration").asLong(0) * 1000));
            }
        }
        ParsedTraces p = parse(file);
        assertEquals(TraceFormat.JAEGER_JSON, p.format());
        assertEquals(skipped, p.skippedByReason(), file);
        assertEquals(repaired, p.repairedByReason(), file);
        assertEquals(expected, p.spans().stream().map(s -> List.<Object>of(s.traceId(), s.spanId(), s.parentSpanId(),
                s.links().stream().map(l -> l.traceId() + "/" + l.spanId()).toList(), s.service(), s.operation(),
                s.kind() == SpanKind.UNSPECIFIED ? "" : s.kind().name(), s.startEpochNanos(), s.durationNanos())).toList(), file);
    }

    /** jaeger-ui's dependency lists (small.json, large.json with 4,271 links): one link per {@code {parent, child, callCount}}. */
    @Test
    void jaegerDependencyListsGiveTheirLinks() {
        for (String file : List.of("jaeger-ui/DependencyGraph/small.json", "jaeger-ui/DependencyGraph/large.json")) {
            List<DependencyLink> expected = new ArrayList<>();
            for (JsonNode d : values(file).get(0)) {
                expected.add(new DependencyLink(d.path("parent").asText(), d.path("child").asText(), d.path("callCount").asLong()));
            }
            ParsedTraces p = parse(file);
            assertEquals(TraceFormat.DEPENDENCY_LINKS, p.format());
            assertEquals(expected, p.dependencies(), file);
            assertEquals(List.of(), p.spans());
        }
        assertEquals(4271, parse("jaeger-ui/DependencyGraph/large.json").dependencies().size());
    }

    /**
     * Jaeger's and jaeger-ui's own OTLP → Jaeger conversion pairs (the query service's {@code otlp2jaeger} fixtures; the
     * UI's single and multi-span files, the latter also as one OTLP request per line): the OTLP input and the Jaeger
     * output read to the same spans (durations to the µs, Jaeger's unit), and so to the same graph.
     * otlp2jaeger-in-error.json (the UI's "backend transform failed" case) is valid OTLP without {@code service.name}.
     */
    @Test
    void jaegerOtlpPairsGiveTheSameSpans() {
        String[][] pairs = {
            {"jaeger/otlp2jaeger-in.json", "jaeger/otlp2jaeger-out.json"},
            {"jaeger-ui/fixtures/otlp2jaeger-in.json", "jaeger-ui/fixtures/otlp2jaeger-out.json"},
            {"jaeger-ui/fixtures/otlp2jaeger-multi-in-combined.json", "jaeger-ui/fixtures/oltp2jaeger-multi-out.json"},
            {"jaeger-ui/fixtures/otlp2jaeger-multi-in.json.txt", "jaeger-ui/fixtures/oltp2jaeger-multi-out.json"},
        };
        for (String[] pair : pairs) {
            ParsedTraces otlp = parse(pair[0]);
            ParsedTraces jaeger = parse(pair[1]);
            assertEquals(TraceFormat.OTLP_JSON, otlp.format());
            assertEquals(TraceFormat.JAEGER_JSON, jaeger.format());
            assertEquals(otlpSpanObjects(pair[0]), otlp.spans().size() + otlp.spansSkipped(), pair[0]);
            assertEquals(otlp.skippedByReason(), jaeger.skippedByReason(), pair[1]);
            assertEquals(comparable(otlp), comparable(jaeger), pair[0] + " vs " + pair[1]);
            assertEquals(EdgeExtractor.extract(otlp.spans(), otlp.dependencies()).interfaceEntries(),
                    EdgeExtractor.extract(jaeger.spans(), jaeger.dependencies()).interfaceEntries());
        }
        assertEquals(4, parse("jaeger-ui/fixtures/otlp2jaeger-multi-in.json.txt").spans().size());
        ParsedTraces error = parse("jaeger-ui/fixtures/otlp2jaeger-in-error.json");
        assertEquals(Map.of(NO_SERVICE, 1), error.repairedByReason());
        Span s = error.spans().get(0);
        assertEquals(List.of("83a9efd15c1c98a977e0711cc93ee28b", "e127af99e3b3e074", "909541b92cf05311", Span.UNKNOWN_SERVICE,
                        SpanKind.SERVER, 1_706_678_909_209_712_000L, 123_000L),
                List.of(s.traceId(), s.spanId(), s.parentSpanId(), s.service(), s.kind(), s.startEpochNanos(), s.durationNanos()));
    }

    /**
     * ui_01.json (the UI JSON of Jaeger's converter test): span {@code …02} twice (the second skipped as a duplicate),
     * and span {@code …04}, whose first CHILD_OF reference points into another trace ({@code traceID …ff, spanID …ff}),
     * its second CHILD_OF and a FOLLOWS_FROM at span {@code …02} of its own trace. Richter took the first CHILD_OF
     * whatever its trace, so {@code …04} and its child {@code …05} hung under a missing span and service-y's work was an
     * entry instead of a call from service-x. Now the graph is the one the file draws: service-x calls service-y twice
     * ({@code …03}, {@code …04}), and service-x is the only entry. The parent rule itself:
     * {@link #jaegerParentIsAReferenceIntoTheSpansOwnTrace}.
     */
    @Test
    void jaegerUi01CrossTraceReference() {
        ParsedTraces p = parse("jaeger/ui_01.json");
        assertEquals(Map.of(DUPLICATE, 1), p.skippedByReason());
        assertEquals("0000000000000004", span(p, "0000000000000005").parentSpanId());
        assertEquals("0000000000000002", span(p, "0000000000000003").parentSpanId());
        assertEquals(Map.of("service-x>service-y", 2L), calls(p));
        assertEquals(Set.of("service-x"), EdgeExtractor.extract(p.spans(), p.dependencies()).serviceEntries());
    }

    /**
     * ui_01.json span {@code …04}: its parent is the first CHILD_OF reference into its own trace, {@code …02}, as
     * Jaeger's {@code model.Span.ParentSpanID()} and jaeger-ui take it; the reference into trace {@code …ff} and the
     * FOLLOWS_FROM are links. The kind: {@code JaegerParentTest}.
     */
    @Test
    void jaegerParentIsAReferenceIntoTheSpansOwnTrace() {
        ParsedTraces p = parse("jaeger/ui_01.json");
        Span four = span(p, "0000000000000004");
        assertEquals("0000000000000002", four.parentSpanId());
        assertTrue(four.links().contains(new SpanRef("000000000000000000000000000000ff", "00000000000000ff")), four.links()::toString);
        assertEquals(List.of(new SpanRef("000000000000000000000000000000ff", "00000000000000ff"),
                new SpanRef("00000000000000000000000000000001", "0000000000000002")), four.links());
    }

    // ---- Zipkin v2: openzipkin/zipkin ----

    static Stream<String> zipkinSpanLists() {
        return files("zipkin").filter(f -> values(f).get(0).isArray());
    }

    /**
     * Walked with Jackson: every span object in document order, {@code traceId} left-padded to 32 hex digits,
     * {@code id}/{@code parentId} as written (an all-zero {@code parentId} is none), the service its
     * {@code localEndpoint.serviceName} ({@code unknown_service} when there is none), kind INTERNAL when absent, times
     * µs → ns. A SERVER span whose (trace, id) a CLIENT span also has is the server half: id {@code <id>:server} under the
     * CLIENT, and a span whose parent is such an id hangs under the server half. A span without {@code kind} whose id has
     * a span with a kind of the same {@code localEndpoint} is a part of that span (smartthings-mobile-web-install.json's
     * 84 fragments of a server half, which add nothing to it): the span sits where its first part sits. A repeated
     * (trace, span) id is skipped as {@value #DUPLICATE}. A CLIENT or PRODUCER with a {@code remoteEndpoint.serviceName}
     * has it as peer.
     */
    @ParameterizedTest
    @MethodSource("zipkinSpanLists")
    void zipkinSpanListsGiveOneSpanPerSpanObject(String file) {
        List<JsonNode> spans = new ArrayList<>();
        for (JsonNode n : values(file).get(0)) {
            if (n.isArray()) {
                n.forEach(spans::add);
            } else {
                spans.add(n);
            }
        }
        Set<String> clients = new HashSet<>();
        for (JsonNode s : spans) {
            if ("CLIENT".equals(s.path("kind").asText())) {
                clients.add(hexId(s.path("traceId").asText(), 32) + "/" + hexId(s.path("id").asText(), 16));
            }
        }
        Set<String> shared = new HashSet<>();
        for (JsonNode s : spans) {
            String key = hexId(s.path("traceId").asText(), 32) + "/" + hexId(s.path("id").asText(), 16);
            if ("SERVER".equals(s.path("kind").asText()) && clients.contains(key)) {
                shared.add(key);
            }
        }
        Map<String, List<JsonNode>> kinded = new HashMap<>();
        for (JsonNode s : spans) {
            if (s.has("kind")) {
                kinded.computeIfAbsent(hexId(s.path("traceId").asText(), 32) + "/" + hexId(s.path("id").asText(), 16),
                        k -> new ArrayList<>()).add(s);
            }
        }
        List<List<Object>> expected = new ArrayList<>();
        Map<String, String> peers = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        Map<String, Integer> skipped = new TreeMap<>();
        Map<String, Integer> repaired = new TreeMap<>();
        for (JsonNode part : spans) {
            JsonNode s = part;
            if (!part.has("kind")) {
                String key = hexId(part.path("traceId").asText(), 32) + "/" + hexId(part.path("id").asText(), 16);
                JsonNode half = kinded.getOrDefault(key, List.of()).stream()
                        .filter(k -> k.path("localEndpoint").equals(part.path("localEndpoint"))).findFirst().orElse(null);
                if (half != null) {
                    part.properties().forEach(f -> assertEquals(f.getValue(), half.get(f.getKey()),
                            "a fragment of these files adds nothing to its half: " + key + " " + f.getKey()));
                    s = half; // the half sits where its first part sits
                }
            }
            String traceId = hexId(s.path("traceId").asText(), 32);
            String id = hexId(s.path("id").asText(), 16);
            String kind = s.path("kind").asText("INTERNAL");
            String spanId = id;
            String parent = s.path("parentId").asText("").matches("0*") ? "" : hexId(s.path("parentId").asText(), 16);
            if (parent.equals(id)) {
                repaired.merge(SELF_PARENT, 1, Integer::sum);
                parent = "";
            }
            if (kind.equals("SERVER") && shared.contains(traceId + "/" + id)) {
                spanId = id + ":server";
                parent = id;
            } else if (shared.contains(traceId + "/" + parent)) {
                parent = parent + ":server";
            }
            if (!seen.add(traceId + "/" + spanId)) {
                skipped.merge(DUPLICATE, 1, Integer::sum);
                continue;
            }
            String service = s.path("localEndpoint").path("serviceName").asText("");
            if (service.isBlank()) {
                repaired.merge(NO_SERVICE, 1, Integer::sum);
                service = Span.UNKNOWN_SERVICE;
            }
            String remote = s.path("remoteEndpoint").path("serviceName").asText("");
            if ((kind.equals("CLIENT") || kind.equals("PRODUCER")) && !remote.isEmpty()) {
                peers.put(traceId + "/" + spanId, remote);
            }
            expected.add(List.of(traceId, spanId, parent, service, s.path("name").asText(""), kind,
                    s.path("timestamp").asLong(0) * 1000, s.path("duration").asLong(0) * 1000));
        }
        ParsedTraces p = parse(file);
        assertEquals(TraceFormat.ZIPKIN_V2_JSON, p.format());
        assertEquals(spans.size(), p.spans().size() + p.spansSkipped(), file);
        assertEquals(skipped, p.skippedByReason(), file);
        assertEquals(repaired, p.repairedByReason(), file);
        assertEquals(expected, p.spans().stream().map(s -> List.<Object>of(s.traceId(), s.spanId(), s.parentSpanId(),
                s.service(), s.operation(), s.kind().name(), s.startEpochNanos(), s.durationNanos())).toList(), file);
        Map<String, String> actualPeers = new LinkedHashMap<>();
        for (Span s : p.spans()) {
            if (peers.containsKey(s.traceId() + "/" + s.spanId())) {
                actualPeers.put(s.traceId() + "/" + s.spanId(), s.peerService());
            }
        }
        assertEquals(peers, actualPeers, file);
    }

    /**
     * Zipkin's benchmark spans (zipkin2-chinese.json, zipkin2-client.json) are single span objects, which Zipkin's
     * API never sends ({@code POST /api/v2/spans} takes a list): rejected as an unrecognized document at 1:1. The same
     * span in a one-element list is read, service names in Chinese included.
     */
    @Test
    void zipkinSingleSpanObjectsAreRejectedAndReadInAList() {
        for (String file : REJECTED) {
            TraceFormatException e = assertThrows(TraceFormatException.class, () -> parse(file));
            assertEquals(List.of(1, 1), List.of(e.line(), e.column()), e.getMessage());
            assertTrue(e.reason().startsWith("unrecognized trace document"), e.reason());
            JsonNode span = values(file).get(0);
            byte[] list = ("[" + new String(bytes(file), StandardCharsets.UTF_8) + "]").getBytes(StandardCharsets.UTF_8);
            ParsedTraces p = TraceDocuments.parse(file, list);
            assertEquals(1, p.spans().size());
            Span s = p.spans().get(0);
            assertEquals(List.of(span.path("traceId").asText(), span.path("id").asText(), span.path("parentId").asText(),
                            span.path("localEndpoint").path("serviceName").asText(), SpanKind.CLIENT,
                            span.path("remoteEndpoint").path("serviceName").asText(), span.path("duration").asLong() * 1000),
                    List.of(s.traceId(), s.spanId(), s.parentSpanId(), s.service(), s.kind(), s.peerService(), s.durationNanos()));
        }
        assertEquals("订单维护服务", TraceDocuments.parse("c", ("[" + new String(bytes("zipkin/benchmarks/zipkin2-chinese.json"),
                StandardCharsets.UTF_8) + "]").getBytes(StandardCharsets.UTF_8)).spans().get(0).service());
    }

    /**
     * smartthings-mobile-web-install.json (1,041 spans, the largest trace of zipkin-lens): 84 ids carry three spans, a
     * CLIENT, its shared SERVER half and, first in the file, a fragment of the server half (same service and name, no
     * kind, no timestamp); one id carries a CLIENT and five SERVERs. Each fragment is a part of its server half and adds
     * nothing to it, so it counts as a duplicate (84), as do four of the five SERVERs (from other hosts): 953 spans, the
     * same spans as the file without the fragments gives, and so the same service edges, interface edges and entries.
     * (The fragment took the id and the CLIENT half was skipped, until {@link #zipkinClientHalfIsKeptOverAServerFragment};
     * the graph happened not to change, the fragment naming the server's service.)
     */
    @Test
    void zipkinSpanFragmentsDoNotChangeTheGraph() throws IOException {
        String file = "zipkin/zipkin-lens/smartthings-mobile-web-install.json";
        ArrayNode spans = (ArrayNode) values(file).get(0);
        ArrayNode withoutFragments = JSON.createArrayNode();
        Set<Integer> fragments = serverFragments(spans).keySet();
        for (int i = 0; i < spans.size(); i++) {
            if (!fragments.contains(i)) {
                withoutFragments.add(spans.get(i));
            }
        }
        assertEquals(1041, spans.size());
        assertEquals(84, fragments.size());
        ParsedTraces whole = parse(file);
        ParsedTraces merged = TraceDocuments.parse("without fragments", JSON.writeValueAsBytes(withoutFragments));
        assertEquals(Map.of(DUPLICATE, 88), whole.skippedByReason());
        assertEquals(Map.of(DUPLICATE, 4), merged.skippedByReason());
        assertEquals(953, whole.spans().size());
        assertEquals(Set.copyOf(merged.spans()), Set.copyOf(whole.spans()), "the fragments change no span");
        ExtractedLinks a = EdgeExtractor.extract(whole.spans(), whole.dependencies());
        ExtractedLinks b = EdgeExtractor.extract(merged.spans(), merged.dependencies());
        assertEquals(calls(b), calls(a));
        assertEquals(28, calls(a).size());
        assertEquals(b.interfaceEdges().keySet(), a.interfaceEdges().keySet());
        assertEquals(b.serviceEntries(), a.serviceEntries());
        assertEquals(Set.of("coreSrv"), a.serviceEntries());
    }

    /**
     * smartthings-mobile-web-install.json's 84 fragments: the CLIENT half keeps the id, its service, name and timing, and
     * the fragment is merged into the server half of its endpoint, as Zipkin's {@code Trace.merge} would never let it
     * take the CLIENT's place. The kind, every part of one Zipkin span id merged into its half: {@code ZipkinSpanPartsTest}.
     */
    @Test
    void zipkinClientHalfIsKeptOverAServerFragment() {
        String file = "zipkin/zipkin-lens/smartthings-mobile-web-install.json";
        ArrayNode spans = (ArrayNode) values(file).get(0);
        ParsedTraces p = parse(file);
        Map<Integer, JsonNode> fragments = serverFragments(spans);
        assertEquals(84, fragments.size());
        fragments.forEach((index, client) -> {
            Span kept = span(p, client.path("id").asText());
            assertEquals(List.of(SpanKind.CLIENT, client.path("localEndpoint").path("serviceName").asText(),
                            client.path("name").asText(), client.path("timestamp").asLong() * 1000,
                            client.path("duration").asLong() * 1000),
                    List.of(kept.kind(), kept.service(), kept.operation(), kept.startEpochNanos(), kept.durationNanos()));
            Span server = span(p, client.path("id").asText() + ":server");
            assertEquals(List.of(SpanKind.SERVER, spans.get(index).path("localEndpoint").path("serviceName").asText()),
                    List.of(server.kind(), server.service()), "the server half stays the server's");
        });
    }

    /**
     * The kind-less spans of {@code spans} that share their (trace, id) with a CLIENT and a SERVER span, by index, each
     * with that CLIENT span.
     */
    private static Map<Integer, JsonNode> serverFragments(ArrayNode spans) {
        Map<String, List<JsonNode>> byId = new HashMap<>();
        for (JsonNode s : spans) {
            byId.computeIfAbsent(s.path("traceId").asText() + "/" + s.path("id").asText(), k -> new ArrayList<>()).add(s);
        }
        Map<Integer, JsonNode> out = new TreeMap<>();
        for (int i = 0; i < spans.size(); i++) {
            JsonNode s = spans.get(i);
            List<JsonNode> group = byId.get(s.path("traceId").asText() + "/" + s.path("id").asText());
            Set<String> kinds = group.stream().map(x -> x.path("kind").asText("-")).collect(Collectors.toSet());
            if (!s.has("kind") && group.size() == 3 && kinds.equals(Set.of("-", "CLIENT", "SERVER"))) {
                out.put(i, group.stream().filter(x -> "CLIENT".equals(x.path("kind").asText())).findFirst().orElseThrow());
            }
        }
        return out;
    }

    // ---- helpers ----

    /**
     * The independent subsegment {@code sub} of {@code file} followed, in one document, by a segment {@code gateway}
     * with its {@code parent_id} and its times (those of the other files, 1478293361.271 to 1478293361.449, when the
     * subsegment's are past what a {@code long} of nanoseconds holds), parsed.
     */
    private static ParsedTraces joined(String file, JsonNode sub) throws IOException {
        ObjectNode segment = JSON.createObjectNode();
        segment.put("trace_id", sub.path("trace_id").asText());
        segment.put("id", sub.path("parent_id").asText());
        segment.put("name", "gateway");
        boolean pastALong = sub.get("start_time").decimalValue().compareTo(LAST_NANOSECOND_SECOND) > 0;
        segment.set("start_time", pastALong ? JSON.getNodeFactory().numberNode(new BigDecimal("1478293361.271")) : sub.get("start_time"));
        segment.set("end_time", pastALong ? JSON.getNodeFactory().numberNode(new BigDecimal("1478293361.449")) : sub.get("end_time"));
        ByteArrayOutputStream doc = new ByteArrayOutputStream();
        doc.write(bytes(file));
        doc.write('\n');
        doc.write(JSON.writeValueAsBytes(segment));
        return TraceDocuments.parse(file, doc.toByteArray());
    }

    /** The fields an OTLP span and its Jaeger conversion share, links included; durations to the µs (Jaeger's unit). */
    private static List<List<Object>> comparable(ParsedTraces p) {
        return p.spans().stream().map(s -> List.<Object>of(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(),
                s.operation(), s.kind(), s.startEpochNanos(), s.durationNanos() / 1000, s.scope().toString())).toList();
    }

    /** Span objects in an OTLP file (one or more requests), counted with Jackson. */
    private static int otlpSpanObjects(String file) {
        int n = 0;
        for (JsonNode request : values(file)) {
            for (JsonNode rs : request.path("resourceSpans")) {
                for (JsonNode ss : rs.path("scopeSpans")) {
                    n += ss.path("spans").size();
                }
            }
        }
        return n;
    }

    private static void subsegments(JsonNode parent, String traceId, String parentId, String service, String sdk,
                                    List<XRayExpected> out) {
        for (JsonNode sub : parent.path("subsegments")) {
            String name = sub.path("name").asText();
            boolean remote = List.of("aws", "remote").contains(sub.path("namespace").asText());
            String operation = name;
            if (remote) {
                String awsOperation = sub.path("aws").path("operation").asText("");
                String method = sub.path("http").path("request").path("method").asText("");
                operation = !awsOperation.isEmpty() ? awsOperation : !method.isEmpty() ? method : name;
            }
            out.add(new XRayExpected(traceId, sub.path("id").asText(), parentId, service, operation,
                    remote ? SpanKind.CLIENT : SpanKind.INTERNAL, remote ? name : "", sdk, sub));
            subsegments(sub, traceId, sub.path("id").asText(), service, sdk, out);
        }
    }

    /** A span as the walk of an X-Ray document expects it, and the (sub)segment it comes from. */
    private record XRayExpected(String traceId, String spanId, String parentSpanId, String service, String operation,
                                SpanKind kind, String peer, String sdk, JsonNode doc) {
        List<Object> fields() {
            return List.of(traceId, spanId, parentSpanId, service, operation, kind, peer);
        }
    }

    private static boolean isDaemonHeader(JsonNode v) {
        return v.has("format") && v.has("version") && !v.has("id");
    }

    /** {@code 1-5f2aebcc-b475d14618c51eaa28753d37} → {@code 5f2aebccb475d14618c51eaa28753d37}. */
    private static String xrayTraceId(String raw) {
        String[] parts = raw.split("-");
        assertEquals(3, parts.length, raw);
        return (parts[1] + parts[2]).toLowerCase(Locale.ROOT);
    }

    /**
     * Epoch seconds as written (a decimal) → nanoseconds, rounded to the microsecond.
     *
     * @throws ArithmeticException past a {@code long} of nanoseconds (the year 2262)
     */
    private static long epochNanos(JsonNode seconds) {
        BigDecimal s = seconds.decimalValue();
        return Math.multiplyExact(s.movePointRight(6).setScale(0, RoundingMode.HALF_EVEN).longValueExact(), 1000L);
    }

    /** A hex id left-padded to {@code digits} and lower-cased; any other text as it is. */
    private static String hexId(String raw, int digits) {
        if (raw.matches("[0-9a-fA-F]{1," + digits + "}")) {
            return "0".repeat(digits - raw.length()) + raw.toLowerCase(Locale.ROOT);
        }
        return raw;
    }

    private static Span span(ParsedTraces p, String spanId) {
        return p.spans().stream().filter(s -> s.spanId().equals(spanId)).findFirst()
                .orElseGet(() -> fail("no span " + spanId + " in " + p.fileName()));
    }

    /** Service edges as {@code from>to} → calls. */
    private static Map<String, Long> calls(ParsedTraces p) {
        return calls(EdgeExtractor.extract(p.spans(), p.dependencies()));
    }

    private static Map<String, Long> calls(ExtractedLinks l) {
        Map<String, Long> out = new TreeMap<>();
        l.serviceEdges().forEach((edge, stats) -> out.put(edge.from() + ">" + edge.to(), stats.calls()));
        return out;
    }

    private static ParsedTraces parse(String file) {
        return TraceDocuments.parse(file.substring(file.lastIndexOf('/') + 1), bytes(file));
    }

    private static byte[] bytes(String file) {
        try {
            return Files.readAllBytes(ROOT.resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every top-level JSON value of a file (one, or one per line), read with Jackson. */
    private static List<JsonNode> values(String file) {
        List<JsonNode> out = new ArrayList<>();
        try (JsonParser p = JSON.getFactory().createParser(bytes(file))) {
            while (p.nextToken() != null) {
                out.add(JSON.readTree(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The fixture files under the given directories of public-fixtures, as {@code dir/…} paths, sorted. */
    private static Stream<String> files(String... dirs) {
        List<String> out = new ArrayList<>();
        for (String dir : dirs) {
            try (Stream<Path> s = Files.walk(ROOT.resolve(dir))) {
                s.filter(Files::isRegularFile).map(f -> ROOT.relativize(f).toString().replace('\\', '/')).sorted().forEach(out::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.stream();
    }

    private static Stream<String> allFiles() {
        return files("xray", "jaeger", "jaeger-ui", "zipkin");
    }
}
