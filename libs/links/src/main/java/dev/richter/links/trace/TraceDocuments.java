package dev.richter.links.trace;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.richter.common.JsonSyntax;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads one trace document of any supported {@link TraceFormat}, detected from its content.
 *
 * <p>JSON detection, on each top-level value (a file may hold several, one per line — OTLP
 * NDJSON or the X-Ray daemon's {@code {"format":"json","version":1}} header + segment):
 * {@code resourceSpans} or a bare ResourceSpans → OTLP; {@code data[]} of traces or
 * {@code traceID}+{@code spans} → Jaeger; {@code trace_id}+{@code id} → X-Ray segment;
 * {@code Traces[].Segments[].Document} → X-Ray BatchGetTraces; an array of objects with
 * {@code traceId} and {@code id} (or of such arrays) → Zipkin v2; an array of
 * {@code {parent, child}} → dependency list; an array of X-Ray segments or Jaeger traces accordingly.
 * Text whose first line names {@code traceid}, {@code rpc_id}/{@code rpcid}, {@code um}, {@code dm}
 * → Alibaba call-graph CSV.
 *
 * <p>Rejected (a {@link TraceFormatException} with file, line, column): malformed JSON (position
 * from Jackson's {@link JsonLocation}); OTLP metrics ({@code resourceMetrics}) and logs
 * ({@code resourceLogs}) — they are not traces, and ingesting them as "zero spans" would hide a
 * wiring mistake; any other JSON shape; non-JSON text without the CSV header; and any trace or
 * span id that breaks its format's rule ({@link TraceIds}: e.g. base64 ids in OTLP/JSON, corpus
 * bug 22), at the id's value, the reason naming the field by path:
 * {@code resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex characters, got
 * 44-character base64 value "YzRl…"}. One bad id rejects the whole document (nothing is ingested):
 * guessing ids, or keeping them as opaque strings, would split traces and drop edges silently.
 *
 * <p>Skipped and counted by reason ({@link ParsedTraces#skippedByReason()}), the rest of the document read: a span
 * without a trace or span id, a repeated (trace, span) id, a span with a time outside what a {@code long} of epoch
 * nanoseconds holds, 1677-09-21 to 2262-04-11 ({@link EpochNanos}, every format), an X-Ray (sub)segment without its
 * required times ({@link XRayParser}).
 */
public final class TraceDocuments {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private TraceDocuments() {}

    /**
     * Parses {@code document} (UTF-8, an optional BOM is ignored).
     *
     * @param fileName the caller's name for the document, used in errors and results
     * @param document the raw bytes
     * @return the normalized spans with skip/repair counts
     * @throws TraceFormatException when the document is malformed, not a trace document, or holds
     *     an id its format does not allow
     */
    public static ParsedTraces parse(String fileName, byte[] document) {
        return parse(fileName, document, true);
    }

    /**
     * As {@link #parse(String, byte[])}; {@code streamOtlp=false} reads OTLP requests through the
     * tree reader ({@link OtlpParser}) even when the streaming reader would apply, so tests can
     * hold the two to the same results and errors.
     */
    static ParsedTraces parse(String fileName, byte[] document, boolean streamOtlp) {
        int start = 0;
        if (document.length >= 3 && (document[0] & 0xff) == 0xEF && (document[1] & 0xff) == 0xBB
                && (document[2] & 0xff) == 0xBF) {
            start = 3;
        }
        int first = start;
        while (first < document.length && Character.isWhitespace(document[first])) {
            first++;
        }
        if (first == document.length) {
            throw new TraceFormatException(fileName, 1, 1, "empty document");
        }
        SpanCollector out = new SpanCollector();
        if (document[first] != '{' && document[first] != '[') {
            int eol = first;
            while (eol < document.length && document[eol] != '\n') {
                eol++;
            }
            String header = new String(document, first, eol - first, StandardCharsets.UTF_8);
            if (!AlibabaCallGraphParser.looksLikeHeader(header)) {
                throw new TraceFormatException(fileName, 1, 1,
                        "not JSON and not an Alibaba call-graph CSV (header needs traceid, rpc_id, um, dm)");
            }
            AlibabaCallGraphParser.parse(fileName, Arrays.copyOfRange(document, first, document.length), out);
            return out.result(fileName, TraceFormat.ALIBABA_CALLGRAPH_CSV);
        }
        if (streamOtlp && startsWithField(document, first, "resourceSpans")) {
            readOtlpStream(fileName, document, start, out);
            return out.result(fileName, TraceFormat.OTLP_JSON);
        }
        List<JsonNode> values = readValues(fileName, document, start);
        TraceFormat format = null;
        List<XRayParser.Doc> xray = new ArrayList<>();
        try {
            for (int i = 0; i < values.size(); i++) {
                JsonNode v = values.get(i);
                if (v.isObject() && v.size() <= 3 && v.has("format") && v.has("version") && !v.has("id")) {
                    continue; // X-Ray daemon header line
                }
                TraceFormat f = parseValue(fileName, document, v, JsonPath.value(i), out, xray);
                if (format == null) {
                    format = f;
                }
            }
            if (!xray.isEmpty()) {
                XRayParser.parse(xray, out);
            }
        } catch (InvalidIdException e) {
            throw rejected(fileName, document, start, e);
        }
        if (format == null) {
            throw new TraceFormatException(fileName, 1, 1, "no trace data in document");
        }
        return out.result(fileName, format);
    }

    /** True when the JSON at {@code first} is an object whose first field is {@code name}. */
    private static boolean startsWithField(byte[] document, int first, String name) {
        if (document[first] != '{') {
            return false;
        }
        int i = first + 1;
        while (i < document.length && Character.isWhitespace(document[i])) {
            i++;
        }
        byte[] quoted = ('"' + name + '"').getBytes(StandardCharsets.UTF_8);
        if (i + quoted.length > document.length) {
            return false;
        }
        for (int k = 0; k < quoted.length; k++) {
            if (document[i + k] != quoted[k]) {
                return false;
            }
        }
        return true;
    }

    /** Streams OTLP request objects (one or more top-level values, e.g. NDJSON) without a tree. */
    private static void readOtlpStream(String fileName, byte[] document, int start, SpanCollector out) {
        OtlpStreamParser otlp = new OtlpStreamParser(MAPPER);
        try (JsonParser p = MAPPER.getFactory().createParser(document, start, document.length - start)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_OBJECT) {
                    throw new TraceFormatException(fileName, p.currentTokenLocation().getLineNr(),
                            p.currentTokenLocation().getColumnNr(), "expected an OTLP traces object, got " + t);
                }
                otlp.parseRequest(p, out);
            }
        } catch (InvalidIdException e) {
            throw rejected(fileName, document, start, e);
        } catch (JsonProcessingException e) {
            throw notJson(fileName, e, "not valid JSON");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<JsonNode> readValues(String fileName, byte[] document, int start) {
        List<JsonNode> values = new ArrayList<>(1);
        // one tree per top-level value (MappingIterator would unwrap a top-level array)
        try (JsonParser p = MAPPER.getFactory().createParser(document, start, document.length - start)) {
            while (p.nextToken() != null) {
                values.add(MAPPER.readTree(p));
            }
        } catch (JsonProcessingException e) {
            throw notJson(fileName, e, "not valid JSON");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return values;
    }

    private static TraceFormat parseValue(String fileName, byte[] document, JsonNode v, JsonPath at,
                                          SpanCollector out, List<XRayParser.Doc> xray) {
        if (v.isObject()) {
            if (v.has("resourceSpans")) {
                OtlpParser.parseRequest(v, out, at);
                return TraceFormat.OTLP_JSON;
            }
            if (v.has("scopeSpans") || v.has("instrumentationLibrarySpans")) {
                OtlpParser.parseResourceSpans(v, out, at);
                return TraceFormat.OTLP_JSON;
            }
            if (v.has("resourceMetrics") || v.has("resourceLogs")) {
                String field = v.has("resourceMetrics") ? "resourceMetrics" : "resourceLogs";
                JsonLocation loc = locateTopLevelField(document, field);
                throw new TraceFormatException(fileName, loc.getLineNr(), loc.getColumnNr(),
                        "OTLP " + (field.equals("resourceMetrics") ? "metrics" : "logs")
                                + " document (" + field + "), not traces: send OTLP traces (resourceSpans)");
            }
            if (v.path("data").isArray()) {
                int i = 0;
                for (JsonNode t : v.get("data")) {
                    JaegerParser.parseTrace(t, out, at.field("data").index(i++));
                }
                return TraceFormat.JAEGER_JSON;
            }
            if (v.has("spans") && (v.has("traceID") || v.has("processes"))) {
                JaegerParser.parseTrace(v, out, at);
                return TraceFormat.JAEGER_JSON;
            }
            if (v.has("trace_id") && v.has("id")) {
                xray.add(new XRayParser.Doc(v, at));
                return TraceFormat.XRAY_SEGMENTS;
            }
            if (v.path("Traces").isArray() || v.path("Segments").isArray()) {
                boolean batch = v.has("Traces");
                JsonNode traces = batch ? v.get("Traces") : MAPPER.createArrayNode().add(v);
                int i = 0;
                for (JsonNode t : traces) {
                    JsonPath traceAt = batch ? at.field("Traces").index(i++) : at;
                    int j = 0;
                    for (JsonNode seg : t.path("Segments")) {
                        JsonPath docAt = traceAt.field("Segments").index(j++).field("Document");
                        xray.add(new XRayParser.Doc(readEmbedded(fileName, seg.path("Document").asText("")),
                                docAt.embedded()));
                    }
                }
                return TraceFormat.XRAY_SEGMENTS;
            }
        } else if (v.isArray()) {
            JsonNode sample = v.size() == 0 ? null : v.get(0);
            if (sample != null && sample.isArray()) {
                sample = sample.size() == 0 ? null : sample.get(0);
            }
            if (sample == null) {
                return TraceFormat.ZIPKIN_V2_JSON; // an empty span list is a valid (empty) Zipkin answer
            }
            if (sample.has("traceId") && sample.has("id")) {
                ZipkinParser.parse(v, out, at);
                return TraceFormat.ZIPKIN_V2_JSON;
            }
            if (sample.has("parent") && sample.has("child")) {
                for (JsonNode d : v) {
                    String parent = d.path("parent").asText("");
                    String child = d.path("child").asText("");
                    if (parent.isEmpty() || child.isEmpty()) {
                        out.skip("dependency without parent or child");
                    } else {
                        out.dependency(new DependencyLink(parent, child, Math.max(0, d.path("callCount").asLong(0))));
                    }
                }
                return TraceFormat.DEPENDENCY_LINKS;
            }
            if (sample.has("trace_id") && sample.has("id")) {
                for (int i = 0; i < v.size(); i++) {
                    xray.add(new XRayParser.Doc(v.get(i), at.index(i)));
                }
                return TraceFormat.XRAY_SEGMENTS;
            }
            if (sample.has("spans") && sample.has("traceID")) {
                for (int i = 0; i < v.size(); i++) {
                    JaegerParser.parseTrace(v.get(i), out, at.index(i));
                }
                return TraceFormat.JAEGER_JSON;
            }
        }
        throw new TraceFormatException(fileName, 1, 1, "unrecognized trace document: expected OTLP resourceSpans, "
                + "a Zipkin v2 span array, Jaeger {data:[…]} or trace, X-Ray segments, or a dependency list");
    }

    private static JsonNode readEmbedded(String fileName, String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw notJson(fileName, e, "the embedded X-Ray segment Document is not valid JSON");
        }
    }

    /**
     * A JSON syntax error as a rejection at its position, {@code what} followed by the reason in plain words
     * ({@link JsonSyntax}), never the parser's own message.
     */
    private static TraceFormatException notJson(String fileName, JsonProcessingException e, String what) {
        JsonLocation loc = e.getLocation();
        return new TraceFormatException(fileName, loc == null ? 0 : loc.getLineNr(), loc == null ? 0 : loc.getColumnNr(),
                what + " (" + JsonSyntax.reason(e, "file") + ")");
    }

    /**
     * The whole document is rejected for one bad id: a {@link TraceFormatException} whose reason
     * names the field by path ({@code resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32
     * hex characters, got 44-character base64 value "…"}) at the value's line and column.
     */
    private static TraceFormatException rejected(String fileName, byte[] document, int start, InvalidIdException e) {
        int line = e.line;
        int column = e.column;
        if (line == 0) {
            JsonLocation loc = locate(document, start, e.path);
            line = loc.getLineNr();
            column = loc.getColumnNr();
        }
        return new TraceFormatException(fileName, line, column, e.path + ": " + e.reason);
    }

    /**
     * Location of the value at {@code path} (following field names and array indices from the
     * {@code path.valueIndex()}-th top-level value; an embedded document stops at its string), or
     * of the deepest value reached when the path cannot be followed to the end.
     */
    static JsonLocation locate(byte[] document, int start, JsonPath path) {
        try (JsonParser p = MAPPER.getFactory().createParser(document, start, document.length - start)) {
            JsonToken t = p.nextToken();
            for (int v = 0; v < path.valueIndex() && t != null; v++) {
                p.skipChildren();
                t = p.nextToken();
            }
            if (t == null) {
                return new JsonLocation(null, 0, 1, 1);
            }
            for (JsonPath step : path.steps()) {
                if (step.isEmbedded()) {
                    break;
                }
                JsonLocation here = p.currentTokenLocation();
                boolean found = false;
                if (step.isField() && t == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        t = p.nextToken();
                        if (name.equals(step.fieldName())) {
                            found = true;
                            break;
                        }
                        p.skipChildren();
                    }
                } else if (!step.isField() && t == JsonToken.START_ARRAY) {
                    for (int i = 0; (t = p.nextToken()) != JsonToken.END_ARRAY && t != null; i++) {
                        if (i == step.arrayIndex()) {
                            found = true;
                            break;
                        }
                        p.skipChildren();
                    }
                }
                if (!found) {
                    return here;
                }
            }
            return p.currentTokenLocation();
        } catch (IOException e) {
            return new JsonLocation(null, 0, 1, 1);
        }
    }

    /** Location of the first top-level field named {@code name}, or 1:1. */
    static JsonLocation locateTopLevelField(byte[] document, String name) {
        try (JsonParser p = MAPPER.getFactory().createParser(document)) {
            int depth = 0;
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    depth++;
                } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    depth--;
                } else if (t == JsonToken.FIELD_NAME && depth == 1 && name.equals(p.currentName())) {
                    return p.currentTokenLocation();
                }
            }
        } catch (IOException e) {
            // fall through to the default position
        }
        return new JsonLocation(null, 0, 1, 1);
    }
}
