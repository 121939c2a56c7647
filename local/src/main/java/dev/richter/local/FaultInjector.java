package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The local stack's armed {@link LocalFaults}, replaceable at run time ({@link #set}, {@link #clear}), and the count of
 * every fault fired so far ({@link #fired}). {@link LambdaHost} and {@link EventBusCapture} ask it at each call
 * ({@link #select}); the DynamoDB rules are handed to {@code local/node/dynalite.cjs} at its control endpoint
 * ({@code POST /__richter/faults}), which decides and counts them itself.
 *
 * <p>Every fault that fires is logged (the progress log, {@code FAULT injected: ...}) and appended as one JSON line to
 * the faults file ({@code <workDir>/faults.jsonl}), written before the faulty answer is sent:
 * {@code {"atMs": <epoch ms>, "component": "lambda"|"dynamodb"|"events", "target": "<function, table or bus>",
 * "operation": "Invoke"|"<DynamoDB operation>"|"PutEvents", "kind": "error|timeout|throttle|crash|internal|fail|partial",
 * "n": <times this rule fired so far>, "rule": "<the rule's key>"}}. {@code atMs} is when the fault took effect: the
 * call's arrival, except a {@code crash} (the cut) and a {@code timeout} (the arrival; its answer comes the function's
 * {@code Timeout} later). dynalite appends its own lines to the same file (each line one {@code O_APPEND} write, so
 * lines of the two processes never interleave).
 *
 * <p>Thread-safe. Counts start at zero at each {@link #set}: {@code @nth:} and {@code @from:} count calls from then.
 */
public final class FaultInjector {
    /** Path of dynalite.cjs's control endpoint. */
    public static final String DYNALITE_CONTROL_PATH = "/__richter/faults";

    private final Path file;
    private final Object fileLock = new Object();
    private final Consumer<String> log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private volatile Armed armed;
    /** Functions and tables a rule may name (null: not checked), logical id → physical name for tables. */
    private Set<String> functions;
    private Map<String, String> tables = Map.of();
    private volatile URI dynalite;
    /** dynalite's last answered counts, kept for {@link #fired()} once it is gone. */
    private final Map<String, Long> lastDynamoDbFired = new LinkedHashMap<>();

    /** The faults armed now, with a counter pair per rule. */
    private record Armed(LocalFaults faults, Map<LocalFaults.Rule, AtomicLong[]> counts) {
        Armed(LocalFaults faults) {
            this(faults, counters(faults));
        }

        private static Map<LocalFaults.Rule, AtomicLong[]> counters(LocalFaults f) {
            Map<LocalFaults.Rule, AtomicLong[]> m = new LinkedHashMap<>();
            f.rules().forEach(r -> m.put(r, new AtomicLong[] {new AtomicLong(), new AtomicLong()}));
            return m;
        }
    }

    /**
     * A fault {@link #select}ed for one call; {@link #fire} it when it takes effect.
     *
     * @param rule   the rule that selected the call
     * @param target the call's function, table or bus
     */
    public record Selected(LocalFaults.Rule rule, String target) {}

    /**
     * @param faults the faults armed at first
     * @param file   the faults file lines are appended to (created with its directories), or null for none
     * @param log    where each fired fault and each {@link #set} is logged
     */
    public FaultInjector(LocalFaults faults, Path file, Consumer<String> log) {
        this.file = file;
        this.log = log;
        this.armed = new Armed(faults);
    }

    /** No faults, no file, no log: what a host built without a stack uses. */
    public static FaultInjector none() {
        return new FaultInjector(LocalFaults.NONE, null, line -> { });
    }

    /**
     * Restricts the rules to the template's functions and tables from now on: a rule naming another is refused (a
     * typo would otherwise never fire).
     *
     * @param functionIds the function logical ids
     * @param tableNames  table logical id → physical name
     * @throws IllegalArgumentException when the armed faults name another
     */
    public synchronized void targets(Set<String> functionIds, Map<String, String> tableNames) {
        this.functions = Set.copyOf(functionIds);
        this.tables = Map.copyOf(tableNames);
        check(armed.faults());
    }

    /**
     * Hands the DynamoDB rules to dynalite at {@code endpoint} now and at every later {@link #set}.
     *
     * @param endpoint dynalite's base URL ({@code http://127.0.0.1:<port>})
     * @throws IllegalStateException when dynalite does not take them
     */
    public synchronized void attachDynamoDb(URI endpoint) {
        this.dynalite = endpoint;
        pushDynamoDb(armed.faults());
    }

    /**
     * Stops handing rules to dynalite (it is about to stop), keeping its last counts for {@link #fired()}. A later
     * {@link #set} arms the DynamoDB rules nowhere.
     */
    public synchronized void detachDynamoDb() {
        if (dynalite != null) {
            fired();
            dynalite = null;
        }
    }

    /** The faults armed now. */
    public LocalFaults current() {
        return armed.faults();
    }

    /**
     * Arms {@code faults} in place of the current ones, with every count back at zero (here and in dynalite).
     *
     * @throws IllegalArgumentException naming the rule when it names a function or table the template lacks
     * @throws IllegalStateException    when dynalite does not take the DynamoDB rules
     */
    public synchronized void set(LocalFaults faults) {
        check(faults);
        pushDynamoDb(faults);
        armed = new Armed(faults);
        synchronized (lastDynamoDbFired) {
            lastDynamoDbFired.clear();
        }
        log.accept(faults.isEmpty() ? "local faults cleared" : "FAULTS ARMED: " + faults.describe());
    }

    /** Arms no faults. */
    public void clear() {
        set(LocalFaults.NONE);
    }

    private void check(LocalFaults faults) {
        for (LocalFaults.Rule r : faults.rulesOf(LocalFaults.Component.LAMBDA)) {
            if (functions != null && !LocalFaults.ANY.equals(r.target()) && !functions.contains(r.target())) {
                throw new IllegalArgumentException(LocalFaults.ENV_VAR + ": '" + r.key() + "' names no function of template.yaml (known: "
                        + String.join(", ", new TreeSet<>(functions)) + ")");
            }
        }
        if (functions != null) {
            faults.dynamoDbConfig(tables);
        }
    }

    private void pushDynamoDb(LocalFaults faults) {
        if (dynalite == null) {
            return;
        }
        String body = Json.write(faults.dynamoDbConfig(tables));
        // The whole configuration is sent each time (idempotent), so a pooled connection that Node closed while idle
        // (its 5 s keep-alive timeout: "connection reset", "header parser received no bytes") is simply sent again.
        for (int attempt = 1; ; attempt++) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(dynalite.resolve(DYNALITE_CONTROL_PATH))
                        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("dynalite refused the faults (" + r.statusCode() + "): " + r.body());
                }
                return;
            } catch (IOException e) {
                if (attempt >= 3) {
                    throw new IllegalStateException("dynalite's fault endpoint did not answer: " + e, e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while arming dynalite's faults", e);
            }
        }
    }

    /**
     * Counts one call of {@code component} to {@code target} / {@code operation} against every matching rule and
     * returns the first rule (spec order) whose trigger selects it. Does not fire it: call {@link #fire} when the fault
     * takes effect (a crash only when its delay passes with the handler still running).
     */
    public Optional<Selected> select(LocalFaults.Component component, String target, String operation) {
        Armed a = armed;
        if (a.faults().isEmpty()) {
            return Optional.empty();
        }
        Selected chosen = null;
        for (var e : a.counts().entrySet()) {
            LocalFaults.Rule r = e.getKey();
            if (r.component() != component || !r.matches(target, operation)) {
                continue;
            }
            long k = e.getValue()[0].incrementAndGet();
            if (chosen == null && r.trigger().selects(k, a.faults().seed(), r.key())) {
                chosen = new Selected(r, target);
            }
        }
        return Optional.ofNullable(chosen);
    }

    /**
     * Records that {@code s} took effect: counts it, logs {@code FAULT injected: ...} and appends its faults.jsonl line.
     *
     * @param operation the call's operation ({@code Invoke}, {@code PutEvents})
     * @return the rule's fired count, this one included
     */
    public long fire(Selected s, String operation) {
        AtomicLong[] c = armed.counts().get(s.rule());
        long n = c == null ? 1 : c[1].incrementAndGet();   // null: the rule was replaced since it selected the call
        long atMs = System.currentTimeMillis();
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("atMs", atMs);
        line.put("component", s.rule().component().id());
        line.put("target", s.target());
        line.put("operation", operation);
        line.put("kind", s.rule().kind().id());
        line.put("n", n);
        line.put("rule", s.rule().key());
        append(Json.write(line));
        log.accept("FAULT injected: " + s.rule().component().id() + " " + s.target() + " " + operation + " " + s.rule().kind().id()
                + " (rule " + s.rule() + ", n=" + n + ")");
        return n;
    }

    private void append(String json) {
        if (file == null) {
            return;
        }
        byte[] bytes = (json + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (fileLock) {
            try {
                Files.createDirectories(file.toAbsolutePath().getParent());
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                    ByteBuffer buf = ByteBuffer.wrap(bytes);
                    while (buf.hasRemaining()) {
                        ch.write(buf);
                    }
                }
            } catch (IOException e) {
                log.accept("faults file " + file + " not written: " + e);
            }
        }
    }

    /**
     * When the first fault that fired at or after {@code fromMs} fired, epoch ms, from the faults file every
     * component appends to (Java, dynalite and the Step Functions server: {@code {"atMs", ...}} per line); empty when
     * none did, or there is no file.
     *
     * @throws IOException when the file cannot be read
     */
    public OptionalLong firstFiredAtMs(long fromMs) throws IOException {
        if (file == null || !Files.exists(file)) {
            return OptionalLong.empty();
        }
        OptionalLong first = OptionalLong.empty();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank()) {
                continue;
            }
            long at = Json.MAPPER.readTree(line).path("atMs").asLong();
            if (at >= fromMs && (first.isEmpty() || at < first.getAsLong())) {
                first = OptionalLong.of(at);
            }
        }
        return first;
    }

    /**
     * How many times each armed rule fired since it was set, by {@link LocalFaults.Rule#key()} in spec order; the
     * DynamoDB rules' counts come from dynalite ({@code GET /__richter/faults}), or are the last it gave when it no
     * longer answers.
     */
    public Map<String, Long> fired() {
        Armed a = armed;
        Map<String, Long> out = new LinkedHashMap<>();
        a.counts().forEach((r, c) -> out.put(r.key(), c[1].get()));
        if (!a.faults().rulesOf(LocalFaults.Component.DYNAMODB).isEmpty()) {
            synchronized (lastDynamoDbFired) {
                dynamoDbFired().ifPresent(m -> {
                    lastDynamoDbFired.clear();
                    lastDynamoDbFired.putAll(m);
                });
                lastDynamoDbFired.forEach((k, v) -> {
                    if (out.containsKey(k)) {
                        out.put(k, v);
                    }
                });
            }
        }
        return out;
    }

    private Optional<Map<String, Long>> dynamoDbFired() {
        URI endpoint = dynalite;
        if (endpoint == null) {
            return Optional.empty();
        }
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(endpoint.resolve(DYNALITE_CONTROL_PATH))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return Optional.empty();
            }
            Map<String, Long> m = new LinkedHashMap<>();
            for (JsonNode rule : Json.MAPPER.readTree(r.body()).path("rules")) {
                m.put(rule.path("key").asText(), rule.path("fired").asLong());
            }
            return Optional.of(m);
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
