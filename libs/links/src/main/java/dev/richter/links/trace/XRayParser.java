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
 * same document; otherwise it is skipped ("xray subsegment without its segment"). The instrumentation scope of a
 * segment and of every subsegment in it is the X-Ray SDK that recorded the segment ({@code aws.xray.sdk},
 * {@code aws.xray.sdk_version}, e.g. {@code X-Ray for Java 2.18.1}); an independent subsegment takes its parent's.
 *
 * <p>Times (X-Ray developer guide, "Segment documents", required fields): {@code start_time} is required and
 * {@code end_time} is, unless {@code in_progress} is {@code true}, both epoch seconds as JSON numbers. A segment or
 * subsegment without a numeric {@code start_time}, or without a numeric {@code end_time} while not in progress, is
 * skipped and counted as {@value #NO_TIMES} (read as starting at the epoch it lasted 50 years:
 * segmentValidationFailed.txt of the OpenTelemetry collector); an in-progress one without {@code end_time} has duration
 * 0. A time outside what a {@code long} of epoch nanoseconds holds skips it as {@value EpochNanos#OUT_OF_RANGE}. The
 * (sub)segments under a skipped one are still read: they keep its id as their parent and its service, as an independent
 * subsegment of it does.
 *
 * <p>Ids (X-Ray developer guide, "Segment documents"): {@code trace_id} is {@code 1-<8 hex>-<24 hex>}
 * and becomes 32 hex digits; {@code id} and {@code parent_id} are 16 hex digits. Any other value
 * rejects the document (see {@link TraceIds#xrayTraceId}).
 */
final class XRayParser {
    static final String ORPHAN_SUBSEGMENT = "xray subsegment without its segment";
    static final String NO_TIMES = "xray segment without a numeric start_time or end_time";

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
        // the service and scope of every (sub)segment read, a skipped one too: what its independent subsegments take
        Map<String, Owner> owners = new HashMap<>();
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
            Owner owner = new Owner(service, new InstrumentationScope(sdk.path("sdk").asText(""),
                    sdk.path("sdk_version").asText("")));
            String id = id(doc, "id", d.at());
            String parentId = id(doc, "parent_id", d.at());
            owners.put(traceId + '/' + id, owner);
            Times times = times(doc);
            if (times.skipReason().isEmpty()) {
                spans.add(span(doc, times, traceId, id, out.parentOrRoot(id, parentId), owner, SpanKind.SERVER, "",
                        doc.path("name").asText("")));
            } else {
                out.skip(times.skipReason());
            }
            subsegments(doc, d.at(), traceId, id, owner, spans, owners, out);
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
                Owner owner = owners.get(traceId + '/' + parent);
                if (owner == null) {
                    next.add(d);
                    continue;
                }
                progress = true;
                subsegment(doc, d.at(), traceId, id, parent, owner, spans, owners, out);
            }
            pending = next;
        }
        for (int i = 0; i < pending.size(); i++) {
            out.skip(ORPHAN_SUBSEGMENT);
        }
        spans.forEach(out::add);
    }

    /** The service and instrumentation scope of a segment, which each (sub)segment under it takes. */
    private record Owner(String service, InstrumentationScope scope) {}

    /**
     * A (sub)segment's start and duration in nanoseconds, or the reason it is skipped ({@value #NO_TIMES} or
     * {@value EpochNanos#OUT_OF_RANGE}); {@code skipReason} is empty when the times are read.
     */
    private record Times(long startNanos, long durationNanos, String skipReason) {}

    /** The times of a (sub)segment by the rules of the class comment. */
    private static Times times(JsonNode doc) {
        JsonNode start = doc.path("start_time");
        JsonNode end = doc.path("end_time");
        boolean inProgress = doc.path("in_progress").asBoolean(false);
        if (!start.isNumber() || !(end.isNumber() || inProgress)) {
            return new Times(0, 0, NO_TIMES);
        }
        try {
            long startNanos = EpochNanos.ofSeconds(start.doubleValue());
            long endNanos = end.isNumber() ? EpochNanos.ofSeconds(end.doubleValue()) : startNanos;
            return new Times(startNanos, endNanos > startNanos ? endNanos - startNanos : 0, "");
        } catch (ArithmeticException e) {
            return new Times(0, 0, EpochNanos.OUT_OF_RANGE);
        }
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

    private static void subsegments(JsonNode parentDoc, JsonPath at, String traceId, String parentId, Owner owner,
                                    List<Span> spans, Map<String, Owner> owners, SpanCollector out) {
        int i = 0;
        for (JsonNode sub : parentDoc.path("subsegments")) {
            JsonPath subAt = at.field("subsegments").index(i++);
            subsegment(sub, subAt, traceId, id(sub, "id", subAt), parentId, owner, spans, owners, out);
        }
    }

    /** A subsegment (nested or independent) as a span of its owner's service, unless skipped, then its subsegments. */
    private static void subsegment(JsonNode sub, JsonPath at, String traceId, String id, String parentId, Owner owner,
                                   List<Span> spans, Map<String, Owner> owners, SpanCollector out) {
        owners.put(traceId + '/' + id, owner);
        Times times = times(sub);
        if (times.skipReason().isEmpty()) {
            spans.add(subsegmentSpan(sub, times, traceId, id, out.parentOrRoot(id, parentId), owner));
        } else {
            out.skip(times.skipReason());
        }
        subsegments(sub, at, traceId, id, owner, spans, owners, out);
    }

    private static Span subsegmentSpan(JsonNode sub, Times times, String traceId, String id, String parent, Owner owner) {
        String namespace = sub.path("namespace").asText("");
        boolean remote = "remote".equals(namespace) || "aws".equals(namespace);
        String name = sub.path("name").asText("");
        String operation = name;
        if (remote) {
            String awsOp = sub.path("aws").path("operation").asText("");
            String method = sub.path("http").path("request").path("method").asText("");
            operation = !awsOp.isEmpty() ? awsOp : !method.isEmpty() ? method : name;
        }
        return span(sub, times, traceId, id, parent, owner, remote ? SpanKind.CLIENT : SpanKind.INTERNAL,
                remote ? name : "", operation);
    }

    private static Span span(JsonNode doc, Times times, String traceId, String id, String parent, Owner owner,
                             SpanKind kind, String peer, String operation) {
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
        return new Span(traceId, id, parent, List.of(), owner.service(), operation, kind, peer, attributes,
                times.startNanos(), times.durationNanos(), owner.scope());
    }

    private static void put(Map<String, String> m, String key, JsonNode v) {
        if (!v.isMissingNode() && !v.isNull()) {
            m.put(key, v.asText());
        }
    }
}
