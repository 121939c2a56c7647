package dev.richter.links.source;

import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanRef;
import dev.richter.links.trace.TraceDocuments;
import dev.richter.links.trace.TraceFormatException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.xray.XRayClient;
import software.amazon.awssdk.services.xray.model.BatchGetTracesRequest;
import software.amazon.awssdk.services.xray.model.GetTraceSummariesRequest;

/**
 * Spans from the AWS X-Ray API: {@code GetTraceSummaries} for the window (paginated), then
 * {@code BatchGetTraces} in batches of {@value #BATCH} trace ids (the API's limit); each trace's segment
 * documents are parsed together as X-Ray segments by {@link TraceDocuments} (an independent subsegment joins its
 * segment within the trace). A trace whose documents are rejected is listed in {@link TraceRead#unreadable()} as
 * {@code trace <id>: <reason>}, and the other traces are read; so are the ids {@code BatchGetTraces} reports as
 * unprocessed.
 *
 * <p>X-Ray is per account and region, not per team: the team filter is left to the caller's scope
 * (the checks and the link builder keep what concerns the team's registered services).
 */
public final class XRayTraceSource implements TraceSource {
    /** {@code BatchGetTraces} takes at most 5 trace ids per call. */
    public static final int BATCH = 5;
    private final XRayClient xray;

    /** @param xray client; honours {@code AWS_ENDPOINT_URL_XRAY} like every Richter client */
    public XRayTraceSource(XRayClient xray) {
        this.xray = xray;
    }

    @Override
    public TraceRead read(String teamId, long fromEpochMs, long toEpochMs) {
        List<String> ids = new ArrayList<>();
        xray.getTraceSummariesPaginator(GetTraceSummariesRequest.builder()
                        .startTime(Instant.ofEpochMilli(fromEpochMs)).endTime(Instant.ofEpochMilli(toEpochMs)).build())
                .traceSummaries().forEach(s -> ids.add(s.id()));
        Map<SpanRef, Span> spans = new LinkedHashMap<>();
        List<String> unreadable = new ArrayList<>();
        String window = Instant.ofEpochMilli(fromEpochMs) + ".." + Instant.ofEpochMilli(toEpochMs);
        for (int i = 0; i < ids.size(); i += BATCH) {
            xray.batchGetTracesPaginator(BatchGetTracesRequest.builder().traceIds(ids.subList(i, Math.min(ids.size(), i + BATCH))).build())
                    .forEach(page -> {
                        page.traces().forEach(t -> {
                            List<String> documents = new ArrayList<>();
                            t.segments().forEach(seg -> documents.add(seg.document()));
                            if (documents.isEmpty()) {
                                return;
                            }
                            byte[] array = ("[" + String.join(",", documents) + "]").getBytes(StandardCharsets.UTF_8);
                            try {
                                TraceDocuments.parse("xray trace " + t.id() + " " + window, array).spans()
                                        .forEach(s -> spans.putIfAbsent(new SpanRef(s.traceId(), s.spanId()), s));
                            } catch (TraceFormatException | IllegalArgumentException e) {
                                unreadable.add("trace " + t.id() + ": " + e.getMessage());
                            }
                        });
                        page.unprocessedTraceIds().forEach(id -> unreadable.add("trace " + id + ": BatchGetTraces left it unprocessed"));
                    });
        }
        return new TraceRead(new ArrayList<>(spans.values()), unreadable);
    }

    @Override
    public String describe() {
        return "xray";
    }
}
