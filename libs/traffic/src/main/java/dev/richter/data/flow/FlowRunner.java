package dev.richter.data.flow;

import dev.richter.common.net.AllowedNetworks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.richter.common.Json;
import dev.richter.common.model.Marker;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;

/**
 * Runs a validated flow N times, with bounded concurrency, into the rows of a data set.
 *
 * <p>Each row runs the flow's units in order, on its own virtual thread; at most {@code concurrency} rows run at
 * once (a semaphore). Every HTTP call carries the load-test marker (for {@code baggage}, the member {@code key=value}
 * first, other members kept; any other header set to the marker's value, as the load driver does) so the service
 * under test writes what it creates to shadow storage, and {@code Idempotency-Key: <dataSetId>#<row>#<unitId>}; a call
 * goes only to a URL under the base URL of a service the team registered ({@link Request#allowedBaseUrls}).
 * A row that fails (a status outside 200-299, a connection error, an expression error or a budget, an output of the
 * wrong type) is kept with its error, naming the unit. Each row is recorded in the {@link RowLedger} as it ends; a
 * run of the same data set skips rows the ledger has as {@code ok} (resume without duplicates) and runs failed and
 * missing ones again. Rows not started by the deadline stay pending: the set is complete when no row is pending.
 */
public final class FlowRunner {
    /** The per-row record a run resumes from ({@link DataSetStore#ledger}). */
    public interface RowLedger {
        /** Every row recorded so far, by index. */
        Map<Integer, DataSet.Row> load();

        /** Records a row as its attempt ended (replacing the previous attempt). */
        void record(DataSet.Row row);
    }

    /**
     * One run.
     *
     * @param rows            how many rows the data set has (1..{@link FlowService#MAX_ROWS})
     * @param concurrency     rows running at once (1..{@link FlowService#MAX_CONCURRENCY})
     * @param inputs          the flow's inputs by name
     * @param allowedBaseUrls the only places HTTP units may call: the base URLs of the team's registered services
     *                        (DESIGN.md §7, load goes only to registered services); a call whose URL is under none of
     *                        them (same scheme, host and port, path below the base path) fails its row unsent
     */
    public record Request(int rows, int concurrency, Map<String, JsonNode> inputs, List<String> allowedBaseUrls) {
        public Request {
            inputs = inputs == null ? Map.of() : Map.copyOf(inputs);
            allowedBaseUrls = allowedBaseUrls == null ? List.of() : List.copyOf(allowedBaseUrls);
        }
    }

    /** Whether {@code uri} is under one of {@code baseUrls} (scheme, host case-insensitive, port, path prefix). */
    static boolean allowed(URI uri, List<String> baseUrls) {
        for (String b : baseUrls) {
            URI base;
            try {
                base = URI.create(b);
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (base.getScheme() == null || base.getHost() == null || uri.getScheme() == null || uri.getHost() == null) {
                continue;
            }
            String basePath = base.getRawPath() == null || base.getRawPath().isEmpty() ? "/" : base.getRawPath();
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            boolean under = path.equals(basePath) || path.startsWith(basePath.endsWith("/") ? basePath : basePath + "/");
            if (base.getScheme().equalsIgnoreCase(uri.getScheme()) && base.getHost().equalsIgnoreCase(uri.getHost())
                    && port(base) == port(uri) && under) {
                return true;
            }
        }
        return false;
    }

    private static int port(URI u) {
        return u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    /**
     * What a run did ({@code FlowRunResult} in openapi.json).
     *
     * @param dataSetId     the data set
     * @param complete      every row was attempted (the set is stored)
     * @param rows          rows asked for
     * @param ok            rows that succeeded, this run and before
     * @param failed        rows kept with their error
     * @param resumed       rows skipped because an earlier run had them {@code ok}
     * @param ran           rows this run attempted
     * @param pending       rows not attempted (deadline) or not recorded (a ledger write failed): run again
     * @param durationMs    wall time of this run, milliseconds
     * @param rowsPerSecond rows this run attempted per second of {@code durationMs}
     */
    public record Result(String dataSetId, boolean complete, int rows, int ok, int failed, int resumed, int ran,
                         int pending, long durationMs, double rowsPerSecond) {}

    /**
     * A run's result and, when complete, all rows in order.
     *
     * @param result what the run did
     * @param rows   every row by index when {@code result.complete()}, else empty
     */
    public record RunOutcome(Result result, List<DataSet.Row> rows) {}

    private final HttpClient http;
    private final Expressions expressions;
    private final Marker marker;
    private final Duration callTimeout;
    private final LongSupplier clockMs;
    private final AllowedNetworks networks;

    /** As {@link #FlowRunner(HttpClient, Expressions, Marker, Duration, LongSupplier, AllowedNetworks)} with the deployment's networks ({@link AllowedNetworks#fromEnv}). */
    public FlowRunner(HttpClient http, Expressions expressions, Marker marker, Duration callTimeout, LongSupplier clockMs) {
        this(http, expressions, marker, callTimeout, clockMs, AllowedNetworks.fromEnv());
    }

    /**
     * @param http        the client every unit call goes through (its own connect timeout)
     * @param expressions the sandbox's budgets
     * @param marker      the load-test marker (the team's, or {@link Marker#DEFAULT})
     * @param callTimeout longest time one HTTP call may take (capped by the run's deadline)
     * @param clockMs     epoch milliseconds
     * @param networks    where a unit call may go: its host is checked at each call, on what it resolves to then
     *                    ({@link AllowedNetworks#refusal}); a refused call is not sent and fails its unit
     */
    public FlowRunner(HttpClient http, Expressions expressions, Marker marker, Duration callTimeout, LongSupplier clockMs,
                      AllowedNetworks networks) {
        this.http = http;
        this.expressions = expressions;
        this.marker = marker;
        this.callTimeout = callTimeout;
        this.clockMs = clockMs;
        this.networks = networks;
    }

    /** This runner with another marker (a run's own). */
    public FlowRunner withMarker(Marker other) {
        return new FlowRunner(http, expressions, other, callTimeout, clockMs, networks);
    }

    /** The marker every HTTP call of this runner carries. */
    public Marker marker() {
        return marker;
    }

    /**
     * Checks the run's inputs against the flow's declared inputs.
     *
     * @throws FlowValidator.InvalidFlowException at {@code $.inputs.<name>} for a missing, undeclared or mistyped input
     */
    public static void checkInputs(Flow flow, Map<String, JsonNode> inputs) {
        List<FlowValidator.FieldProblem> problems = new ArrayList<>();
        flow.inputs().forEach((name, type) -> {
            JsonNode v = inputs.get(name);
            SlotType t = SlotType.parse(type).orElseThrow();
            if (v == null || v.isNull()) {
                problems.add(new FlowValidator.FieldProblem("$.inputs." + name, "required: the flow declares input '" + name + "' (" + type + ")"));
            } else if (!t.holds(v)) {
                problems.add(new FlowValidator.FieldProblem("$.inputs." + name, "type mismatch: a " + SlotType.kindOf(v) + ", the flow takes a " + type));
            }
        });
        inputs.keySet().stream().filter(k -> !flow.inputs().containsKey(k))
                .forEach(k -> problems.add(new FlowValidator.FieldProblem("$.inputs." + k, "unknown slot: the flow declares no input '" + k + "'")));
        if (!problems.isEmpty()) {
            throw new FlowValidator.InvalidFlowException(problems);
        }
    }

    /**
     * Runs (or resumes) {@code dataSetId}'s rows.
     *
     * @param deadlineMs epoch milliseconds after which no row starts
     * @throws FlowValidator.InvalidFlowException for bad inputs ({@link #checkInputs}); nothing ran then
     */
    public RunOutcome run(FlowValidator.Checked checked, String dataSetId, Request request, RowLedger ledger, long deadlineMs) {
        checkInputs(checked.flow(), request.inputs());
        long startMs = clockMs.getAsLong();
        Map<Integer, DataSet.Row> before = ledger.load();
        Map<Integer, DataSet.Row> done = new ConcurrentHashMap<>(before);
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger unrecorded = new AtomicInteger();
        int resumed = 0;
        int notStarted = 0;
        Semaphore slots = new Semaphore(request.concurrency());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int row = 0; row < request.rows(); row++) {
                DataSet.Row prior = before.get(row);
                if (prior != null && prior.ok()) {
                    resumed++;
                    continue;
                }
                if (clockMs.getAsLong() >= deadlineMs) {
                    notStarted++;
                    continue;
                }
                slots.acquireUninterruptibly();
                if (clockMs.getAsLong() >= deadlineMs) {
                    slots.release();
                    notStarted++;
                    continue;
                }
                int index = row;
                int attempts = prior == null ? 1 : prior.attempts() + 1;
                pool.submit(() -> {
                    try {
                        DataSet.Row result = runRow(checked, dataSetId, index, attempts, request.inputs(), request.allowedBaseUrls(), deadlineMs);
                        ran.incrementAndGet();
                        try {
                            ledger.record(result);
                            done.put(index, result);
                        } catch (RuntimeException e) {
                            unrecorded.incrementAndGet();
                            done.remove(index);
                        }
                    } finally {
                        slots.release();
                    }
                });
            }
            pool.shutdown();
            try {
                pool.awaitTermination(Math.max(1, deadlineMs - clockMs.getAsLong()) + callTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long durationMs = Math.max(1, clockMs.getAsLong() - startMs);
        int ok = 0;
        int failed = 0;
        List<DataSet.Row> rows = new ArrayList<>();
        for (int row = 0; row < request.rows(); row++) {
            DataSet.Row r = done.get(row);
            if (r != null) {
                rows.add(r);
                if (r.ok()) {
                    ok++;
                } else {
                    failed++;
                }
            }
        }
        int pending = request.rows() - rows.size();
        Result result = new Result(dataSetId, pending == 0, request.rows(), ok, failed, resumed, ran.get(), pending,
                durationMs, Math.round(ran.get() * 1000.0 / durationMs * 10) / 10.0);
        return new RunOutcome(result, pending == 0 ? rows : List.of());
    }

    private DataSet.Row runRow(FlowValidator.Checked checked, String dataSetId, int row, int attempts,
                               Map<String, JsonNode> inputs, List<String> allowedBaseUrls, long deadlineMs) {
        Flow flow = checked.flow();
        Map<String, JsonNode> values = new HashMap<>();
        inputs.forEach((k, v) -> values.put("input." + k, v));
        values.put("gen.row", IntNode.valueOf(row));
        values.put("gen.uuid", TextNode.valueOf(UUID.randomUUID().toString()));
        values.put("gen.timestampMs", LongNode.valueOf(clockMs.getAsLong()));
        String key = dataSetId + "#" + row;
        for (int u : checked.order()) {
            Flow.Step step = flow.units().get(u);
            ObjectNode in = Json.MAPPER.createObjectNode();
            step.inputs().forEach((slot, src) -> in.set(slot, values.get(src)));
            try {
                Map<String, JsonNode> out = switch (step.unit().kind()) {
                    case "http" -> call(step, in, key + "#" + step.id(), deadlineMs, allowedBaseUrls);
                    case "transform" -> transform(step, in);
                    default -> throw new IllegalStateException("unknown kind " + step.unit().kind());
                };
                out.forEach((slot, v) -> values.put(step.id() + "." + slot, v));
            } catch (UnitFailure | Expressions.ExpressionException e) {
                return new DataSet.Row(row, key, "failed", true, Map.of(), "unit " + step.id() + ": " + e.getMessage(),
                        attempts, clockMs.getAsLong());
            }
        }
        Map<String, JsonNode> columns = new LinkedHashMap<>();
        flow.columns().forEach((col, src) -> columns.put(col, values.get(src)));
        return new DataSet.Row(row, key, "ok", true, columns, null, attempts, clockMs.getAsLong());
    }

    private Map<String, JsonNode> transform(Flow.Step step, ObjectNode in) {
        JsonNode result = expressions.evaluate(step.unit().expression(), in);
        if (!result.isObject()) {
            throw new UnitFailure("the expression yields a " + SlotType.kindOf(result) + ", not an object of the outputs");
        }
        Map<String, JsonNode> out = new LinkedHashMap<>();
        step.unit().outputs().forEach((slot, type) -> out.put(slot, typed(slot, type, result.get(slot))));
        return out;
    }

    private Map<String, JsonNode> call(Flow.Step step, ObjectNode in, String idempotencyKey, long deadlineMs, List<String> allowedBaseUrls) {
        LogicUnit unit = step.unit();
        String url = render(unit.url(), in);
        long leftMs = Math.max(1, Math.min(callTimeout.toMillis(), deadlineMs + callTimeout.toMillis() - clockMs.getAsLong()));
        HttpRequest.Builder req;
        URI uri;
        try {
            uri = URI.create(url);
            req = HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(leftMs));
        } catch (IllegalArgumentException e) {
            throw new UnitFailure("URL '" + url + "' is not valid: " + e.getMessage());
        }
        if (!allowed(uri, allowedBaseUrls)) {
            throw new UnitFailure(unit.method() + " " + url + " not sent: it is under no base URL of a service the team "
                    + "registered (POST /services)");
        }
        Optional<String> refused = networks.refusal(uri.getHost());
        if (refused.isPresent()) {
            throw new UnitFailure(unit.method() + " " + url + " not sent: " + refused.get() + " (AllowedNetworks)");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        unit.headers().forEach((name, template) -> headers.put(name, render(template, in)));
        byte[] body = null;
        if (unit.body() != null) {
            JsonNode b = expressions.evaluate(unit.body(), in);
            if (b.isTextual()) {
                body = b.asText().getBytes(StandardCharsets.UTF_8);
            } else {
                body = Json.write(b).getBytes(StandardCharsets.UTF_8);
                if (headers.keySet().stream().noneMatch(h -> h.equalsIgnoreCase("content-type"))) {
                    headers.put("content-type", "application/json");
                }
            }
        }
        try {
            withMarker(headers, marker).forEach(req::header);
            req.header("Idempotency-Key", idempotencyKey);
        } catch (IllegalArgumentException e) {
            throw new UnitFailure("a header the client sets itself or an invalid header: " + e.getMessage());
        }
        req.method(unit.method(), body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<InputStream> response;
        byte[] responseBody;
        try {
            response = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream stream = response.body()) {
                responseBody = stream.readNBytes(expressions.maxInputBytes() + 1);
            }
        } catch (IOException e) {
            throw new UnitFailure(unit.method() + " " + url + " failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnitFailure(unit.method() + " " + url + " interrupted");
        }
        if (response.statusCode() < 200 || response.statusCode() > 299) {
            throw new UnitFailure("HTTP " + response.statusCode() + " from " + unit.method() + " " + url);
        }
        ObjectNode view = Json.MAPPER.createObjectNode();
        view.put("status", response.statusCode());
        ObjectNode h = view.putObject("headers");
        response.headers().map().forEach((name, list) -> {
            if (!list.isEmpty()) {
                h.put(name.toLowerCase(Locale.ROOT), list.get(0));
            }
        });
        if (responseBody.length > expressions.maxInputBytes()) {
            throw new UnitFailure("the response body of " + unit.method() + " " + url + " is over "
                    + expressions.maxInputBytes() + " bytes (the expressions' input budget); it was not read further");
        }
        String text = new String(responseBody, StandardCharsets.UTF_8);
        JsonNode parsed;
        try {
            parsed = text.isBlank() ? TextNode.valueOf(text) : Json.MAPPER.readTree(text);
        } catch (IOException e) {
            parsed = TextNode.valueOf(text);
        }
        view.set("body", parsed);
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (var e : unit.extract().entrySet()) {
            try {
                out.put(e.getKey(), typed(e.getKey(), unit.outputs().get(e.getKey()), expressions.evaluate(e.getValue(), view)));
            } catch (Expressions.ExpressionException ex) {
                throw new UnitFailure("extract " + e.getKey() + ": " + ex.getMessage());
            }
        }
        return out;
    }

    private static JsonNode typed(String slot, String type, JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            throw new UnitFailure("output " + slot + " is missing (the expression yields nothing)");
        }
        if (!SlotType.parse(type).orElseThrow().holds(value)) {
            throw new UnitFailure("output " + slot + " is a " + SlotType.kindOf(value) + ", declared " + type);
        }
        return value;
    }

    /** {@code {{slot}}} replaced by the input's text (a string as is, any other value as JSON). */
    static String render(String template, ObjectNode in) {
        Matcher m = FlowValidator.PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            JsonNode v = in.get(m.group(1));
            m.appendReplacement(out, Matcher.quoteReplacement(v == null ? "" : v.isTextual() ? v.asText() : Json.write(v)));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * {@code headers} with the marker applied: for {@code baggage}, {@code key=value} first, then its proof ({@link
     * Marker#PROOF_MEMBER}) when it has one, and every other member of an existing header kept (one with the marker's
     * key or the proof's dropped); any other header set to the marker's value.
     */
    static Map<String, String> withMarker(Map<String, String> headers, Marker marker) {
        Map<String, String> out = new LinkedHashMap<>();
        String existing = null;
        for (var h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(marker.header())) {
                existing = h.getValue();
            } else {
                out.put(h.getKey(), h.getValue());
            }
        }
        if (marker.header().equalsIgnoreCase("baggage")) {
            StringBuilder v = new StringBuilder(marker.key()).append('=').append(marker.value());
            if (marker.proof() != null) {
                v.append(',').append(Marker.PROOF_MEMBER).append('=').append(marker.proof());
            }
            if (existing != null) {
                for (String member : existing.split(",")) {
                    String m = member.strip();
                    int eq = m.indexOf('=');
                    String key = eq > 0 ? m.substring(0, eq).strip() : "";
                    if (!m.isEmpty() && eq > 0 && !key.equals(marker.key()) && !key.equals(Marker.PROOF_MEMBER)) {
                        v.append(',').append(m);
                    }
                }
            }
            out.put(marker.header(), v.toString());
        } else {
            out.put(marker.header(), marker.value());
        }
        return out;
    }

    /** A unit's failure, kept as the row's error. */
    private static final class UnitFailure extends RuntimeException {
        UnitFailure(String message) {
            super(message, null, false, false);
        }
    }
}
