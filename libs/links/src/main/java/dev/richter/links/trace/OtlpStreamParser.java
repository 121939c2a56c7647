package dev.richter.links.trace;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Streaming reader for OTLP/JSON {@code ExportTraceServiceRequest} documents: the same mapping as
 * {@link OtlpParser} (which it replaces for the common case of a document starting with
 * {@code {"resourceSpans":}), without building a JSON tree — OTLP batches are the large inputs.
 * Fields are matched by name in any order; unknown fields are skipped. {@code service.name} may come
 * after the spans of its ResourceSpans, so spans are finished when their ResourceSpans closes.
 * Ids are checked as they are read ({@link TraceIds#otlpTraceId}); a bad one throws
 * {@link InvalidIdException} with its path and the value's line and column, the same error the
 * tree reader gives. Times are read as the tree reader reads them ({@link OtlpParser#unixNanos}): one past
 * {@code Long.MAX_VALUE} or negative skips its span as {@value EpochNanos#OUT_OF_RANGE}, never the document.
 */
final class OtlpStreamParser {
    private final ObjectMapper mapper;

    OtlpStreamParser(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** Reads one root object positioned at START_OBJECT; IOExceptions carry Jackson's location. */
    void parseRequest(JsonParser p, SpanCollector out) throws IOException {
        expect(p, JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            if ("resourceSpans".equals(f) && t == JsonToken.START_ARRAY) {
                int i = 0;
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    resourceSpans(p, out, i++);
                }
            } else {
                p.skipChildren();
            }
        }
    }

    private void resourceSpans(JsonParser p, SpanCollector out, int rsIndex) throws IOException {
        String service = "";
        List<Draft> drafts = new ArrayList<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            if ("resource".equals(f) && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String rf = p.currentName();
                    JsonToken rt = p.nextToken();
                    if ("attributes".equals(rf) && rt == JsonToken.START_ARRAY) {
                        Map<String, String> attrs = attributes(p);
                        service = attrs.getOrDefault("service.name", "");
                    } else {
                        p.skipChildren();
                    }
                }
            } else if (("scopeSpans".equals(f) || "instrumentationLibrarySpans".equals(f)) && t == JsonToken.START_ARRAY) {
                int scopeIndex = 0;
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    // the scope may follow its spans: they get it when the group closes
                    int first = drafts.size();
                    InstrumentationScope scope = InstrumentationScope.NONE;
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String sf = p.currentName();
                        JsonToken st = p.nextToken();
                        if ("spans".equals(sf) && st == JsonToken.START_ARRAY) {
                            int spanIndex = 0;
                            while (p.nextToken() == JsonToken.START_OBJECT) {
                                drafts.add(span(p, new Where(rsIndex, f, scopeIndex, spanIndex++)));
                            }
                        } else if (("scope".equals(sf) || "instrumentationLibrary".equals(sf))
                                && st == JsonToken.START_OBJECT) {
                            scope = scope(p);
                        } else {
                            p.skipChildren();
                        }
                    }
                    for (Draft d : drafts.subList(first, drafts.size())) {
                        d.scope = scope;
                    }
                    scopeIndex++;
                }
            } else {
                p.skipChildren();
            }
        }
        for (Draft d : drafts) {
            if (d.timeOutOfRange) {
                out.skip(EpochNanos.OUT_OF_RANGE);
                continue;
            }
            String spanId = d.spanId;
            String traceId = d.traceId;
            String parent = out.parentOrRoot(spanId, d.parentSpanId);
            List<SpanRef> links = List.of();
            if (d.links != null) {
                links = new ArrayList<>(d.links.size() / 2);
                for (int i = 0; i < d.links.size(); i += 2) {
                    String lt = d.links.get(i);
                    String li = d.links.get(i + 1);
                    if (!li.isEmpty()) {
                        links.add(new SpanRef(lt.isEmpty() ? traceId : lt, li));
                    }
                }
            }
            String peer = d.kind.makesCall() ? PeerService.of(d.attributes) : "";
            out.add(new Span(traceId, spanId, parent, links, service, ServerOperation.of(d.kind, d.name, d.attributes), d.kind,
                    peer, d.attributes, d.start, d.end > d.start ? d.end - d.start : 0, d.scope));
        }
    }

    private Draft span(JsonParser p, Where where) throws IOException {
        Draft d = new Draft();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            switch (f) {
                case "traceId" -> d.traceId = id(p, t, OtlpParser.IdField.TRACE, where, -1, f);
                case "spanId" -> d.spanId = id(p, t, OtlpParser.IdField.SPAN, where, -1, f);
                case "parentSpanId" -> d.parentSpanId = id(p, t, OtlpParser.IdField.PARENT, where, -1, f);
                case "name" -> d.name = text(p, t);
                case "kind" -> d.kind = t == JsonToken.VALUE_NUMBER_INT ? SpanKind.ofOtlp(p.getIntValue())
                        : SpanKind.ofText(text(p, t));
                case "startTimeUnixNano", "endTimeUnixNano" -> {
                    try {
                        long nanos = unixNanos(p, t);
                        if (f.startsWith("start")) {
                            d.start = nanos;
                        } else {
                            d.end = nanos;
                        }
                    } catch (ArithmeticException e) {
                        d.timeOutOfRange = true;
                    }
                }
                case "attributes" -> d.attributes = t == JsonToken.START_ARRAY ? attributes(p) : skip(p, Map.of());
                case "links" -> {
                    if (t == JsonToken.START_ARRAY) {
                        d.links = new ArrayList<>();
                        int linkIndex = 0;
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            String lt = "";
                            String ls = "";
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String lf = p.currentName();
                                JsonToken ltok = p.nextToken();
                                if ("traceId".equals(lf)) {
                                    lt = id(p, ltok, OtlpParser.IdField.TRACE, where, linkIndex, lf);
                                } else if ("spanId".equals(lf)) {
                                    ls = id(p, ltok, OtlpParser.IdField.SPAN, where, linkIndex, lf);
                                } else {
                                    p.skipChildren();
                                }
                            }
                            d.links.add(lt);
                            d.links.add(ls);
                            linkIndex++;
                        }
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
        return d;
    }

    /** Reads an {@code InstrumentationScope} object's {@code name} and {@code version}; positioned at START_OBJECT. */
    private static InstrumentationScope scope(JsonParser p) throws IOException {
        String name = "";
        String version = "";
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken t = p.nextToken();
            if ("name".equals(f)) {
                name = text(p, t);
            } else if ("version".equals(f)) {
                version = text(p, t);
            } else {
                p.skipChildren();
            }
        }
        return new InstrumentationScope(name, version);
    }

    /** Reads an array of {@code {key, value: AnyValue}}; positioned at START_ARRAY. */
    private Map<String, String> attributes(JsonParser p) throws IOException {
        Map<String, String> m = null;
        while (p.nextToken() == JsonToken.START_OBJECT) {
            String key = "";
            String value = "";
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                if ("key".equals(f)) {
                    key = text(p, t);
                } else if ("value".equals(f) && t == JsonToken.START_OBJECT) {
                    value = anyValue(p);
                } else {
                    p.skipChildren();
                }
            }
            if (m == null) {
                m = new HashMap<>(8);
            }
            m.put(key, value);
        }
        return m == null ? Map.of() : m;
    }

    /** Text of an AnyValue object (positioned at its START_OBJECT): scalars as text, arrays/kvlists as JSON. */
    private String anyValue(JsonParser p) throws IOException {
        String value = "";
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                value = mapper.readTree(p).toString();
            } else {
                value = p.getValueAsString("");
            }
        }
        return value;
    }

    /**
     * Normalizes the id value at the current token by its OTLP rule (the same text as
     * {@link OtlpParser#idText} takes from a tree), or throws {@link InvalidIdException} with its
     * path and position.
     */
    private String id(JsonParser p, JsonToken t, OtlpParser.IdField field, Where where, int linkIndex, String name)
            throws IOException {
        JsonLocation loc = null; // taken only when needed: it allocates
        String raw;
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            loc = p.currentTokenLocation();
            raw = mapper.readTree(p).toString();
        } else {
            raw = t == JsonToken.VALUE_NULL ? "" : p.getValueAsString("");
        }
        try {
            return field.normalize(raw);
        } catch (IllegalArgumentException e) {
            if (loc == null) {
                loc = p.currentTokenLocation(); // still the id's value token
            }
            JsonPath at = where.path();
            if (linkIndex >= 0) {
                at = at.field("links").index(linkIndex);
            }
            throw new InvalidIdException(at.field(name), e.getMessage(), loc.getLineNr(), loc.getColumnNr());
        }
    }

    /** Indices of the span being read, to name it in errors (built into a path only then). */
    private record Where(int resourceSpans, String scopesField, int scope, int span) {
        JsonPath path() {
            return JsonPath.value(0).field("resourceSpans").index(resourceSpans).field(scopesField).index(scope)
                    .field("spans").index(span);
        }
    }

    private static String text(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
            return "";
        }
        return t == JsonToken.VALUE_NULL ? "" : p.getValueAsString("");
    }

    /**
     * The time value at the current token as {@link OtlpParser#unixNanos} reads it from a tree: a number or a string of
     * one, 0 for anything else; throws {@link ArithmeticException} past {@code Long.MAX_VALUE} or when negative.
     */
    private static long unixNanos(JsonParser p, JsonToken t) throws IOException {
        long nanos;
        if (t == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new ArithmeticException("past a long: " + p.getText());
            }
            nanos = p.getLongValue();
        } else if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            nanos = EpochNanos.ofDouble(p.getDoubleValue());
        } else if (t == JsonToken.VALUE_STRING) {
            nanos = EpochNanos.integral(p.getText());
        } else {
            p.skipChildren();
            nanos = 0;
        }
        return EpochNanos.unsigned(nanos);
    }

    private static <T> T skip(JsonParser p, T value) throws IOException {
        p.skipChildren();
        return value;
    }

    private static void expect(JsonParser p, JsonToken t) throws IOException {
        if (p.currentToken() != t) {
            throw new JsonParseException(p, "expected " + t + ", got " + p.currentToken());
        }
    }

    private static final class Draft {
        String traceId = "";
        String spanId = "";
        String parentSpanId = "";
        String name = "";
        SpanKind kind = SpanKind.UNSPECIFIED;
        long start;
        long end;
        boolean timeOutOfRange;
        Map<String, String> attributes = Map.of();
        List<String> links;
        InstrumentationScope scope = InstrumentationScope.NONE;
    }
}
