package dev.richter.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import dev.richter.common.Json;
import dev.richter.links.source.DirectoryTraceSource;
import java.util.concurrent.TimeUnit;

/**
 * Starts and stops the demo shop ({@code examples/shop/shop.sh}) as the system under test, optionally
 * with extra environment: a variant ({@code SHOP_BREAK_ASYNC_MARKER=1}, {@code SHOP_MOCKS_URL=...}), other
 * ports ({@code SHOP_ORDER_PORT}...), or another run directory ({@code SHOP_RUN_DIR}: pid files and the
 * services' logs with the agent's span exports).
 */
public final class Shop implements AutoCloseable {
    /** Default ports of the shop's services (see examples/shop). */
    public static final int ORDER_PORT = 18081;
    public static final int INVENTORY_PORT = 18082;
    public static final int PAYMENT_PORT = 18083;
    public static final int GATEWAY_PORT = 18080;
    /** The shop's database (H2 in server mode) and its Redis. */
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

    /** Runs {@code shop.sh start}; throws when it fails (its output says why). */
    public static Shop start(Path root) throws IOException, InterruptedException {
        return start(root, Map.of());
    }

    /**
     * Runs {@code shop.sh start} with {@code env} added to the environment (see examples/shop/README.md);
     * {@link #close()} stops it with the same environment (same ports and run directory).
     */
    public static Shop start(Path root, Map<String, String> env) throws IOException, InterruptedException {
        script(root, env, "start");
        return new Shop(root, env);
    }

    /**
     * Writes the spans the shop's services logged (the agent's {@code logging-otlp} lines in
     * {@code examples/shop/target/run/<service>.log}) as one OTLP JSON document.
     *
     * @return false when there were none (then nothing is written)
     */
    public static boolean exportSpans(Path root, Path out) throws IOException {
        Path run = root.resolve("examples/shop/target/run");
        var doc = DirectoryTraceSource.otlpFromLogs(SERVICES.stream().map(s -> run.resolve(s + ".log")).toList());
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
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
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
