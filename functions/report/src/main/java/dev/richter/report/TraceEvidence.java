package dev.richter.report;

import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Marker;
import dev.richter.common.model.MarkerAttributes;
import dev.richter.links.graph.Dimension;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.HdrHistogram.Histogram;

/**
 * What the run's marked traces say per step and entry: how many downstream calls one entry request caused (retry
 * amplification), how long the entry took (bulkheads) and which services it reached.
 *
 * <p>A trace counts for the step in whose window its root started; its root is a span without parent in the trace,
 * of kind SERVER, CONSUMER or unspecified, that carries the marker ({@link MarkerAttributes}); traces whose root is not
 * in the batch (still being exported) are left out. Downstream calls of a trace are its outgoing calls to services
 * (CLIENT spans that are no datastore call), or, when the callers are not instrumented, its spans that received a call
 * from a parent (SERVER, CONSUMER with a parent), whichever is more. Database, cache and messaging client spans
 * ({@link #datastoreCall}) are no call to a service and never count.
 *
 * <p>Retries are counted as the OTel Java agent records them: its HTTP client instrumentation writes one CLIENT span
 * per attempt, each a child of the same caller span. So a retry is a repeated CLIENT span (no datastore call) with
 * the same parent span, operation, peer and URL ({@code url.full}, or the old {@code http.url}) within one trace:
 * {@code n} such spans are {@code n - 1} retries.
 *
 * <p>Self-time per service: each span's duration less the time covered by its children (the union of the children's
 * intervals clipped to the span, so parallel children are not subtracted twice), summed per service that recorded
 * the span, over the step's marked traces, divided by those traces: milliseconds of its own work per entry request.
 * A CLIENT span's self-time (the wait for an answer not covered by the callee's SERVER span: connection, queueing,
 * network) is its caller's.
 *
 * @param read   false when no trace was read (no trace source, or it failed): {@link #note()} says why
 * @param source the source read, for evidence text
 * @param note   why nothing was read, or {@code ""}
 * @param steps  per step with at least one marked trace, in run order
 */
public record TraceEvidence(boolean read, String source, String note, List<StepTraces> steps) {
    public TraceEvidence {
        steps = steps == null ? List.of() : List.copyOf(steps);
    }

    /** Nothing read, and why (e.g. {@code "no trace source configured for team t1"}). */
    public static TraceEvidence notRead(String why) {
        return new TraceEvidence(false, "", why, List.of());
    }

    /** The step's traces, if any were seen. */
    public Optional<StepTraces> step(String stage, int stepIndex) {
        return steps.stream().filter(s -> s.stage().equals(stage) && s.stepIndex() == stepIndex).findFirst();
    }

    /**
     * @param stage     stage
     * @param stepIndex step within the stage, 0-based
     * @param entries   per entry interface node ({@code service operation}), by name
     * @param selfMsPerRequest service to its self-time per marked trace of the step, milliseconds, by name
     */
    public record StepTraces(String stage, int stepIndex, List<EntryTraces> entries, Map<String, Double> selfMsPerRequest) {
        public StepTraces {
            entries = List.copyOf(entries);
            selfMsPerRequest = selfMsPerRequest == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(selfMsPerRequest));
        }

        /** Marked entry requests (traces) of the step. */
        public long traces() {
            return entries.stream().mapToLong(EntryTraces::traces).sum();
        }

        /** Downstream calls of the step's traces. */
        public long calls() {
            return entries.stream().mapToLong(EntryTraces::downstreamCalls).sum();
        }

        /** Downstream calls per entry request, 0 without traces. */
        public double callsPerRequest() {
            return traces() == 0 ? 0 : (double) calls() / traces();
        }

        /** The entry's traces at this step, if it had any. */
        public Optional<EntryTraces> entry(String entry) {
            return entries.stream().filter(e -> e.entry().equals(entry)).findFirst();
        }
    }

    /**
     * @param entry           the entry's interface node, e.g. {@code order POST /orders}
     * @param traces          marked traces rooted at it
     * @param downstreamCalls calls to services below the root, summed over its traces
     * @param retries         repeated CLIENT spans to the same operation from the same parent, summed over its traces
     * @param p50Ms           median duration of the root span, milliseconds
     * @param p99Ms           99th percentile duration of the root span, milliseconds
     * @param services        every service its traces reached (span services and called peers), sorted
     */
    public record EntryTraces(String entry, long traces, long downstreamCalls, long retries, double p50Ms, double p99Ms,
                              List<String> services) {}

    /**
     * True when the span is a database, cache or messaging client call (semantic conventions {@code db.system},
     * {@code db.system.name}, {@code messaging.system}), which is no call to a service and no retry.
     */
    static boolean datastoreCall(Span s) {
        Map<String, String> a = s.attributes();
        return a.containsKey("db.system") || a.containsKey("db.system.name") || a.containsKey("messaging.system");
    }

    /** Repeated CLIENT spans of one trace with the same parent, operation, peer and URL: {@code n} of them are {@code n - 1} retries. */
    static long retries(List<Span> trace) {
        Map<String, Long> attempts = new HashMap<>();
        for (Span s : trace) {
            if (s.kind() == SpanKind.CLIENT && s.hasParent() && !datastoreCall(s)) {
                String url = s.attributes().getOrDefault("url.full", s.attributes().getOrDefault("http.url", ""));
                attempts.merge(s.parentSpanId() + '\n' + s.operation() + '\n' + s.peerService() + '\n' + url, 1L, Long::sum);
            }
        }
        return attempts.values().stream().mapToLong(n -> n - 1).sum();
    }

    /**
     * A step's time window.
     *
     * @param stage      stage
     * @param stepIndex  step within the stage
     * @param fromMs     epoch ms of its first due time
     * @param toMs       epoch ms when its last worker finished
     */
    public record StepWindow(String stage, int stepIndex, long fromMs, long toMs) {}

    /**
     * Groups {@code spans} into traces, keeps the marked ones and sums them per step window and entry.
     *
     * @param source  the source the spans came from, for evidence text
     * @param spans   spans of the run's time span (any order, any traces)
     * @param windows the steps' windows; a trace whose root started in none is left out
     * @param marker  the run's marker
     */
    public static TraceEvidence of(String source, List<Span> spans, List<StepWindow> windows, Marker marker) {
        Map<String, List<Span>> byTrace = new HashMap<>();
        for (Span s : spans) {
            byTrace.computeIfAbsent(s.traceId(), k -> new ArrayList<>()).add(s);
        }
        Map<StepWindow, Map<String, EntryTotals>> perStep = new LinkedHashMap<>();
        Map<StepWindow, Map<String, Long>> selfNanos = new HashMap<>();
        windows.forEach(w -> perStep.put(w, new TreeMap<>()));
        for (List<Span> trace : byTrace.values()) {
            Span root = null;
            for (Span s : trace) {
                boolean rootKind = s.kind() == SpanKind.SERVER || s.kind() == SpanKind.CONSUMER || s.kind() == SpanKind.UNSPECIFIED;
                if (!s.hasParent() && rootKind && (root == null || s.startEpochNanos() < root.startEpochNanos())) {
                    root = s;
                }
            }
            if (root == null || !MarkerAttributes.carries(root.attributes(), marker)) {
                continue;
            }
            long startMs = root.startEpochNanos() / 1_000_000;
            StepWindow window = windows.stream().filter(w -> startMs >= w.fromMs() && startMs <= w.toMs()).findFirst().orElse(null);
            if (window == null) {
                continue;
            }
            long outgoing = 0;
            long received = 0;
            Set<String> services = new TreeSet<>();
            for (Span s : trace) {
                services.add(s.service());
                if (!s.peerService().isEmpty() && s.kind().makesCall()) {
                    services.add(s.peerService());
                }
                if (s.kind().makesCall() && !datastoreCall(s)) {
                    outgoing++;
                } else if (s.kind().receivesCall() && s.hasParent()) {
                    received++;
                }
            }
            String entry = Dimension.interfaceNode(root.service(), root.operation());
            EntryTotals acc = perStep.get(window).computeIfAbsent(entry, e -> new EntryTotals());
            acc.traces++;
            acc.calls += Math.max(outgoing, received);
            acc.retries += retries(trace);
            acc.services.addAll(services);
            acc.durationsUs.recordValue(Math.max(1, Math.min(HistogramCodec.HIGHEST_TRACKABLE_US, root.durationNanos() / 1000)));
            Map<String, Long> self = selfNanos.computeIfAbsent(window, w -> new HashMap<>());
            selfNanosByService(trace).forEach((service, ns) -> self.merge(service, ns, Long::sum));
        }
        List<StepTraces> out = new ArrayList<>();
        perStep.forEach((w, entries) -> {
            if (entries.isEmpty()) {
                return;
            }
            List<EntryTraces> list = new ArrayList<>();
            entries.forEach((entry, acc) -> list.add(new EntryTraces(entry, acc.traces, acc.calls, acc.retries,
                    acc.durationsUs.getValueAtPercentile(50) / 1000.0, acc.durationsUs.getValueAtPercentile(99) / 1000.0,
                    List.copyOf(acc.services))));
            long traces = entries.values().stream().mapToLong(e -> e.traces).sum();
            Map<String, Double> selfMs = new TreeMap<>();
            selfNanos.getOrDefault(w, Map.of()).forEach((service, ns) -> selfMs.put(service, ns / 1e6 / traces));
            out.add(new StepTraces(w.stage(), w.stepIndex(), list, selfMs));
        });
        return new TraceEvidence(true, source, "", out);
    }

    /**
     * Self-time of one trace's spans summed per service, nanoseconds: each span's duration less the union of its
     * children's intervals clipped to it (children are the spans of the trace naming it as parent).
     */
    static Map<String, Long> selfNanosByService(List<Span> trace) {
        Map<String, List<Span>> children = new HashMap<>();
        for (Span s : trace) {
            if (s.hasParent()) children.computeIfAbsent(s.parentSpanId(), k -> new ArrayList<>()).add(s);
        }
        Map<String, Long> out = new TreeMap<>();
        for (Span s : trace) {
            long start = s.startEpochNanos();
            long end = start + s.durationNanos();
            List<long[]> spans = new ArrayList<>();
            for (Span c : children.getOrDefault(s.spanId(), List.of())) {
                long from = Math.max(start, c.startEpochNanos());
                long to = Math.min(end, c.startEpochNanos() + c.durationNanos());
                if (to > from) spans.add(new long[] {from, to});
            }
            spans.sort((a, b) -> Long.compare(a[0], b[0]));
            long covered = 0;
            long reach = Long.MIN_VALUE;
            for (long[] iv : spans) {
                long from = Math.max(iv[0], reach);
                if (iv[1] > from) covered += iv[1] - from;
                reach = Math.max(reach, iv[1]);
            }
            out.merge(s.service(), Math.max(0, s.durationNanos() - covered), Long::sum);
        }
        return out;
    }

    /** What the traces of one entry in one step window add up to. */
    private static final class EntryTotals {
        long traces;
        long calls;
        long retries;
        final Set<String> services = new TreeSet<>();
        final Histogram durationsUs = HistogramCodec.newLatencyHistogramUs();
    }
}
