package dev.richter.local;

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
 * its H2 database and Redis) as the system under test, with extra environment: where its agent extension loads its
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
    /** The services, each logging its spans to {@code <run dir>/<service>.log}. */
    public static final List<String> SERVICES = List.of("gateway", "order", "inventory", "payment");

    private final Path root;
    private final Map<String, String> env;

    private Shop(Path root, Map<String, String> env) {
        this.root = root;
        this.env = Map.copyOf(env);
    }

    /**
     * Runs {@code shop.sh start} with {@code env} added to the environment (see examples/shop/README.md);
     * {@link #close()} stops it with the same environment (same ports and run directory).
     *
     * @throws IOException when it does not start (its output says why)
     */
    public static Shop start(Path root, Map<String, String> env) throws IOException, InterruptedException {
        script(root, env, "start");
        return new Shop(root, env);
    }

    /** Real (unmarked) orders {@link #warm} sends. */
    public static final int WARM_ORDERS = 20;

    /**
     * Sends {@value #WARM_ORDERS} real (unmarked) orders through the gateway, one at a time, then waits out order's
     * circuit breaker (open for 5 s). A production service meets a load test warm from its own traffic, while a JVM
     * just started answers its first calls in over a second, past order's 1 s inventory timeout, and its breaker
     * opens. What these orders write is real traffic's: read {@link #ledger} after warming to measure a run.
     */
    public void warm() throws InterruptedException {
        warm(url("gateway"));
    }

    /**
     * {@link #warm()} for a shop already running (started by {@code shop.sh start}, not by {@link #start}) whose gateway
     * answers at {@code gatewayUrl}, e.g. {@code http://127.0.0.1:18080}.
     */
    public static void warm(String gatewayUrl) throws InterruptedException {
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
        Thread.sleep(6_000);
    }

    /** The port of a part, from {@code SHOP_<PART>_PORT} of this shop's environment, else its default. */
    public int port(String part, int defaultPort) {
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

    /** What the shop's database and payment provider hold now ({@link ShopLedger#read}). */
    public ShopLedger ledger() throws IOException, InterruptedException {
        return ShopLedger.read(jdbcUrl(), url("payment"));
    }

    /** The spans the services logged that started in {@code [fromMs, toMs]}, epoch ms. */
    public List<Span> spans(long fromMs, long toMs) {
        return new DirectoryTraceSource(runDir()).spans("", fromMs, toMs);
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
        var doc = DirectoryTraceSource.otlpFromLogs(SERVICES.stream().map(s -> runDir().resolve(s + ".log")).toList());
        if (doc.path("resourceSpans").isEmpty()) {
            return false;
        }
        Files.createDirectories(out.getParent());
        Json.MAPPER.writeValue(out.toFile(), doc);
        return true;
    }

    private static void script(Path root, Map<String, String> env, String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = root.resolve("examples/shop/shop.sh").toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).inheritIO();
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
            script(root, env, "stop");
        } catch (IOException | InterruptedException e) {
            System.err.println("could not stop the shop: " + e.getMessage());
        }
    }
}
