package dev.richter.agent.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@link IsolationTestApp} in a child JVM: {@code java -javaagent:<agent 2.22.0> -Dotel.javaagent.extensions=<the
 * built extension jar>}, spans exported with {@code logging-otlp} into its output (stdout and stderr, one file in
 * {@code target/it-logs}). The jars come from the system properties failsafe sets ({@code richter.agent.jar}, {@code
 * richter.extension.jar}); so does the {@code java} it runs on, {@code richter.it.serviceJava} (agent/pom.xml: Debian's
 * Java 17, older than the build's, as the services the extension goes into often are; {@code
 * -Drichter.it.serviceJava=<path to bin/java>} overrides it).
 */
final class ChildJvm implements AutoCloseable {
    /** The marker as a client sends it: Richter's default baggage member. */
    static final String MARKED = "richter-loadtest=1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path output;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * One exported span: the instrumentation scope that made it (e.g. {@code io.opentelemetry.okhttp-3.0}), its kind
     * (OTLP: 2 server, 3 client) and its attributes, every value as text.
     */
    record Span(String scope, int kind, String name, Map<String, String> attributes) {
        static final int SERVER = 2;
        static final int CLIENT = 3;
    }

    /**
     * Starts the app and waits (120 s at most: a child with Spring and Lettuce under the agent took more than 60 s to
     * start on a loaded 2-core machine) for its {@code READY <port>} line.
     *
     * @param flags the isolation's and any other {@code -D} flags
     */
    ChildJvm(List<String> flags) throws Exception {
        this(serviceJava(), flags, IsolationTestApp.class, List.of());
    }

    /** Starts {@code main} on the service Java ({@link #serviceJava()}), as below. */
    ChildJvm(List<String> flags, Class<?> main, List<Class<?>> libraries) throws Exception {
        this(serviceJava(), flags, main, libraries);
    }

    /**
     * Starts {@code main} (a test application printing {@code READY <port>}) as above.
     *
     * @param javaExecutable the {@code bin/java} it runs on
     * @param libraries      classes whose jars go on the application's class path too (its JDBC driver, its Redis
     *                       client)
     */
    ChildJvm(String javaExecutable, List<String> flags, Class<?> main, List<Class<?>> libraries) throws Exception {
        this(javaExecutable, flags, main, List.of(), libraries);
    }

    /**
     * Starts {@code main} as above, with {@code jars} first on its class path (a library at another version than the
     * tests', e.g. Caffeine 2.9).
     */
    ChildJvm(String javaExecutable, List<String> flags, Class<?> main, List<String> jars, List<Class<?>> libraries)
            throws Exception {
        this(javaExecutable, flags, main, jars, libraries, true);
    }

    /**
     * Starts {@code main} on the service Java with a class path of its own: {@code jars}, then {@code main}'s class
     * directory, and nothing of {@code richter.app.classpath} (a library whose classes the tests' libraries also have
     * under the same names, e.g. Tomcat 9 beside the tests' Tomcat 10).
     */
    static ChildJvm ownClassPath(List<String> flags, Class<?> main, List<String> jars) throws Exception {
        return new ChildJvm(serviceJava(), flags, main, jars, List.of(), false);
    }

    private ChildJvm(String javaExecutable, List<String> flags, Class<?> main, List<String> jars,
                     List<Class<?>> libraries, boolean withAppLibraries) throws Exception {
        // in target/, kept for reading after a failure
        output = Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "child-jvm", ".log");
        List<String> command = new ArrayList<>(List.of(javaExecutable,
                "-javaagent:" + jar("richter.agent.jar"), "-Dotel.javaagent.extensions=" + jar("richter.extension.jar"),
                "-Dotel.traces.exporter=logging-otlp", "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none",
                "-Dotel.bsp.schedule.delay=200", "-Dotel.service.name=isolation-test-app", "-Xmx256m"));
        command.addAll(flags);
        List<String> classPath = new ArrayList<>(jars);
        for (Class<?> c : concat(main, libraries)) {
            String entry = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
            if (!classPath.contains(entry)) {
                classPath.add(entry);
            }
        }
        for (String entry : withAppLibraries ? appLibraries() : List.<String>of()) {
            if (!classPath.contains(entry)) {
                classPath.add(entry);
            }
        }
        command.addAll(List.of("-cp", String.join(java.io.File.pathSeparator, classPath), main.getName()));
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int found = 0;
        while (found == 0) {
            Optional<String> ready = Files.readAllLines(output).stream().filter(l -> l.startsWith("READY ")).findFirst();
            if (ready.isPresent()) {
                found = Integer.parseInt(ready.get().substring("READY ".length()).trim());
            } else if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("test app did not start:\n" + Files.readString(output));
            } else {
                Thread.sleep(100);
            }
        }
        port = found;
    }

    private static List<Class<?>> concat(Class<?> main, List<Class<?>> libraries) {
        List<Class<?>> all = new ArrayList<>(List.of(main));
        all.addAll(libraries);
        return all;
    }

    int port() {
        return port;
    }

    /** The child's output so far: the agent's log lines (the extension's among them) and the exported spans. */
    String output() throws IOException {
        return Files.readString(output);
    }

    /** {@code GET <path and query>} to the app, with {@code baggage: <baggage>} unless null; 15 s at most. */
    HttpResponse<String> get(String pathAndQuery, String baggage) throws Exception {
        return get(pathAndQuery, baggage, Duration.ofSeconds(15));
    }

    private HttpResponse<String> get(String pathAndQuery, String baggage, Duration timeout) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .timeout(timeout);
        if (baggage != null) {
            request.header("baggage", baggage);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The app's answer to {@code /call}: it calls {@code target} with {@code method}, through {@code sendAsync} or not. */
    String call(String target, String method, boolean async, String baggage) throws Exception {
        return call("jdk", target, method, async, baggage);
    }

    /**
     * The app's answer to {@code /call} made with {@code client} ({@code jdk}, {@code okhttp}, {@code apache}, {@code
     * spring}; see {@link IsolationTestApp}), its second way when {@code async}.
     */
    String call(String client, String target, String method, boolean async, String baggage) throws Exception {
        return get("/call?client=" + client + "&target=" + URLEncoder.encode(target, StandardCharsets.UTF_8)
                + "&method=" + method + "&async=" + async, baggage).body();
    }

    /**
     * One unmarked {@code GET /calls} of the app to itself with each of {@code clients}, before a test's calls: the
     * first use of a reactive client in the child (Reactor's, Netty's and Spring's classes loaded and instrumented by
     * the agent) took 11 to 23 s on a loaded 2-core machine, more than the 15 s a request to the app may take (90 s
     * here).
     */
    void warmUp(String... clients) throws Exception {
        for (String client : clients) {
            get("/call?client=" + client + "&target=" + URLEncoder.encode("http://127.0.0.1:" + port + "/calls",
                    StandardCharsets.UTF_8) + "&method=GET&async=false", null, Duration.ofSeconds(90));
        }
    }

    /** Stops the app with SIGTERM (the agent's shutdown hook flushes its last spans) and returns every span exported. */
    List<Span> stopAndReadSpans() throws Exception {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("test app did not stop");
        }
        List<Span> out = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            int json = line.indexOf("{\"resource\"");
            if (json < 0) {
                continue;
            }
            for (JsonNode scope : JSON.readTree(line.substring(json)).path("scopeSpans")) {
                for (JsonNode span : scope.path("spans")) {
                    Map<String, String> attributes = new HashMap<>();
                    for (JsonNode a : span.path("attributes")) {
                        // OTLP JSON leaves out a default value: {"value": {}} is an empty string
                        Iterator<JsonNode> value = a.path("value").elements();
                        attributes.put(a.path("key").asText(), value.hasNext() ? value.next().asText() : "");
                    }
                    out.add(new Span(scope.path("scope").path("name").asText(), span.path("kind").asInt(),
                            span.path("name").asText(), attributes));
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }

    /** Closes each of {@code all} that is not null, the next one even when one fails (an IT's servers and child). */
    static void closeAll(AutoCloseable... all) {
        for (AutoCloseable c : all) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // the next one still closes
            }
        }
    }

    /**
     * The app's classes, then the libraries of {@code richter.app.classpath} (the file failsafe names: the HTTP clients
     * the app calls besides the JDK's), copied nowhere: the app needs nothing of Richter's.
     */
    /** The HTTP clients the test applications call (target/app-classpath.txt, which mvn verify writes). */
    private static List<String> appLibraries() throws IOException {
        String file = System.getProperty("richter.app.classpath");
        if (file == null || !Files.isRegularFile(Path.of(file))) {
            throw new IllegalStateException("richter.app.classpath must name the built class path file (run through"
                    + " mvn verify), got " + file);
        }
        String libraries = Files.readString(Path.of(file)).trim();
        return libraries.isEmpty() ? List.of() : List.of(libraries.split(java.io.File.pathSeparator));
    }

    /** The {@code java} of the services under test: {@code richter.it.serviceJava}, Java 17 unless overridden. */
    static String serviceJava() {
        return java("richter.it.serviceJava");
    }

    /** The newest {@code java} the ITs also run one service on: {@code richter.it.latestJava}, Java 25. */
    static String latestJava() {
        return java("richter.it.latestJava");
    }

    private static String java(String property) {
        String v = System.getProperty(property);
        if (v == null || !Files.isExecutable(Path.of(v))) {
            throw new IllegalStateException(property + " must name a java executable (agent/pom.xml sets it; -D"
                    + property + "=<path to bin/java> overrides it), got " + v);
        }
        return v;
    }

    private static String jar(String property) {
        String v = System.getProperty(property);
        if (v == null || !Files.isRegularFile(Path.of(v))) {
            throw new IllegalStateException(property + " must name a built jar (run through mvn verify), got " + v);
        }
        return v;
    }
}
