package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The LocalStack path ({@code ./richter stack --localstack}, {@code local/localstack.sh}): without LocalStack it stops
 * at once with a message saying what to start; with a LocalStack on {@code :4566} (a Docker engine) it deploys the
 * template and the demo writes its report there. The second test is skipped, with its reason printed, on machines
 * without one (the build machines).
 */
class LocalStackPathIT {
    static final Path ROOT = LocalAwsStack.rootFromEnv();

    private static Process script(String endpoint) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("bash", ROOT.resolve("local/localstack.sh").toString()).redirectErrorStream(true);
        pb.environment().put("LOCALSTACK_ENDPOINT", endpoint);
        return pb.start();
    }

    @Test
    void withoutLocalStackTheScriptStopsAndSaysWhatToStart() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Process p = script("http://127.0.0.1:" + closed);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("no LocalStack answers on http://127.0.0.1:" + closed) && out.contains("localstack start"), out);
    }

    @Test
    void withLocalStackTheTemplateDeploysAndTheDemoWritesItsReport() throws Exception {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 4566), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up) {
            System.out.println("LocalStackPathIT: skipped: no LocalStack answers on 127.0.0.1:4566 (no Docker engine here)");
        }
        Assumptions.assumeTrue(up, "no LocalStack answers on 127.0.0.1:4566 (no Docker engine here)");
        Process p = script("http://localhost:4566");
        assertTrue(p.waitFor(30, TimeUnit.MINUTES));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        String report = out.lines().filter(l -> l.startsWith("report: ") && l.endsWith("report.json")).findFirst().orElseThrow();
        assertTrue(Files.exists(Path.of(report.substring("report: ".length()))), out);
    }
}
