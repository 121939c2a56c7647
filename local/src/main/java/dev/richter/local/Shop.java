package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import dev.richter.links.source.DirectoryTraceSource;
import dev.richter.links.trace.Span;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts and stops the demo shop ({@code examples/shop/shop.sh}: gateway, order, inventory, payment on Spring Boot,
 * its H2 database, Redis and DynamoDB) as the system under test, with extra environment: where its agent extension loads its
 * isolation ({@code SHOP_ISOLATION_URL}, {@code SHOP_ISOLATION_TOKEN}), a variant ({@code SHOP_AUDIT_RESERVATIONS=1},
 * {@code SHOP_FRAUD_URL=...}, {@code SHOP_ASYNC_PAYMENT=1}), other ports ({@code SHOP_GATEWAY_PORT}...), or another run
 * directory ({@code SHOP_RUN_DIR}: pid files and the services' logs with the agent's span exports).
 */
public final class Shop implements AutoCloseable {
    /** Default ports of the shop's parts (examples/shop/README.md). */
    public static final int GATEWAY_PORT = 18080;
    public static final int ORDER_PORT = 18081;
    public static final int INVENTORY_PORT = 18082;
    public static final int PAYMENT_PORT = 18083;
    public static final int DB_PORT = 18092;
    public static final int REDIS_PORT = 18093;
    public static final int DYNAMODB_PORT = 18096;
    /** The services, each logging its spans to {@code <run dir>/<service>.log}. */
    public static final List<String> SERVICES = List.of("gateway", "order", "inventory", "payment");

    private final Path root;
    private final Map<String, String> env;
    private final ProcessBuilder.Redirect output;

    private Shop(Path root, Map<String, String> env, ProcessBuilder.Redirect output) {
        this.root = root;
        this.env = Map.copyOf(env);
        this.output = output;
    }

    /**
     * Runs {@code shop.sh start} with {@code env} added to the environment (see examples/shop/README.md), its output
     * inherited; {@link #close()} stops it with the same environment (same ports and run directory).
     *
     * @throws IOException when it does not start (its output says why)
     */
    public static Shop start(Path root, Map<String, String> env) throws IOException, InterruptedException {
        return start(root, env, ProcessBuilder.Redirect.INHERIT);
    }

    /**
     * {@link #start(Path, Map)} with the script's output (of its start and its stop) sent to {@code output}, e.g. the
     * demo's log file.
     */
    public static Shop start(Path root, Map<String, String> env, ProcessBuilder.Redirect output)
            throws IOException, InterruptedException {
        script(root, env, output, "start");
        return new Shop(root, env, output);
    }

    /**
     * This shop with {@code services} (some of {@link #SERVICES}) stopped and started again with {@code env} as the
     * environment, e.g. order with a variant of its configuration; the other services, the database and Redis keep
     * running (and keep what they hold). The returned shop stops with {@code env}; this one is not to be used after.
     * Restarting one JVM takes a third of the time of the whole shop on 2 cores.
     *
     * @param env the whole new environment; its ports and run directory must be this shop's
     * @throws IllegalArgumentException when {@code services} names a part that is not a service, or {@code env}
     *     moves a port or the run directory (the parts kept running would be elsewhere)
     * @throws IOException when a service does not stop or start (its output says why)
     */
    public Shop restart(Map<String, String> env, List<String> services) throws IOException, InterruptedException {
        for (String svc : services) {
            if (!SERVICES.contains(svc)) {
                throw new IllegalArgumentException("no shop service " + svc + " (one of " + SERVICES + ")");
            }
        }
        for (String key : java.util.stream.Stream.concat(this.env.keySet().stream(), env.keySet().stream()).toList()) {
            if ((key.endsWith("_PORT") || key.equals("SHOP_RUN_DIR"))
                    && !java.util.Objects.equals(this.env.get(key), env.get(key))) {
                throw new IllegalArgumentException("a restart keeps the shop's " + key + " (" + this.env.get(key)
                        + "), not " + env.get(key));
            }
        }
        String[] stop = new String[services.size() + 1];
        stop[0] = "stop";
        for (int i = 0; i < services.size(); i++) {
            stop[i + 1] = services.get(i);
        }
        script(root, this.env, output, stop);
        script(root, env, output, "start");
        return new Shop(root, env, output);
    }

    /** Real (unmarked) orders {@link #warm} sends. */
    public static final int WARM_ORDERS = 20;

    /**
     * Sends {@value #WARM_ORDERS} real (unmarked) orders through the gateway, one at a time, then waits out order's
     * circuit breaker (open for 5 s) when they opened it. A production service meets a load test warm from its own
     * traffic, while a JVM just started answers its first calls in over a second, past order's 1 s inventory timeout,
     * and its breaker opens. What these orders write is real traffic's: read {@link #ledger} after warming to measure a
     * run.
     */
    public void warm() throws InterruptedException {
        warm(url("gateway"), url("order"));
    }

    /**
     * {@link #warm()} for a shop already running (started by {@code shop.sh start}, not by {@link #start}) whose gateway
     * answers at {@code gatewayUrl}, e.g. {@code http://127.0.0.1:18080}; not knowing order's address, it waits the
     * breaker's 6 s whether it opened or not.
     */
    public static void warm(String gatewayUrl) throws InterruptedException {
        warm(gatewayUrl, null);
    }

    /** How long a breaker the warming opened is waited out: its 5 s open state, and a second more. */
    static final Duration BREAKER_WAIT = Duration.ofSeconds(6);

    private static void warm(String gatewayUrl, String orderUrl) throws InterruptedException {
        var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < WARM_ORDERS; i++) {
            try {
                http.send(HttpRequest.newBuilder(URI.create(gatewayUrl + "/orders"))
                        .timeout(Duration.ofSeconds(5)).header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"A1\",\"qty\":1}")).build(),
                        HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                // a cold shop may time out a warming call: that is what warming is for
            }
        }
        if (orderUrl == null || !breakerClosed(http, orderUrl)) {
            Thread.sleep(BREAKER_WAIT.toMillis());
        }
    }

    /**
     * True when order's scrape says its inventory breaker is closed ({@code
     * resilience4j_circuitbreaker_state{name="inventory",state="closed"} 1.0}); false when it is not, or the scrape
     * cannot be read or does not say.
     */
    static boolean breakerClosed(HttpClient http, String orderUrl) throws InterruptedException {
        try {
            String scrape = http.send(HttpRequest.newBuilder(URI.create(orderUrl + "/actuator/prometheus"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
            return breakerClosed(scrape);
        } catch (IOException e) {
            return false;
        }
    }

    /** {@link #breakerClosed(HttpClient, String)} of a Prometheus text scrape. */
    static boolean breakerClosed(String scrape) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith("resilience4j_circuitbreaker_state{") && line.contains("name=\"inventory\"")
                    && line.contains("state=\"closed\"")) {
                return line.substring(line.lastIndexOf('}') + 1).trim().startsWith("1");
            }
        }
        return false;
    }

    /** The port of a part, from {@code SHOP_<PART>_PORT} of this shop's environment, else its default. */
    public int port(String part, int defaultPort) {
        return port(env, part, defaultPort);
    }

    /** The port of a part, from {@code SHOP_<PART>_PORT} of {@code env} (a shop's environment), else its default. */
    public static int port(Map<String, String> env, String part, int defaultPort) {
        return Integer.parseInt(env.getOrDefault("SHOP_" + part.toUpperCase(java.util.Locale.ROOT) + "_PORT",
                String.valueOf(defaultPort)));
    }

    /** The base URL of a service on loopback, e.g. {@code http://127.0.0.1:18080} for {@code gateway}. */
    public String url(String service) {
        int port = switch (service) {
            case "gateway" -> port("gateway", GATEWAY_PORT);
            case "order" -> port("order", ORDER_PORT);
            case "inventory" -> port("inventory", INVENTORY_PORT);
            case "payment" -> port("payment", PAYMENT_PORT);
            default -> throw new IllegalArgumentException("no shop service " + service);
        };
        return "http://127.0.0.1:" + port;
    }

    /** The shop's database URL (H2 in server mode). */
    public String jdbcUrl() {
        return "jdbc:h2:tcp://127.0.0.1:" + port("db", DB_PORT) + "/shop";
    }

    /** The directory of the services' logs, with the agent's span exports. */
    public Path runDir() {
        String dir = env.get("SHOP_RUN_DIR");
        return dir == null ? root.resolve("examples/shop/target/run") : Path.of(dir);
    }

    /** What the shop's stores and counters hold now ({@link ShopLedger#read}). */
    public ShopLedger ledger() throws IOException, InterruptedException {
        return ShopLedger.read(new ShopLedger.Sources(jdbcUrl(), "http://127.0.0.1:" + port("dynamodb", DYNAMODB_PORT),
                "redis://127.0.0.1:" + port("redis", REDIS_PORT), url("inventory"), url("payment")));
    }

    /**
     * The spans the services logged that started in {@code [fromMs, toMs]}, epoch ms.
     *
     * @throws IllegalStateException when part of the logs could not be read: a test would judge on part of the spans
     */
    public List<Span> spans(long fromMs, long toMs) {
        dev.richter.links.source.TraceRead read = new DirectoryTraceSource(runDir()).read("", fromMs, toMs);
        if (!read.whole()) {
            throw new IllegalStateException("the shop's span logs hold unreadable parts: " + read.unreadable());
        }
        return read.spans();
    }

    /** How many of {@code spans} carry a refusal of Richter's agent extension ({@code richter.refused}). */
    public static long refused(List<Span> spans) {
        return spans.stream().filter(s -> s.attributes().containsKey("richter.refused")).count();
    }

    /**
     * Writes the spans the services logged (the agent's {@code logging-otlp} lines in {@code <run dir>/<service>.log})
     * as one OTLP JSON document.
     *
     * @return false when there were none (then nothing is written)
     */
    public boolean exportSpans(Path out) throws IOException {
        var doc = exportSpans();
        if (doc.path("resourceSpans").isEmpty()) {
            return false;
        }
        Files.createDirectories(out.getParent());
        Json.MAPPER.writeValue(out.toFile(), doc);
        return true;
    }

    /** The spans the services logged, as one OTLP JSON document ({@code resourceSpans} empty when there were none). */
    public ObjectNode exportSpans() {
        return DirectoryTraceSource.otlpFromLogs(SERVICES.stream().map(s -> runDir().resolve(s + ".log")).toList());
    }

    /**
     * How many spans of the OTLP JSON document {@code otlp} that started in {@code [fromMs, toMs]} (epoch ms) carry a
     * refusal of Richter's agent extension (attribute {@code richter.refused}): {@link #refused(List)} without parsing
     * the spans again.
     */
    public static long refused(JsonNode otlp, long fromMs, long toMs) {
        long count = 0;
        for (JsonNode rs : otlp.path("resourceSpans")) {
            for (JsonNode ss : rs.path("scopeSpans")) {
                for (JsonNode span : ss.path("spans")) {
                    long startMs = Long.parseLong(span.path("startTimeUnixNano").asText("0")) / 1_000_000L;
                    if (startMs < fromMs || startMs > toMs) {
                        continue;
                    }
                    for (JsonNode a : span.path("attributes")) {
                        if (a.path("key").asText().equals("richter.refused")) {
                            count++;
                            break;
                        }
                    }
                }
            }
        }
        return count;
    }

    private static void script(Path root, Map<String, String> env, ProcessBuilder.Redirect output, String... args)
            throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = root.resolve("examples/shop/shop.sh").toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectInput(ProcessBuilder.Redirect.INHERIT)
                .redirectOutput(output).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(420, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("examples/shop/shop.sh " + String.join(" ", args) + " failed");
        }
    }

    @Override
    public void close() {
        try {
            script(root, env, output, "stop");
        } catch (IOException | InterruptedException e) {
            System.err.println("could not stop the shop: " + e.getMessage());
        }
    }
}
