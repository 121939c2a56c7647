import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.context.Scope;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Per-call cost of the Richter agent extension, run by {@code bench/agent.sh}. Three roles:
 * <ul>
 *   <li>{@code server}: a JDK {@code HttpServer} on an ephemeral loopback port (run without any agent), answering
 *       every request {@code 200 ok}; prints {@code PORT <port>} and serves until killed;</li>
 *   <li>{@code client <port> <label>}: run under the OpenTelemetry agent alone or the agent with the extension; opens
 *       its own H2 database in memory ({@link #DB_URL}), reads {@code <warmup|round> <kind>} lines, makes the kind's
 *       calls one at a time and answers {@code done calls=<n> wall_ns=<t> cpu_ns=<CPU time of all its threads>
 *       body=<the answer>}; {@code rows} answers the row counts of its two tables;</li>
 *   <li>{@code compare <port> <alone argfile> <extension argfile>}: starts one client of each ({@code java @argfile}:
 *       the agent flags and the class path), and for each kind warms both up ({@code bench.warmup} calls, default
 *       10000; JDBC {@code bench.jdbcWarmup}, 200000: with fewer its first kind ran half compiled, dearer than the
 *       same call of the second), then runs {@code bench.rounds} rounds (default 60) of {@code bench.calls} calls
 *       (default 500; JDBC {@code bench.jdbcCalls}, 2000: rounds of some tens of ms either way), the two clients one
 *       after the other, in alternating order. Each round of the extension is paired with the alone
 *       round next to it: a kind's overhead is the median of the paired differences, so this shared host's drift
 *       cancels. The client JVM's CPU time per call (all its threads) is the measure the last lines use (a neighbour
 *       takes wall time from a call, not CPU time); wall time is printed too. After each client's kinds, the
 *       extension's advice alone ({@code advice <kind>}: its helpers called in the extension's client, no network, no
 *       database), unmarked and marked: the floor of the overheads, which this host's noise cannot blur.</li>
 * </ul>
 * Kinds: HTTP, all {@code POST} with a small JSON body with the JDK {@code HttpClient.send}:
 * <ol>
 *   <li>{@code unmarked}: {@code /charge}, no marker;</li>
 *   <li>{@code marked}: {@code /charge} with Richter's default marker in the baggage ({@code richter-loadtest=1}, the
 *       application API bridged by the agent, as any instrumented service carries it). The extension's document
 *       mocks it with latency 0, so with the extension it never leaves the JVM: its whole time is what the extension
 *       spends deciding and answering (the agent's own client span included). Under the agent alone it is a real
 *       call;</li>
 *   <li>{@code marked_pass}: {@code /stock}, marked, an exit in the test's scope: decided, then let through.</li>
 * </ol>
 * JDBC, one call: {@code prepareStatement(}{@value #INSERT}{@code )}, {@code setString}, {@code executeUpdate},
 * {@code close}, on one connection held open (an application whose pool caches no statements prepares its SQL per
 * call):
 * <ol start="4">
 *   <li>{@code jdbc_unmarked}: no marker, into {@code visits};</li>
 *   <li>{@code jdbc_marked}: marked as {@code marked} is. With the extension, whose document maps {@code visits} to
 *       {@code visits_shadow} ({@code kind: table}), the prepare is decided and rewritten and the execution checked;
 *       the same SQL text every call, so this is the steady state in which the extension's parse cache answers (its
 *       first parse is in the warm-up; the cost of parsing a new text is the advice line "a new SQL text per
 *       call"). Under the agent alone it goes into {@code visits}. Both insert a row, so its overhead is a paired
 *       difference too.</li>
 * </ol>
 * The answers are checked: HTTP bodies {@code ok} (the server's) everywhere but the extension's marked calls, which
 * must be {@code mocked}; every JDBC update count 1; and the row counts at the end, read in each client's own JVM:
 * alone, every JDBC call in {@code visits}; with the extension, the unmarked in {@code visits} and the marked in
 * {@code visits_shadow}. Last lines: {@code http: unmarked_overhead_us=<cpu diff> marked_overhead_us=<cpu of a mocked
 * call>}, {@code jdbc: unmarked_overhead_us=<cpu diff> marked_overhead_us=<cpu diff>}, then the worse of the two per
 * field: {@code unmarked_overhead_us=<max> marked_overhead_us=<max>}.
 */
public final class AgentBench {
    private static final int WARMUP = Integer.getInteger("bench.warmup", 10_000);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 60);
    private static final int CALLS = Integer.getInteger("bench.calls", 500);
    /** A JDBC call is some 20 times cheaper than an HTTP one: its warm-up and rounds take more calls. */
    private static final int JDBC_WARMUP = Integer.getInteger("bench.jdbcWarmup", 200_000);
    private static final int JDBC_CALLS = Integer.getInteger("bench.jdbcCalls", 2_000);
    private static final int ADVICE_CALLS = Integer.getInteger("bench.adviceCalls", 200_000);
    private static final byte[] OK = "ok".getBytes(StandardCharsets.UTF_8);

    /**
     * The client's database, in its own JVM, kept while it runs; the two tables, of one shape, are created by {@code
     * INIT} within the first connect, so they exist before the extension's shadow pre-check (queued by that connect)
     * opens its own connection with the same URL.
     */
    static final String DB_URL = "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1;INIT="
            + "CREATE TABLE IF NOT EXISTS visits (id BIGINT AUTO_INCREMENT PRIMARY KEY, page VARCHAR(64) NOT NULL)\\;"
            + "CREATE TABLE IF NOT EXISTS visits_shadow"
            + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, page VARCHAR(64) NOT NULL)";
    /** The JDBC kinds' statement; the extension's document maps {@code visits} to {@code visits_shadow}. */
    static final String INSERT = "INSERT INTO visits (page) VALUES (?)";
    /** How many SQL texts the {@code distinct} JDBC advice has used: each run's are new. */
    private static int distinctTexts;

        /** The proof marked calls carry (bench/agent.sh signs it with the document's key): verified as in a deployment. */
        static final String PROOF = System.getProperty("bench.marker.proof", "");

    /** What a round calls: {@code jdbc} or HTTP (to {@code path}), with Richter's marker or not. */
    private enum Kind {
        UNMARKED(false, false, "/charge"),
        MARKED(false, true, "/charge"),
        MARKED_PASS(false, true, "/stock"),
        JDBC_UNMARKED(true, false, ""),
        JDBC_MARKED(true, true, "");

        final boolean jdbc;
        final boolean marked;
        final String path;

        Kind(boolean jdbc, boolean marked, String path) {
            this.jdbc = jdbc;
            this.marked = marked;
            this.path = path;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Kind of(String label) {
            return valueOf(label.toUpperCase(Locale.ROOT));
        }

        Baggage baggage() {
            return marked ? Baggage.builder().put("richter-loadtest", "1").put("richter-proof", PROOF).build()
                    : Baggage.empty();
        }

        /** The answer a round's calls must give: the last HTTP body, or {@code 1} when every update count was 1. */
        String body(boolean withExtension) {
            return jdbc ? "1" : this == MARKED && withExtension ? "mocked" : "ok";
        }
    }

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
        try (Connection db = DriverManager.getConnection(DB_URL)) {
            for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
                String[] command = line.split(" ");
                switch (command[0]) {
                    case "advice" -> advice(port, db, Kind.of(command[1]), command.length > 2);
                    case "rows" -> done(1, 0, 0, "visits=" + count(db, "visits") + ",visits_shadow="
                            + count(db, "visits_shadow"));
                    default -> {
                        Kind kind = Kind.of(command[1]);
                        boolean warmup = command[0].equals("warmup");
                        calls(http, port, db, kind, kind.jdbc ? (warmup ? JDBC_WARMUP : JDBC_CALLS)
                                : (warmup ? WARMUP : CALLS));
                    }
                }
            }
        }
    }

    private static void calls(HttpClient http, int port, Connection db, Kind kind, int calls) throws Exception {
        HttpRequest request = kind.jdbc ? null : request(port, kind.path);
        String body = "1";
        long cpu0 = cpuNanos();
        long wall0 = System.nanoTime();
        try (Scope ignored = kind.baggage().makeCurrent()) {
            if (kind.jdbc) {
                for (int i = 0; i < calls; i++) {
                    int inserted = insert(db);
                    if (inserted != 1) {
                        body = "inserted=" + inserted;
                    }
                }
            } else {
                for (int i = 0; i < calls; i++) {
                    body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
                }
            }
        }
        long wall = System.nanoTime() - wall0;
        long cpu = cpuNanos() - cpu0;
        done(calls, wall, cpu, body);
    }

    /** One JDBC call: {@link #INSERT} prepared, executed and closed; its update count. */
    private static int insert(Connection db) throws SQLException {
        try (PreparedStatement insert = db.prepareStatement(INSERT)) {
            insert.setString(1, "/home");
            return insert.executeUpdate();
        }
    }

    private static long count(Connection db, String table) throws SQLException {
        try (Statement statement = db.createStatement();
             ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void done(long calls, long wallNanos, long cpuNanos, String body) {
        System.out.println("done calls=" + calls + " wall_ns=" + wallNanos + " cpu_ns=" + cpuNanos + " body=" + body);
        System.out.flush();
    }

    /**
     * The extension's advice alone, in this JVM: {@link #ADVICE_CALLS} (property {@code bench.adviceCalls}) calls of
     * the helpers the advice calls, injected by the agent once the first call was instrumented, with the kind's
     * marker; {@code body=none} where the extension is not attached.
     * <ul>
     *   <li>HTTP: {@code JdkHttpClientExits.beforeSend} (next to the JDK's client) for the {@code /charge} request, no
     *       network; the answer's body is the helper's answer ({@code null}: call for real; a mocked response's
     *       class);</li>
     *   <li>JDBC: {@code JdbcExits.beforeSqlOf(connection, sql)} and {@code afterPrepare} (a prepare) then {@code
     *       beforeExecutePrepared} (its execution), next to the H2 driver, for a statement prepared once with the
     *       kind's marker; no database call. The body is the class of {@code beforeSqlOf}'s answer ({@code null}: the
     *       SQL as it is; {@code String}: the shadow SQL), or {@code refused}. With {@code distinct}, a new SQL text
     *       every call (one visits insert with its own literal; a twentieth of the calls): parsed and rewritten, never
     *       in the parse cache.</li>
     * </ul>
     */
    private static void advice(int port, Connection db, Kind kind, boolean distinct) throws Throwable {
        if (kind.jdbc) {
            jdbcAdvice(db, kind, distinct);
            return;
        }
        MethodHandle beforeSend = helper(ClassLoader.getPlatformClassLoader(),
                "dev.richter.agent.jdk.JdkHttpClientExits", "beforeSend",
                MethodType.methodType(Object.class, HttpRequest.class, HttpResponse.BodyHandler.class));
        if (beforeSend == null) {
            done(1, 0, 0, "none");
            return;
        }
        HttpRequest request = request(port, "/charge");
        HttpResponse.BodyHandler<String> handler = HttpResponse.BodyHandlers.ofString();
        Object answer = null;
        long cpu0 = cpuNanos();
        long wall0 = System.nanoTime();
        try (Scope ignored = kind.baggage().makeCurrent()) {
            for (int i = 0; i < ADVICE_CALLS; i++) {
                answer = (Object) beforeSend.invokeExact(request, (HttpResponse.BodyHandler<?>) handler);
            }
        }
        long wall = System.nanoTime() - wall0;
        long cpu = cpuNanos() - cpu0;
        done(ADVICE_CALLS, wall, cpu, answer == null ? "null" : answer.getClass().getSimpleName());
    }

    private static void jdbcAdvice(Connection db, Kind kind, boolean distinct) throws Throwable {
        ClassLoader loader = AgentBench.class.getClassLoader();
        String exits = "dev.richter.agent.jdbc.JdbcExits";
        MethodHandle beforeSqlOf = helper(loader, exits, "beforeSqlOf",
                MethodType.methodType(Object.class, Object.class, String.class));
        MethodHandle afterPrepare = helper(loader, exits, "afterPrepare",
                MethodType.methodType(void.class, Object.class, boolean.class));
        MethodHandle beforeExecutePrepared = helper(loader, exits, "beforeExecutePrepared",
                MethodType.methodType(SQLException.class, PreparedStatement.class));
        if (beforeSqlOf == null || afterPrepare == null || beforeExecutePrepared == null) {
            done(1, 0, 0, "none");
            return;
        }
        int calls = distinct ? Math.max(1, ADVICE_CALLS / 20) : ADVICE_CALLS;
        String[] texts = new String[calls];
        for (int i = 0; i < calls; i++) {
            texts[i] = distinct ? "INSERT INTO visits (page) VALUES ('/p" + distinctTexts++ + "')" : INSERT;
        }
        Object answer = null;
        SQLException refusal = null;
        long cpu0;
        long wall0;
        long wall;
        long cpu;
        try (Scope ignored = kind.baggage().makeCurrent(); PreparedStatement statement = db.prepareStatement(INSERT)) {
            cpu0 = cpuNanos();
            wall0 = System.nanoTime();
            for (int i = 0; i < calls && refusal == null; i++) {
                answer = (Object) beforeSqlOf.invokeExact((Object) db, texts[i]);
                afterPrepare.invokeExact((Object) statement, true);
                refusal = (SQLException) beforeExecutePrepared.invokeExact(statement);
            }
            wall = System.nanoTime() - wall0;
            cpu = cpuNanos() - cpu0;
        }
        String body = answer == null ? "null" : answer.getClass().getSimpleName();
        done(calls, wall, cpu, refusal != null ? "refused" : body);
    }

    /** A public static method of a helper class the agent injected into {@code loader}; {@code null} if none. */
    private static MethodHandle helper(ClassLoader loader, String className, String method, MethodType type)
            throws ReflectiveOperationException {
        try {
            return MethodHandles.publicLookup().findStatic(Class.forName(className, true, loader), method, type);
        } catch (ClassNotFoundException e) {
            return null;
        }
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
        /** The calls made so far by kind (warm-ups and rounds). */
        final Map<Kind, Long> made = new HashMap<>();

        Client(String label, String port, Path argfile) throws IOException {
            this.label = label;
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(java, "@" + argfile, "AgentBench", "client", port, label)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        /** Calls of {@code kind}: {@code {wall us, cpu us}} per call; fails unless the body is {@code expected}. */
        double[] run(String command, Kind kind, String expected) throws IOException {
            return run(command + " " + kind.label(), expected);
        }

        /** {@code line}'s answer as {@code {wall us, cpu us}} per call; fails unless its body is {@code expected}. */
        double[] run(String line, String expected) throws IOException {
            String answer = ask(line);
            String body = field(answer, "body");
            if (!body.equals(expected)) {
                throw new IllegalStateException(label + " " + line + " answered '" + body + "', expected '" + expected
                        + "'");
            }
            double calls = Double.parseDouble(field(answer, "calls"));
            if (!line.startsWith("advice")) {
                made.merge(Kind.of(line.split(" ")[1]), (long) calls, Long::sum);
            }
            return new double[] {Double.parseDouble(field(answer, "wall_ns")) / 1000 / calls,
                    Double.parseDouble(field(answer, "cpu_ns")) / 1000 / calls};
        }

        /** The body of the answer to {@code line}. */
        String body(String line) throws IOException {
            return field(ask(line), "body");
        }

        private String ask(String line) throws IOException {
            commands.println(line);
            String answer = answers.readLine();
            while (answer != null && !answer.startsWith("done ")) {
                answer = answers.readLine();
            }
            if (answer == null) {
                throw new IllegalStateException(label + " client ended");
            }
            return answer;
        }

        long made(Kind kind) {
            return made.getOrDefault(kind, 0L);
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
            System.out.println("-- HTTP: JDK HttpClient.send, a POST to the loopback server (marked /charge: mocked"
                    + " by the extension; /stock: in the scope)");
            double httpUnmarked = paired(alone, extension, Kind.UNMARKED)[2];
            double httpMarked = paired(alone, extension, Kind.MARKED)[1];
            paired(alone, extension, Kind.MARKED_PASS);
            advice(extension, "unmarked", "null", "JdkHttpClientExits.beforeSend in the JVM, no network; decided PASS");
            advice(extension, "marked", "MockedHttpResponse",
                    "JdkHttpClientExits.beforeSend in the JVM, no network; the mock built");

            System.out.println("-- JDBC: prepareStatement(\"" + INSERT + "\"), setString, executeUpdate, close, per"
                    + " call (the same SQL text each call), to H2 in memory in the client's JVM (marked, with the"
                    + " extension: into visits_shadow)");
            double jdbcUnmarked = paired(alone, extension, Kind.JDBC_UNMARKED)[2];
            double jdbcMarked = paired(alone, extension, Kind.JDBC_MARKED)[2];
            checkRows(alone, extension);
            String helpers = "JdbcExits.beforeSqlOf, afterPrepare, beforeExecutePrepared in the JVM, no database";
            advice(extension, "jdbc_unmarked", "null", helpers + "; decided nothing");
            advice(extension, "jdbc_marked", "String", helpers + "; the SQL text's cached decision: visits_shadow");
            advice(extension, "jdbc_marked distinct", "String",
                    helpers + "; a new SQL text per call: parsed and rewritten");

            System.out.println("(medians of " + ROUNDS + " rounds of " + CALLS + " calls, jdbc " + JDBC_CALLS
                    + "; diff: median of the paired differences; http marked: a real call alone, the mock with"
                    + " the extension, the overhead is the mock's whole cpu; jdbc marked: both insert a row, the"
                    + " overhead is the diff; last line: the worse of http and jdbc per field)");
            System.out.printf(Locale.ROOT, "http: unmarked_overhead_us=%.2f marked_overhead_us=%.2f%n", httpUnmarked,
                    httpMarked);
            System.out.printf(Locale.ROOT, "jdbc: unmarked_overhead_us=%.2f marked_overhead_us=%.2f%n", jdbcUnmarked,
                    jdbcMarked);
            System.out.printf(Locale.ROOT, "unmarked_overhead_us=%.2f marked_overhead_us=%.2f%n",
                    Math.max(httpUnmarked, jdbcUnmarked), Math.max(httpMarked, jdbcMarked));
        }
    }

    /**
     * Warms both clients up on {@code kind}, then runs the paired rounds and prints the kind's line.
     *
     * @return the kind's cpu us per call: {@code {median alone, median with the extension, median paired diff}}
     */
    private static double[] paired(Client alone, Client extension, Kind kind) throws IOException {
        String aloneBody = kind.body(false);
        String extensionBody = kind.body(true);
        alone.run("warmup", kind, aloneBody);
        extension.run("warmup", kind, extensionBody);
        double[][] a = new double[2][ROUNDS];
        double[][] e = new double[2][ROUNDS];
        double[][] d = new double[2][ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            double[] x;
            double[] y;
            if (r % 2 == 0) {
                x = alone.run("round", kind, aloneBody);
                y = extension.run("round", kind, extensionBody);
            } else {
                y = extension.run("round", kind, extensionBody);
                x = alone.run("round", kind, aloneBody);
            }
            for (int m = 0; m < 2; m++) {
                a[m][r] = x[m];
                e[m][r] = y[m];
                d[m][r] = y[m] - x[m];
            }
        }
        System.out.printf(Locale.ROOT, "%-14s %12.2f %12.2f %12.2f | %12.2f %12.2f %12.2f%n", kind.label(),
                median(a[1]), median(e[1]), median(d[1]), median(a[0]), median(e[0]), median(d[0]));
        return new double[] {median(a[1]), median(e[1]), median(d[1])};
    }

    /** Runs {@code advice <what>} twice in the extension's client (the first warms up) and prints the second. */
    private static void advice(Client extension, String what, String expected, String how) throws IOException {
        extension.run("advice " + what, expected);
        double[] x = extension.run("advice " + what, expected);
        System.out.printf(Locale.ROOT, "the extension's advice alone, %s (%s): %.3f us per call cpu, %.3f wall%n", what,
                how, x[1], x[0]);
    }

    /**
     * Prints the row counts of both clients' tables and fails unless they are the JDBC calls made: alone, all in
     * {@code visits}; with the extension, the unmarked in {@code visits}, the marked in {@code visits_shadow}.
     */
    private static void checkRows(Client alone, Client extension) throws IOException {
        long unmarked = alone.made(Kind.JDBC_UNMARKED);
        long marked = alone.made(Kind.JDBC_MARKED);
        String aloneRows = alone.body("rows");
        String extensionRows = extension.body("rows");
        System.out.println("rows at the end, counted in each client's JVM: alone " + aloneRows + "; extension "
                + extensionRows + " (calls made: " + unmarked + " unmarked, " + marked + " marked, each)");
        String aloneExpected = "visits=" + (unmarked + marked) + ",visits_shadow=0";
        String extensionExpected = "visits=" + extension.made(Kind.JDBC_UNMARKED) + ",visits_shadow="
                + extension.made(Kind.JDBC_MARKED);
        if (!aloneRows.equals(aloneExpected) || !extensionRows.equals(extensionExpected)) {
            throw new IllegalStateException("the rows are not where the calls put them: expected alone " + aloneExpected
                    + ", extension " + extensionExpected);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
