package dev.richter.links.source;

import dev.richter.links.trace.Span;
import dev.richter.links.trace.TraceDocuments;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.xray.XRayClient;
import software.amazon.awssdk.services.xray.model.BatchGetTracesRequest;
import software.amazon.awssdk.services.xray.model.GetTraceSummariesRequest;

/**
 * Spans from the AWS X-Ray API: {@code GetTraceSummaries} for the window (paginated), then
 * {@code BatchGetTraces} in batches of {@value #BATCH} trace ids (the API's limit); every segment
 * document is parsed as X-Ray segments by {@link TraceDocuments}.
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
    public List<Span> spans(String teamId, long fromEpochMs, long toEpochMs) {
        List<String> ids = new ArrayList<>();
        xray.getTraceSummariesPaginator(GetTraceSummariesRequest.builder()
                        .startTime(Instant.ofEpochMilli(fromEpochMs)).endTime(Instant.ofEpochMilli(toEpochMs)).build())
                .traceSummaries().forEach(s -> ids.add(s.id()));
        List<String> documents = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += BATCH) {
            xray.batchGetTracesPaginator(BatchGetTracesRequest.builder().traceIds(ids.subList(i, Math.min(ids.size(), i + BATCH))).build())
                    .traces().forEach(t -> t.segments().forEach(seg -> documents.add(seg.document())));
        }
        if (documents.isEmpty()) {
            return List.of();
        }
        byte[] array = ("[" + String.join(",", documents) + "]").getBytes(StandardCharsets.UTF_8);
        return TraceDocuments.parse("xray " + Instant.ofEpochMilli(fromEpochMs) + ".." + Instant.ofEpochMilli(toEpochMs), array).spans();
    }

    @Override
    public String describe() {
        return "xray";
    }
}
