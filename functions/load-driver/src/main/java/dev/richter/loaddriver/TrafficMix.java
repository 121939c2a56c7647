package dev.richter.loaddriver;

import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import java.net.URI;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The weighted scenario mix of one worker, with every replayed request prepared once (marker merged,
 * deadline set).
 *
 * <p>Scenario choice is deterministic smooth weighted round-robin (the nginx upstream algorithm): over
 * any window of {@code W} picks each scenario gets its weight share to within one request, with no
 * randomness to skew a short step. Within a scenario requests are replayed round-robin. Not
 * thread-safe: used only by the scheduler thread.
 *
 * <p>A scenario that draws from data sets, or whose requests hold generators ({@link RequestTemplate}), has its
 * requests parsed once here and rendered per send: for each bound data set one row is drawn per request
 * ({@code unique} and {@code sequential}: the next row of the worker's rows, starting over at the end, counted in
 * {@link #rowsReused()} for {@code unique}; {@code random}: a uniformly random row), then the rendered request is
 * prepared. Scenarios without placeholders are prepared once, as before, and allocate nothing per send.
 */
public final class TrafficMix {
    /**
     * A prepared request, its scenario's name and how its answers are judged.
     *
     * @param check the request's expectation ({@link ResponseCheck#NONE} for a request without one)
     */
    public record Entry(String scenario, HttpTransport.PreparedRequest request, ResponseCheck check) {}

    private final List<String> names = new ArrayList<>();
    private final double[] weights;
    private final double[] current;
    private final double totalWeight;
    private final List<List<HttpTransport.PreparedRequest>> prepared = new ArrayList<>();
    /** Per scenario, per request: its compiled expectation. */
    private final List<List<ResponseCheck>> checks = new ArrayList<>();
    private final int[] nextRequest;
    private final HttpTransport transport;
    /** Per scenario: its templates and row cursors, or null for a scenario prepared once. */
    private final List<Templated> templated = new ArrayList<>();
    private long rowsReused;

    /** A scenario rendered per send. */
    private static final class Templated {
        final List<RequestTemplate> requests;
        final List<Scenario.DataRows> data;
        final int[] cursor;
        final SplittableRandom random = new SplittableRandom();
        long seq;

        Templated(List<RequestTemplate> requests, List<Scenario.DataRows> data) {
            this.requests = requests;
            this.data = data;
            this.cursor = new int[data.size()];
        }
    }

    /**
     * @param scenarios        scenarios with weight &gt; 0 and at least one request (others are ignored)
     * @param marker           marker merged into every request
     * @param requestTimeoutMs deadline of each request, milliseconds
     * @param transport        prepares the requests
     * @throws IllegalArgumentException when no scenario has a positive weight and a request, or a
     *                                  request is malformed (bad URI, bad base64 body, an expectation whose JSONPath or
     *                                  regular expression does not compile)
     */
    public TrafficMix(List<Scenario> scenarios, Marker marker, int requestTimeoutMs, HttpTransport transport) {
        this.transport = transport;
        List<Double> ws = new ArrayList<>();
        for (Scenario s : scenarios) {
            if (!(s.weight() > 0) || s.requests().isEmpty()) {
                continue;
            }
            List<HttpTransport.PreparedRequest> ps = new ArrayList<>();
            boolean templatedScenario = !s.data().isEmpty() || s.requests().stream().anyMatch(RequestTemplate::isTemplated);
            List<RequestTemplate> templates = new ArrayList<>();
            List<ResponseCheck> cs = new ArrayList<>();
            for (ReplayRequest r : s.requests()) {
                cs.add(ResponseCheck.of(r.expect()));
                if (templatedScenario) {
                    RequestTemplate t = RequestTemplate.parse(s, r, marker, requestTimeoutMs);
                    templates.add(t);
                    ps.add(transport.prepare(t.render(List.of(), 0, 0))); // for sendLoop(): the transport's loop
                } else {
                    ps.add(transport.prepare(toOutbound(s.targetBaseUrl(), r, marker, requestTimeoutMs)));
                }
            }
            templated.add(templatedScenario ? new Templated(templates, s.data()) : null);
            names.add(s.name());
            ws.add(s.weight());
            prepared.add(ps);
            checks.add(cs);
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("scenarios: no scenario with weight > 0 and at least one request");
        }
        weights = ws.stream().mapToDouble(Double::doubleValue).toArray();
        current = new double[weights.length];
        totalWeight = ws.stream().mapToDouble(Double::doubleValue).sum();
        nextRequest = new int[weights.length];
    }

    /** The next request of the mix. */
    public Entry next() {
        int best = 0;
        for (int s = 0; s < weights.length; s++) {
            current[s] += weights[s];
            if (current[s] > current[best]) {
                best = s;
            }
        }
        current[best] -= totalWeight;
        List<HttpTransport.PreparedRequest> ps = prepared.get(best);
        int i = nextRequest[best];
        nextRequest[best] = (i + 1) % ps.size();
        Templated t = templated.get(best);
        ResponseCheck check = checks.get(best).get(i);
        if (t == null) {
            return new Entry(names.get(best), ps.get(i), check);
        }
        return new Entry(names.get(best), transport.prepare(t.requests.get(i).render(draw(t), t.seq++, System.currentTimeMillis())),
                check);
    }

    /** One row of each bound data set for the next request of {@code t}. */
    private List<List<String>> draw(Templated t) {
        List<List<String>> values = new ArrayList<>(t.data.size());
        for (int b = 0; b < t.data.size(); b++) {
            Scenario.DataRows rows = t.data.get(b);
            int n = rows.rows().size();
            if (n == 0) {
                values.add(null);
                continue;
            }
            int row;
            if (rows.mode().equals("random")) {
                row = t.random.nextInt(n);
            } else {
                row = t.cursor[b] % n;
                if (t.cursor[b] >= n && rows.mode().equals("unique")) {
                    rowsReused++;
                }
                t.cursor[b]++;
            }
            values.add(rows.rows().get(row));
        }
        return values;
    }

    /**
     * Sends that reused a row of a {@code unique} data set because this worker's rows ran out (the set was smaller
     * than the step's requests); 0 when every unique row went out at most once.
     */
    public long rowsReused() {
        return rowsReused;
    }

    /**
     * Starts opening, to each target of the mix, the connections {@code inFlight} requests at once need
     * ({@link HttpTransport.PreparedRequest#preconnect}); sends nothing, returns at once.
     *
     * @param inFlight requests in flight to carry at once, ≥ 0
     */
    public void preconnect(int inFlight) {
        for (List<HttpTransport.PreparedRequest> ps : prepared) {
            for (HttpTransport.PreparedRequest p : ps) {
                p.preconnect(inFlight);
            }
        }
    }

    /**
     * The most requests the mix's transport carries at once to every one of its targets
     * ({@link HttpTransport.PreparedRequest#inFlightCapacity}, the least over the mix's requests), requests;
     * {@link Integer#MAX_VALUE} when unbounded.
     */
    public int inFlightCapacity() {
        int capacity = Integer.MAX_VALUE;
        for (List<HttpTransport.PreparedRequest> ps : prepared) {
            for (HttpTransport.PreparedRequest p : ps) {
                capacity = Math.min(capacity, p.inFlightCapacity());
            }
        }
        return capacity;
    }

    /**
     * The send loop shared by every prepared request of the mix ({@link HttpTransport.PreparedRequest#sendLoop});
     * empty when any request has none or they differ.
     */
    public Optional<ArrivalScheduler.TimerLoop> sendLoop() {
        ArrivalScheduler.TimerLoop loop = null;
        for (List<HttpTransport.PreparedRequest> ps : prepared) {
            for (HttpTransport.PreparedRequest p : ps) {
                Optional<ArrivalScheduler.TimerLoop> l = p.sendLoop();
                if (l.isEmpty() || (loop != null && loop != l.get())) {
                    return Optional.empty();
                }
                loop = l.get();
            }
        }
        return Optional.ofNullable(loop);
    }

    /**
     * Resolves a replayed request: URI = base URL + path (one slash between), body decoded from base64,
     * marker applied with {@link #withMarker}.
     *
     * @throws IllegalArgumentException on a bad URI or base64 body
     */
    public static OutboundRequest toOutbound(String targetBaseUrl, ReplayRequest r, Marker marker, int timeoutMs) {
        String base = targetBaseUrl == null ? "" : targetBaseUrl;
        String path = r.path() == null || r.path().isEmpty() ? "/" : r.path();
        if (base.endsWith("/") && path.startsWith("/")) {
            base = base.substring(0, base.length() - 1);
        } else if (!base.endsWith("/") && !path.startsWith("/")) {
            path = "/" + path;
        }
        byte[] body = r.bodyBase64() == null || r.bodyBase64().isEmpty()
                ? new byte[0] : Base64.getDecoder().decode(r.bodyBase64());
        String method = r.method() == null || r.method().isBlank() ? "GET" : r.method();
        return new OutboundRequest(URI.create(base + path), method, withMarker(r.headers(), marker), body, timeoutMs,
                HttpTransport.Capture.of(r.expect()));
    }

    /**
     * Applies the marker to a header map. For the {@code baggage} header the marker member is merged into
     * an existing {@code baggage} header (matched case-insensitively) with {@link Baggage#merge}, keeping
     * every other valid member, followed by its proof ({@link Marker#PROOF_MEMBER}) when it has one; for any other header name the header is set to {@code marker.value()},
     * replacing a header of the same name.
     *
     * @return a new ordered map; the input is not changed
     */
    public static Map<String, String> withMarker(Map<String, String> headers, Marker marker) {
        Map<String, String> out = new LinkedHashMap<>();
        String existing = null;
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(marker.header())) {
                existing = h.getValue();
            } else {
                out.put(h.getKey(), h.getValue());
            }
        }
        if (marker.header().equalsIgnoreCase("baggage")) {
            // with a proof, it is merged first and then the marker: each merge puts its member in front and drops an
            // earlier one of its key
            String withProof = marker.proof() == null ? existing
                    : Baggage.merge(existing, Marker.PROOF_MEMBER, marker.proof());
            out.put(marker.header(), Baggage.merge(withProof, marker.key(), marker.value()));
        } else {
            out.put(marker.header(), marker.value());
        }
        return out;
    }
}
