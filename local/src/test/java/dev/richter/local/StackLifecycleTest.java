package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How {@code ./richter stack} tells it is ready and how it stops: the ready check against a real socket, the stop on
 * SIGTERM and SIGINT in a real JVM (a child process running {@link StackMain}'s shutdown path around a stand-in stack),
 * and {@code ./richter wait}, docs/local-stack.md's way to wait for the stack before the first request.
 */
class StackLifecycleTest {
    private static final Path RICHTER = Path.of("../richter").toAbsolutePath().normalize();

    /** Whether the scripted API answers {@code GET /openapi.json} with 200 (else 503, as a stack still starting). */
    private final AtomicBoolean answering = new AtomicBoolean(false);
    private HttpServer server;

    @BeforeEach
    void startScriptedApi() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        server.createContext("/openapi.json", ex -> {
            try (ex) {
                byte[] b = "{\"openapi\":\"3.1.0\"}".getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(answering.get() ? 200 : 503, b.length);
                ex.getResponseBody().write(b);
            }
        });
        server.start();
    }

    @AfterEach
    void stopScriptedApi() {
        server.stop(0);
    }

    private String api() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void theReadyCheckWaitsUntilTheApiAnswersAndGivesUpAtItsDeadline() throws Exception {
        Thread.ofPlatform().start(() -> {
            sleep(600);
            answering.set(true);
        });
        long readyNs = System.nanoTime();
        assertTrue(StackMain.apiAnswers(URI.create(api()), Duration.ofSeconds(10)), "answers once /openapi.json is 200");
        assertTrue(System.nanoTime() - readyNs >= TimeUnit.MILLISECONDS.toNanos(500), "not before");

        long startNs = System.nanoTime();
        assertFalse(StackMain.apiAnswers(URI.create("http://127.0.0.1:" + freePort()), Duration.ofMillis(800)),
                "nothing listens");
        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(5), "gives up at its deadline");
    }

    /** A JVM running {@link StackMain#stopOnShutdown} around {@link StandInStack}; its output lines. */
    private static List<String> signalled(String signal) throws Exception {
        Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StandInStack.class.getName())
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            assertEquals("stand-in up", line);
            new ProcessBuilder("kill", "-" + signal, String.valueOf(jvm.pid())).inheritIO().start().waitFor();
            while ((line = out.readLine()) != null) {
                lines.add(line);
            }
        } finally {
            assertTrue(jvm.waitFor(20, TimeUnit.SECONDS), "the JVM exits");
        }
        return lines;
    }

    /**
     * Whether this JVM was started with SIGINT ignored (as commands a non-interactive shell starts with {@code &} are):
     * its children inherit that, and a JVM keeps an ignored SIGINT ignored.
     */
    private static boolean sigintIgnored() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & (1L << (2 - 1))) != 0;
            }
        }
        return false;
    }

    @Test
    void termAndIntSayTheStackIsStoppingStopItsPartsAndSaySoWhenDone() throws Exception {
        for (String signal : sigintIgnored() ? List.of("TERM") : List.of("TERM", "INT")) {
            assertEquals(List.of("stopping the local stack (its processes and servers)...", "stand-in closed",
                    "local stack stopped"), signalled(signal), signal);
        }
    }

    private static Process richter(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bash", RICHTER.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return pb.start();
    }

    private static String output(Process p) throws Exception {
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return text.strip();
    }

    @Test
    void richterWaitReturnsWhenTheApiAnswers() throws Exception {
        Process wait = richter("wait", "--api", api(), "--timeout-s", "30");
        sleep(1500);
        assertTrue(wait.isAlive(), "still waiting while the API answers 503");
        answering.set(true);
        assertEquals("local stack ready: " + api() + " answers", output(wait));
        assertEquals(0, wait.exitValue());
    }

    @Test
    void richterWaitFailsAtOnceWhenTheStackItWaitsForHasExitedAndAtItsTimeout() throws Exception {
        String api = "http://127.0.0.1:" + freePort();
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        long startNs = System.nanoTime();
        Process wait = richter("wait", "--api", api, "--pid", String.valueOf(gone.pid()), "--timeout-s", "60");
        assertEquals("richter wait: the stack (pid " + gone.pid() + ") exited before " + api
                + " answered: see its output", output(wait));
        assertEquals(1, wait.exitValue());
        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(20), "at once, not at the timeout");

        Process late = richter("wait", "--api", api, "--timeout-s", "1");
        assertEquals("richter wait: " + api + "/openapi.json did not answer within 1 s", output(late));
        assertEquals(1, late.exitValue());

        Process bad = richter("wait", "--nope");
        assertEquals("usage: ./richter wait [--pid PID] [--timeout-s N] [--api URL]", output(bad));
        assertEquals(2, bad.exitValue());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A JVM whose "stack" is a stand-in that prints when closed, stopped the way {@link StackMain} stops its stack. */
    static final class StandInStack {
        public static void main(String[] args) throws InterruptedException {
            StackMain.stopOnShutdown(() -> System.out.println("stand-in closed"), System.out);
            System.out.println("stand-in up");
            Thread.sleep(30_000);
        }
    }
}
