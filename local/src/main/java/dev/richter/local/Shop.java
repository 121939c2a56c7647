package dev.richter.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Starts and stops the demo shop ({@code examples/shop/shop.sh}) as the system under test. */
public final class Shop implements AutoCloseable {
    /** Default ports of the shop's services (see examples/shop). */
    public static final int ORDER_PORT = 18081;
    public static final int INVENTORY_PORT = 18082;
    public static final int PAYMENT_PORT = 18083;

    private final Path root;

    private Shop(Path root) {
        this.root = root;
    }

    /** Runs {@code shop.sh start}; throws when it fails (its output says why). */
    public static Shop start(Path root) throws IOException, InterruptedException {
        script(root, "start");
        return new Shop(root);
    }

    /** Writes the shop's spans as one OTLP JSON document; false when there were none. */
    public static boolean exportSpans(Path root, Path out) throws IOException, InterruptedException {
        Files.createDirectories(out.getParent());
        script(root, "spans", out.toString());
        return Files.exists(out) && Files.size(out) > 0;
    }

    private static void script(Path root, String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = root.resolve("examples/shop/shop.sh").toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).directory(root.toFile()).inheritIO().start();
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("examples/shop/shop.sh " + String.join(" ", args) + " failed");
        }
    }

    @Override
    public void close() {
        try {
            script(root, "stop");
        } catch (IOException | InterruptedException e) {
            System.err.println("could not stop the shop: " + e.getMessage());
        }
    }
}
