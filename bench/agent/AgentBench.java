import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.context.Scope;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Per-call cost of the Richter agent extension, run by {@code bench/agent.sh}. Three roles:
 * <ul>
 *   <li>{@code server}: a JDK {@code HttpServer} on an ephemeral loopback port (run without any agent), answering
 *       every request {@code 200 ok}; prints {@code PORT <port>} and serves until killed;</li>
 *   <li>{@code client <port> <label>}: run under the OpenTelemetry agent alone or the agent with the extension; reads
 *       {@code <warmup|round> <kind>} lines, makes the kind's calls (JDK {@code HttpClient.send}, one at a time) and
 *       answers {@code done calls=<n> wall_ns=<t> cpu_ns=<CPU time of all its threads> body=<last answer's body>};</li>
 *   <li>{@code compare <port> <alone argfile> <extension argfile>}: starts one client of each ({@code java @argfile}:
 *       the agent flags and the class path), warms both up ({@code bench.warmup} calls a kind, default 10000), then
 *       runs {@code bench.rounds} rounds (default 60) of {@code bench.calls} calls (default 500) a kind, the two
 *       clients one after the other, in alternating order. Each round of the extension is paired with the alone
 *       round next to it: the overhead of a kind is the median of the paired differences, so this shared host's
 *       drift cancels. The client JVM's CPU time per call (all its threads) is the measure the last line uses (a
 *       neighbour takes wall time from a call, not CPU time); wall time is printed too. Then the extension's advice
 *       alone ({@code advice <kind>}: its helper called in the extension's client, no network), unmarked and
 *       marked: the floor of both overheads, which this host's noise cannot blur.</li>
 * </ul>
 * Kinds, all {@code POST} with a small JSON body:
 * <ol>
 *   <li>{@code unmarked}: {@code /charge}, no marker;</li>
 *   <li>{@code marked}: {@code /charge} with Richter's default marker in the baggage ({@code richter-loadtest=1}, the
 *       application API bridged by the agent, as any instrumented service carries it). The extension's document
 *       mocks it with latency 0, so with the extension it never leaves the JVM: its whole time is what the extension
 *       spends deciding and answering (the agent's own client span included). Under the agent alone it is a real
 *       call;</li>
 *   <li>{@code marked_pass}: {@code /stock}, marked, an exit in the test's scope: decided, then let through.</li>
 * </ol>
 * (A JDBC statement kind is to come here, with its own target, once the extension isolates JDBC.) The bodies are
 * checked: {@code ok} (the server's) everywhere but the extension's marked calls, which must be {@code mocked}.
 * Last line: {@code unmarked_overhead_us=<cpu: extension - alone> marked_overhead_us=<cpu of a mocked call>}.
 */
public final class AgentBench {
    private static final int WARMUP = Integer.getInteger("bench.warmup", 10_000);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 60);
    private static final int CALLS = Integer.getInteger("bench.calls", 500);
    private static final List<String> KINDS = List.of("unmarked", "marked", "marked_pass");
    private static final byte[] OK = "ok".getBytes(StandardCharsets.UTF_8);

    private AgentBench() {}

    public static void main(String[] args) throws Throwable {
        switch (args[0]) {
            case "server" -> server();
            case "client" -> client(Integer.parseInt(args[1]));
            case "compare" -> compare(args[1], Path.of(args[2]), Path.of(args[3]));
            default -> throw new IllegalArgumentException("server | client <port> <label> | compare <port> <alone> <ext>");
        }
    }

    private static void server() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, OK.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(OK);
            }
        });
        server.start();
        System.out.println("PORT " + server.getAddress().getPort());
    }

    // --- client ---------------------------------------------------------------------------------------------------

    private static void client(int port) throws Throwable {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
            String[] command = line.split(" ");
            if (command[0].equals("advice")) {
                advice(port, command[1]);
                continue;
            }
            int calls = command[0].equals("warmup") ? WARMUP : CALLS;
            String kind = command[1];
            HttpRequest request = request(port, kind.equals("marked_pass") ? "/stock" : "/charge");
            Baggage baggage = kind.startsWith("marked") ? Baggage.builder().put("richter-loadtest", "1").build()
                    : Baggage.empty();
            String body = "";
            long cpu0 = cpuNanos();
            long wall0 = System.nanoTime();
            try (Scope ignored = baggage.makeCurrent()) {
                for (int i = 0; i < calls; i++) {
                    body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
                }
            }
            long wall = System.nanoTime() - wall0;
            long cpu = cpuNanos() - cpu0;
            System.out.println("done calls=" + calls + " wall_ns=" + wall + " cpu_ns=" + cpu + " body=" + body);
            System.out.flush();
        }
    }

    /**
     * The extension's advice alone, in this JVM and with no network: {@code bench.adviceCalls} (default 200000) calls of
     * {@code JdkHttpClientExits.beforeSend}, the helper the advice of {@code HttpClient.send} calls (injected next to
     * the JDK's client once the first call was instrumented), for the kind's request; the answer's body is the
     * helper's answer ({@code null}: call for real; a mocked response's class). {@code body=none} where the extension
     * is not attached.
     */
    private static void advice(int port, String kind) throws Throwable {
        int calls = Integer.getInteger("bench.adviceCalls", 200_000);
        java.lang.invoke.MethodHandle beforeSend;
        try {
            Class<?> helper = Class.forName("dev.richter.agent.jdk.JdkHttpClientExits", true,
                    ClassLoader.getPlatformClassLoader());
            beforeSend = java.lang.invoke.MethodHandles.publicLookup().findStatic(helper, "beforeSend",
                    java.lang.invoke.MethodType.methodType(Object.class, HttpRequest.class, HttpResponse.BodyHandler.class));
        } catch (ClassNotFoundException e) {
            System.out.println("done calls=1 wall_ns=0 cpu_ns=0 body=none");
            return;
        }
        HttpRequest request = request(port, "/charge");
        HttpResponse.BodyHandler<String> handler = HttpResponse.BodyHandlers.ofString();
        Baggage baggage = kind.startsWith("marked") ? Baggage.builder().put("richter-loadtest", "1").build()
                : Baggage.empty();
        Object answer = null;
        long cpu0 = cpuNanos();
        long wall0 = System.nanoTime();
        try (Scope ignored = baggage.makeCurrent()) {
            for (int i = 0; i < calls; i++) {
                answer = (Object) beforeSend.invokeExact(request, (HttpResponse.BodyHandler<?>) handler);
            }
        }
        long wall = System.nanoTime() - wall0;
        long cpu = cpuNanos() - cpu0;
        System.out.println("done calls=" + calls + " wall_ns=" + wall + " cpu_ns=" + cpu + " body="
                + (answer == null ? "null" : answer.getClass().getSimpleName()));
        System.out.flush();
    }

    /**
     * The CPU time of every live thread of this JVM, nanoseconds (the process's CPU time as the JDK reads it is counted
     * in 10 ms ticks on Linux: too coarse for a round).
     */
    private static long cpuNanos() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long total = 0;
        for (long t : threads.getThreadCpuTime(threads.getAllThreadIds())) {
            total += Math.max(t, 0);
        }
        return total;
    }

    private static HttpRequest request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")).build();
    }

    // --- compare --------------------------------------------------------------------------------------------------

    /** One client JVM, driven line by line. */
    private static final class Client implements AutoCloseable {
        final String label;
        final Process process;
        final PrintStream commands;
        final BufferedReader answers;

        Client(String label, String port, Path argfile) throws IOException {
            this.label = label;
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(java, "@" + argfile, "AgentBench", "client", port, label)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        /** {@code {wall us per call, cpu us per call}}; fails unless the answer's body is {@code expected}. */
        double[] run(String command, String kind, String expected) throws IOException {
            commands.println(command + " " + kind);
            String line = answers.readLine();
            while (line != null && !line.startsWith("done ")) {
                line = answers.readLine();
            }
            if (line == null) {
                throw new IllegalStateException(label + " client ended");
            }
            String body = field(line, "body");
            if (!body.equals(expected)) {
                throw new IllegalStateException(label + " " + kind + " answered '" + body + "', expected '" + expected + "'");
            }
            double calls = Double.parseDouble(field(line, "calls"));
            return new double[] {Double.parseDouble(field(line, "wall_ns")) / 1000 / calls,
                    Double.parseDouble(field(line, "cpu_ns")) / 1000 / calls};
        }

        private static String field(String line, String name) {
            for (String part : line.split(" ")) {
                if (part.startsWith(name + "=")) {
                    return part.substring(name.length() + 1);
                }
            }
            return "";
        }

        @Override
        public void close() {
            commands.println("quit");
            process.destroy();
        }
    }

    private static void compare(String port, Path aloneArgs, Path extensionArgs) throws Exception {
        try (Client alone = new Client("alone", port, aloneArgs);
             Client extension = new Client("extension", port, extensionArgs)) {
            System.out.printf(Locale.ROOT, "%-14s %12s %12s %12s | %12s %12s %12s%n", "us per call", "cpu alone",
                    "cpu +ext", "cpu diff", "wall alone", "wall +ext", "wall diff");
            double unmarkedOverhead = 0;
            double markedOverhead = 0;
            for (String kind : KINDS) {
                String extensionBody = kind.equals("marked") ? "mocked" : "ok";
                alone.run("warmup", kind, "ok");
                extension.run("warmup", kind, extensionBody);
                double[][] a = new double[2][ROUNDS];
                double[][] e = new double[2][ROUNDS];
                double[][] d = new double[2][ROUNDS];
                for (int r = 0; r < ROUNDS; r++) {
                    double[] x;
                    double[] y;
                    if (r % 2 == 0) {
                        x = alone.run("round", kind, "ok");
                        y = extension.run("round", kind, extensionBody);
                    } else {
                        y = extension.run("round", kind, extensionBody);
                        x = alone.run("round", kind, "ok");
                    }
                    for (int m = 0; m < 2; m++) {
                        a[m][r] = x[m];
                        e[m][r] = y[m];
                        d[m][r] = y[m] - x[m];
                    }
                }
                System.out.printf(Locale.ROOT, "%-14s %12.2f %12.2f %12.2f | %12.2f %12.2f %12.2f%n", kind,
                        median(a[1]), median(e[1]), median(d[1]), median(a[0]), median(e[0]), median(d[0]));
                if (kind.equals("unmarked")) {
                    unmarkedOverhead = median(d[1]);
                } else if (kind.equals("marked")) {
                    markedOverhead = median(e[1]);
                }
            }
            for (String kind : List.of("unmarked", "marked")) {
                String expected = kind.equals("marked") ? "MockedHttpResponse" : "null";
                extension.run("advice", kind, expected);
                double[] x = extension.run("advice", kind, expected);
                System.out.printf(Locale.ROOT, "the extension's advice alone, %s (JdkHttpClientExits.beforeSend in the"
                        + " JVM, no network; %s): %.3f us per call cpu, %.3f wall%n", kind,
                        kind.equals("marked") ? "the mock built" : "decided PASS", x[1], x[0]);
            }
            System.out.println("(medians of " + ROUNDS + " rounds of " + CALLS + " calls; diff: median of the paired"
                    + " differences; marked: a real call alone, the mock with the extension)");
            System.out.printf(Locale.ROOT, "unmarked_overhead_us=%.2f marked_overhead_us=%.2f%n", unmarkedOverhead,
                    markedOverhead);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
