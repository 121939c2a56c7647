package dev.richter.local;

import dev.richter.common.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;

/**
 * Richter's local AWS stack, started by one call and stopped by {@link #close()} with no orphan
 * process (DESIGN.md §8):
 * <ul>
 *   <li>DynamoDB: {@code dynalite} (Node) with every table of {@code template.yaml};</li>
 *   <li>Lambda: {@link LambdaHost} in this JVM, serving every function and the HTTP API;</li>
 *   <li>EventBridge: {@link EventBusCapture} in this JVM;</li>
 *   <li>Step Functions: {@code local/node/sfn-server.cjs} on {@code aws-local-stepfunctions}, running
 *       the real ASL files with the template's substitutions.</li>
 * </ul>
 * Ports come from the same environment the functions read: {@code AWS_ENDPOINT_URL_DYNAMODB},
 * {@code AWS_ENDPOINT_URL_SFN}, {@code AWS_ENDPOINT_URL_EVENTBRIDGE}, {@code AWS_ENDPOINT_URL_LAMBDA}
 * and {@code RICHTER_API_PORT}; every one must be set (so no client can reach real AWS by mistake).
 */
public final class LocalStack implements AutoCloseable {
    private final Path root;
    private final Path workDir;
    private final Consumer<String> log;
    private final List<Process> processes = new ArrayList<>();
    private LambdaHost lambdaHost;
    private EventBusCapture eventBus;
    private Template template;

    /**
     * @param root    the repository root (holds {@code template.yaml}, {@code local/node})
     * @param workDir where generated definitions, logs and captured events go
     * @param log     progress lines
     */
    public LocalStack(Path root, Path workDir, Consumer<String> log) {
        this.root = root.toAbsolutePath().normalize();
        this.workDir = workDir.toAbsolutePath().normalize();
        this.log = log;
    }

    /** The repository root from {@code RICHTER_HOME}, else the working directory. */
    public static Path rootFromEnv() {
        String home = System.getenv("RICHTER_HOME");
        return Path.of(home == null || home.isBlank() ? "." : home).toAbsolutePath().normalize();
    }

    /**
     * Starts everything; on any failure stops what was started and rethrows.
     *
     * @throws IOException          when a process cannot start or a port is taken
     * @throws IllegalStateException when a required environment variable is missing
     */
    public LocalStack start() throws IOException, InterruptedException {
        try {
            Files.createDirectories(workDir.resolve("logs"));
            template = Template.load(root);
            ensureNodeModules();
            int dynamoPort = port("AWS_ENDPOINT_URL_DYNAMODB");
            int sfnPort = port("AWS_ENDPOINT_URL_SFN");
            int eventsPort = port("AWS_ENDPOINT_URL_EVENTBRIDGE");
            int lambdaPort = port("AWS_ENDPOINT_URL_LAMBDA");
            int apiPort = Integer.parseInt(requireEnv("RICHTER_API_PORT"));

            startNode("dynamodb", List.of("dynalite.cjs", "--port", String.valueOf(dynamoPort)), Map.of());
            createTables(dynamoPort);

            eventBus = new EventBusCapture(workDir.resolve("events.jsonl"));
            eventBus.start(eventsPort);
            lambdaHost = new LambdaHost(template, line -> log.accept("  " + line));
            lambdaHost.start(lambdaPort, apiPort);

            Path config = writeSfnConfig(sfnPort);
            startNode("sfn", List.of("sfn-server.cjs", "--config", config.toString(), "--port", String.valueOf(sfnPort)),
                    Map.of("AWS_ENDPOINT_URL_LAMBDA", "http://127.0.0.1:" + lambdaPort));
            log.accept("local stack up: dynamodb :" + dynamoPort + ", sfn :" + sfnPort + ", lambda :" + lambdaPort
                    + ", events :" + eventsPort + ", api http://127.0.0.1:" + apiPort);
            return this;
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The parsed template. */
    public Template template() {
        return template;
    }

    /** The local EventBridge's captured events. */
    public EventBusCapture eventBus() {
        return eventBus;
    }

    /** The in-process Lambda host. */
    public LambdaHost lambdaHost() {
        return lambdaHost;
    }

    /** Base URL of the HTTP API. */
    public static String apiBaseUrl() {
        return "http://127.0.0.1:" + requireEnv("RICHTER_API_PORT");
    }

    private void ensureNodeModules() throws IOException, InterruptedException {
        Path node = root.resolve("local/node");
        if (Files.isDirectory(node.resolve("node_modules/aws-local-stepfunctions"))
                && Files.isDirectory(node.resolve("node_modules/dynalite"))) {
            return;
        }
        log.accept("installing local/node packages (npm ci)");
        Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(node.toFile())
                .redirectErrorStream(true).redirectOutput(workDir.resolve("logs/npm-ci.log").toFile()).start();
        if (p.waitFor() != 0) {
            throw new IOException("npm ci failed in " + node + "; see " + workDir.resolve("logs/npm-ci.log"));
        }
    }

    private void startNode(String name, List<String> args, Map<String, String> env) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("node", "--require", "./polyfill.cjs"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.resolve("local/node").toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(workDir.resolve("logs/" + name + ".log").toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("READY")) {
                        return line;
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        String line;
        try {
            line = ready.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            line = null;
        }
        if (line == null) {
            throw new IOException(name + " did not become ready; see " + workDir.resolve("logs/" + name + ".log"));
        }
        // keep draining stdout so the child never blocks on a full pipe; a platform thread: a virtual thread blocked
        // in a pipe read stays mounted, and two of them pinned both carriers of a 2-CPU machine, starving the probe's
        // virtual threads (every probe "no answer within 1000 ms", the run aborted as DAMAGED)
        Thread.ofPlatform().daemon().name("local-stack-drain-" + name).start(() -> {
            try {
                while (out.readLine() != null) {
                    // discard
                }
            } catch (IOException ignored) {
                // process ended
            }
        });
    }

    private void createTables(int dynamoPort) {
        try (DynamoDbClient ddb = DynamoDbClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create("http://127.0.0.1:" + dynamoPort)).build()) {
            for (var req : template.tables()) {
                try {
                    ddb.createTable(req);
                } catch (ResourceInUseException exists) {
                    // a persistent dynalite may already hold it
                }
            }
        }
    }

    private Path writeSfnConfig(int sfnPort) throws IOException {
        Path dir = workDir.resolve("statemachines");
        Files.createDirectories(dir);
        List<Map<String, String>> machines = new ArrayList<>();
        for (Template.StateMachineDef sm : template.stateMachines()) {
            Path file = dir.resolve(sm.logicalId() + ".json");
            Files.writeString(file, template.substitutedDefinition(sm));
            machines.add(Map.of("arn", sm.arn(), "definitionFile", file.toString()));
        }
        Path config = workDir.resolve("sfn-config.json");
        Files.writeString(config, Json.write(Map.of("port", sfnPort, "stateMachines", machines)));
        return config;
    }

    private static int port(String envName) {
        return URI.create(requireEnv(envName)).getPort();
    }

    static String requireEnv(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " must be set for the local stack");
        }
        return v;
    }

    /** Stops the Node processes (SIGTERM, then SIGKILL after 5 s, descendants included) and the in-process servers. */
    @Override
    public void close() {
        for (Process p : processes.reversed()) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
        if (lambdaHost != null) {
            lambdaHost.close();
        }
        if (eventBus != null) {
            eventBus.close();
        }
    }
}
