package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * AWS X-Ray segment documents (X-Ray developer guide, "Segment documents"): a segment
 * ({@code trace_id}, {@code id}, {@code name}, {@code start_time}/{@code end_time} in epoch seconds,
 * optional {@code parent_id}) with nested {@code subsegments}; and independent subsegments
 * ({@code "type":"subsegment"} with {@code trace_id} and {@code parent_id}).
 *
 * <p>Mapping (as the OpenTelemetry X-Ray receiver does): a segment is a SERVER span of the service
 * {@code name}; a subsegment is an INTERNAL span of the same service unless its {@code namespace}
 * is {@code remote} or {@code aws}, then it is a CLIENT span whose peer is the subsegment name
 * (e.g. {@code dynamodb}) and whose operation is {@code aws.operation}, else the HTTP method, else
 * the name. An independent subsegment takes the service of its parent when that parent is in the
 * same document; otherwise it is skipped ("xray subsegment without its segment"). A segment without
 * {@code end_time} (in progress) gets duration 0. The instrumentation scope of a segment and of every subsegment in it
 * is the X-Ray SDK that recorded the segment ({@code aws.xray.sdk}, {@code aws.xray.sdk_version}, e.g. {@code X-Ray
 * for Java 2.18.1}); an independent subsegment takes its parent's.
 *
 * <p>Ids (X-Ray developer guide, "Segment documents"): {@code trace_id} is {@code 1-<8 hex>-<24 hex>}
 * and becomes 32 hex digits; {@code id} and {@code parent_id} are 16 hex digits. Any other value
 * rejects the document (see {@link TraceIds#xrayTraceId}).
 */
final class XRayParser {
    static final String ORPHAN_SUBSEGMENT = "xray subsegment without its segment";

    private XRayParser() {}

    /** A segment document and its place in the file (for error paths). */
    record Doc(JsonNode node, JsonPath at) {}

    /**
     * Parses the given segment documents (already split from arrays / BatchGetTraces / daemon form).
     *
     * @throws InvalidIdException when an id breaks the X-Ray rule ({@link TraceIds#xrayTraceId},
     *     {@link TraceIds#xraySegmentId})
     */
    static void parse(List<Doc> documents, SpanCollector out) {
        List<Span> spans = new ArrayList<>();
        List<Doc> independent = new ArrayList<>();
        for (Doc d : documents) {
            JsonNode doc = d.node();
            if ("subsegment".equals(doc.path("type").asText(""))) {
                independent.add(d);
                continue;
            }
            String traceId = id(doc, "trace_id", d.at());
            String service = doc.path("name").asText("");
            JsonNode sdk = doc.path("aws").path("xray");
            InstrumentationScope scope = new InstrumentationScope(sdk.path("sdk").asText(""),
                    sdk.path("sdk_version").asText(""));
            String id = id(doc, "id", d.at());
            String parent = out.parentOrRoot(id, id(doc, "parent_id", d.at()));
            spans.add(span(doc, traceId, id, parent, service, scope, SpanKind.SERVER, "", doc.path("name").asText("")));
            subsegments(doc, d.at(), traceId, id, service, scope, spans, out);
        }
        Map<String, Span> byId = new HashMap<>();
        for (Span s : spans) {
            byId.put(s.traceId() + '/' + s.spanId(), s);
        }
        // independent subsegments may chain (a subsegment of a subsegment): resolve to a fixpoint
        boolean progress = true;
        List<Doc> pending = independent;
        while (progress && !pending.isEmpty()) {
            progress = false;
            List<Doc> next = new ArrayList<>();
            for (Doc d : pending) {
                JsonNode doc = d.node();
                String traceId = id(doc, "trace_id", d.at());
                String parent = id(doc, "parent_id", d.at());
                String id = id(doc, "id", d.at());
                Span parentSpan = byId.get(traceId + '/' + parent);
                if (parentSpan == null) {
                    next.add(d);
                    continue;
                }
                progress = true;
                int before = spans.size();
                spans.add(subsegmentSpan(doc, traceId, id, out.parentOrRoot(id, parent), parentSpan.service(),
                        parentSpan.scope()));
                subsegments(doc, d.at(), traceId, id, parentSpan.service(), parentSpan.scope(), spans, out);
                for (Span s : spans.subList(before, spans.size())) {
                    byId.put(s.traceId() + '/' + s.spanId(), s);
                }
            }
            pending = next;
        }
        for (int i = 0; i < pending.size(); i++) {
            out.skip(ORPHAN_SUBSEGMENT);
        }
        spans.forEach(out::add);
    }

    private static String id(JsonNode doc, String field, JsonPath at) {
        String raw = OtlpParser.idText(doc.path(field));
        try {
            return switch (field) {
                case "trace_id" -> TraceIds.xrayTraceId(raw);
                case "parent_id" -> TraceIds.xrayParentId(raw);
                default -> TraceIds.xraySegmentId(raw);
            };
        } catch (IllegalArgumentException e) {
            throw new InvalidIdException(at.field(field), e);
        }
    }

    private static void subsegments(JsonNode parentDoc, JsonPath at, String traceId, String parentId, String service,
                                    InstrumentationScope scope, List<Span> spans, SpanCollector out) {
        int i = 0;
        for (JsonNode sub : parentDoc.path("subsegments")) {
            JsonPath subAt = at.field("subsegments").index(i++);
            String id = id(sub, "id", subAt);
            spans.add(subsegmentSpan(sub, traceId, id, out.parentOrRoot(id, parentId), service, scope));
            subsegments(sub, subAt, traceId, id, service, scope, spans, out);
        }
    }

    private static Span subsegmentSpan(JsonNode sub, String traceId, String id, String parent, String service,
                                       InstrumentationScope scope) {
        String namespace = sub.path("namespace").asText("");
        boolean remote = "remote".equals(namespace) || "aws".equals(namespace);
        String name = sub.path("name").asText("");
        String operation = name;
        if (remote) {
            String awsOp = sub.path("aws").path("operation").asText("");
            String method = sub.path("http").path("request").path("method").asText("");
            operation = !awsOp.isEmpty() ? awsOp : !method.isEmpty() ? method : name;
        }
        return span(sub, traceId, id, parent, service, scope, remote ? SpanKind.CLIENT : SpanKind.INTERNAL,
                remote ? name : "", operation);
    }

    private static Span span(JsonNode doc, String traceId, String id, String parent, String service,
                             InstrumentationScope scope, SpanKind kind, String peer, String operation) {
        long startNanos = seconds(doc.path("start_time"));
        long endNanos = seconds(doc.path("end_time"));
        Map<String, String> attributes = new HashMap<>();
        put(attributes, "xray.namespace", doc.path("namespace"));
        put(attributes, "aws.operation", doc.path("aws").path("operation"));
        put(attributes, "aws.table_name", doc.path("aws").path("table_name"));
        put(attributes, "aws.region", doc.path("aws").path("region"));
        put(attributes, "http.request.method", doc.path("http").path("request").path("method"));
        put(attributes, "url.full", doc.path("http").path("request").path("url"));
        put(attributes, "http.response.status_code", doc.path("http").path("response").path("status"));
        put(attributes, "xray.fault", doc.path("fault"));
        put(attributes, "xray.error", doc.path("error"));
        put(attributes, "xray.in_progress", doc.path("in_progress"));
        return new Span(traceId, id, parent, List.of(), service, operation, kind, peer, attributes, startNanos,
                endNanos > startNanos ? endNanos - startNanos : 0, scope);
    }

    private static void put(Map<String, String> m, String key, JsonNode v) {
        if (!v.isMissingNode() && !v.isNull()) {
            m.put(key, v.asText());
        }
    }

    /** Epoch seconds with a fraction → nanoseconds, to the microsecond (X-Ray writes µs precision). */
    private static long seconds(JsonNode n) {
        if (!n.isNumber()) {
            return 0;
        }
        return Math.round(n.doubleValue() * 1_000_000d) * 1_000L;
    }
}
