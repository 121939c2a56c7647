package dev.richter.local;

import dev.richter.api.ApiRequest;
import dev.richter.common.Json;
import dev.richter.loaddriver.LoadDriver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
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
 *   <li>EventBridge Scheduler: {@link LocalScheduler} in this JVM (one-time schedules at their time);</li>
 *   <li>KMS: {@link LocalKms} in this JVM ({@code Encrypt} and {@code Decrypt} with the template's keys, their
 *       material kept in {@code <workDir>/kms});</li>
 *   <li>Step Functions: {@code local/node/sfn-server.cjs} on {@code aws-local-stepfunctions}, running
 *       the real ASL files with the template's substitutions.</li>
 * </ul>
 * Ports come from the same environment the functions read: {@code AWS_ENDPOINT_URL_DYNAMODB},
 * {@code AWS_ENDPOINT_URL_SFN}, {@code AWS_ENDPOINT_URL_EVENTBRIDGE}, {@code AWS_ENDPOINT_URL_LAMBDA},
 * {@code AWS_ENDPOINT_URL_SCHEDULER}, {@code AWS_ENDPOINT_URL_KMS}
 * and {@code RICHTER_API_PORT}; every one must be set (so no client can reach real AWS by mistake).
 *
 * <p>Limits: the stack is as strict as AWS where Richter depends on a limit, each one lowerable
 * through {@link LocalLimits} (default {@link LocalLimits#fromEnv()}): the Lambda host enforces
 * every function's {@code Timeout} and the invocation payload limit; the Step Functions server gets
 * the Step Functions limits in its config ({@code "limits": {"inlineMapMaxConcurrency": n,
 * "distributedMapMaxConcurrency": n, "historyEventsPerExecution": n, "statePayloadBytes": n}}); the
 * template is read with the limits' parameter overrides.
 *
 * <p>Faults: off unless {@link LocalFaults} (default {@link LocalFaults#fromEnv()}, {@code RICHTER_LOCAL_FAULTS}) sets
 * some, and replaceable while the stack runs ({@code stack.faults().set(LocalFaults.parse("..."))},
 * {@code stack.faults().clear()}): Lambda faults in {@link LambdaHost}, DynamoDB faults in dynalite (armed at its
 * control endpoint, tables named by logical id or physical name), EventBridge faults in {@link EventBusCapture}. Each
 * fault that fires is logged and appended to {@link #faultsFile()}; {@code faults().fired()} counts them per rule. A
 * rule naming a function or table the template lacks stops {@link #start()}.
 *
 * <p>IAM: on unless {@link #withoutIam()} or {@code RICHTER_LOCAL_IAM=off}: {@link IamPolicies} reads every principal's
 * policies from the template; {@link IamEnforcement} checks every AWS SDK call a function makes (and the Lambda host
 * every Task invoke of a state machine, the Step Functions server every Distributed Map's child executions) and
 * refuses what AWS would refuse, with AWS's exception and message. Every distinct call is recorded with its decision
 * in {@link #iamRecordingFile()}.
 *
 * <p>Function environment: every function runs in this one JVM, so {@link #start()} sets a JVM
 * system property for each variable of each function's template {@code Environment} (functions read
 * them through {@code dev.richter.common.Env}), except names the real process environment already
 * sets (non-blank), which win as they do in {@code Env}; it also sets {@code RICHTER_HISTORY_EVENT_LIMIT},
 * {@code RICHTER_STATE_PAYLOAD_BYTES}, {@code RICHTER_INLINE_MAP_MAX_CONCURRENCY},
 * {@code RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY} and {@code RICHTER_INVOKE_PAYLOAD_BYTES} from the
 * limits. {@link #close()} restores every property it set to its previous value. System properties
 * are JVM-wide: run one stack at a time per JVM.
 */
public final class LocalAwsStack implements AutoCloseable {
    /**
     * Template parameters the local stack sets unless {@link LocalLimits#parameterOverrides()} does: timings, not
     * limits. The in-process Lambda host starts no new sandboxes, so workers need a 3 s lead before their first due
     * time instead of AWS's 10 s (cold start plus Distributed Map fan-out).
     */
    static final Map<String, String> LOCAL_PARAMETER_DEFAULTS = Map.of("WorkerLeadMs", "3000",
            "OidcIssuer", LocalIdentityProvider.ISSUER, "OidcAudience", LocalIdentityProvider.AUDIENCE,
            "ConsoleAuthorizationEndpoint", LocalSignIn.PATH + "authorize", "ConsoleTokenEndpoint", LocalSignIn.PATH + "token");

    private final Path root;
    private final Path workDir;
    private final Consumer<String> log;
    private final LocalLimits limits;
    private final FaultInjector faults;
    /** The Node processes started, guarded by itself (with {@link #closed}): {@link #close()} may run during start. */
    private final List<Process> processes = new ArrayList<>();
    /** True once {@link #close()} began; no process starts after it. */
    private boolean closed;
    /** System properties {@link #start()} set, with their previous values (null: unset), to restore. */
    private final Map<String, String> previousProperties = new LinkedHashMap<>();
    private LambdaHost lambdaHost;
    private EventBusCapture eventBus;
    private EventRuleDelivery ruleDelivery;
    private LocalScheduler scheduler;
    private LocalKms kms;
    private SamTemplate template;
    private LocalIdentityProvider identity;
    private boolean insecureDevAuth;
    private boolean verbose;
    /** Whether IAM is enforced ({@link #withoutIam()} turns it off). */
    private boolean iam = iamFromEnv();
    /** The template read instead of {@code <root>/template.yaml}, or null. */
    private Path templateFile;
    /** The Lambda host's per-invocation lines ({@code <workDir>/logs/lambda.log}), open while the stack runs. */
    private PrintWriter invocationLog;

    /**
     * A stack with the limits of {@link LocalLimits#fromEnv()} ({@code RICHTER_LOCAL_LIMITS}, else AWS's) and the faults
     * of {@link LocalFaults#fromEnv()} ({@code RICHTER_LOCAL_FAULTS}, else none).
     *
     * @param root    the repository root (holds {@code template.yaml}, {@code local/node})
     * @param workDir where generated definitions, logs and captured events go
     * @param log     progress lines
     * @throws IllegalArgumentException naming the key when {@code RICHTER_LOCAL_LIMITS} or {@code RICHTER_LOCAL_FAULTS}
     *                                  is malformed
     */
    public LocalAwsStack(Path root, Path workDir, Consumer<String> log) {
        this(root, workDir, LocalLimits.fromEnv(), log);
    }

    /**
     * A stack with the faults of {@link LocalFaults#fromEnv()} ({@code RICHTER_LOCAL_FAULTS}, else none).
     *
     * @param root    the repository root (holds {@code template.yaml}, {@code local/node})
     * @param workDir where generated definitions, logs and captured events go
     * @param limits  the limits to enforce and the template parameter overrides
     * @param log     progress lines
     * @throws IllegalArgumentException naming the key when {@code RICHTER_LOCAL_FAULTS} is malformed
     */
    public LocalAwsStack(Path root, Path workDir, LocalLimits limits, Consumer<String> log) {
        this(root, workDir, limits, LocalFaults.fromEnv(), log);
    }

    /**
     * @param root    the repository root (holds {@code template.yaml}, {@code local/node})
     * @param workDir where generated definitions, logs and captured events go
     * @param limits  the limits to enforce and the template parameter overrides
     * @param faults  the faults armed at start ({@link LocalFaults#NONE} for none); {@link #faults()} replaces them later
     * @param log     progress lines
     */
    public LocalAwsStack(Path root, Path workDir, LocalLimits limits, LocalFaults faults, Consumer<String> log) {
        this.root = root.toAbsolutePath().normalize();
        this.workDir = workDir.toAbsolutePath().normalize();
        this.limits = Objects.requireNonNull(limits, "limits");
        this.log = log;
        this.faults = new FaultInjector(Objects.requireNonNull(faults, "faults"), faultsFile(), log);
    }

    /**
     * Makes the HTTP API also accept requests without a token that name their team in {@code x-richter-team} (and
     * their caller in {@code x-richter-user}); see {@link ApiAuth#insecureDevHeaders()}. For trying the API by hand
     * only: anyone who can reach the port is any team. Call before {@link #start()}.
     */
    public LocalAwsStack insecureDevAuth() {
        this.insecureDevAuth = true;
        return this;
    }

    /**
     * Also prints the Lambda host's per-invocation lines (one per invocation and API request: function, status,
     * milliseconds) to the progress log; without it they go only to {@code <workDir>/logs/lambda.log}. Call before
     * {@link #start()}.
     */
    public LocalAwsStack verbose() {
        this.verbose = true;
        return this;
    }

    /**
     * The environment variable (or system property) that turns IAM enforcement off with the value {@code off}; IAM is
     * on by default, as on AWS.
     */
    public static final String IAM_ENV_VAR = "RICHTER_LOCAL_IAM";

    /**
     * {@value #IAM_ENV_VAR}: {@code on} (also when unset) or {@code off}.
     *
     * @throws IllegalArgumentException naming the variable for any other value
     */
    static boolean iamFromEnv() {
        String v = KeyValueSpec.fromEnv(IAM_ENV_VAR).orElse("on").trim();
        return switch (v) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(IAM_ENV_VAR + ": must be on or off, was '" + v + "'");
        };
    }

    /**
     * Lets every AWS call of the functions and state machines through, as if their roles allowed everything (the
     * calls are still recorded, and what AWS would refuse is logged). For a test that needs IAM off; call before
     * {@link #start()}. Also {@code RICHTER_LOCAL_IAM=off}.
     */
    public LocalAwsStack withoutIam() {
        this.iam = false;
        return this;
    }

    /**
     * Reads {@code file} instead of {@code <root>/template.yaml} (its {@code DefinitionUri}s still from the root), e.g. a
     * test's copy with one policy line removed. Call before {@link #start()}.
     */
    public LocalAwsStack withTemplate(Path file) {
        this.templateFile = file.toAbsolutePath().normalize();
        return this;
    }

    /**
     * Where every distinct AWS call the functions and state machines make is recorded with its IAM decision (one JSON
     * object per line, {@link IamEnforcement}): {@code RICHTER_IAM_RECORDING} when set, else
     * {@code <workDir>/iam-calls.jsonl}.
     */
    public Path iamRecordingFile() {
        return KeyValueSpec.fromEnv("RICHTER_IAM_RECORDING").map(Path::of).orElse(workDir.resolve("iam-calls.jsonl"));
    }

    /** The repository root from {@code RICHTER_HOME}, else the working directory. */
    public static Path rootFromEnv() {
        String home = System.getenv("RICHTER_HOME");
        return Path.of(home == null || home.isBlank() ? "." : home).toAbsolutePath().normalize();
    }

    /**
     * Starts everything; on any failure stops what was started and rethrows.
     *
     * @throws IOException              when a process cannot start or a port is taken
     * @throws IllegalStateException    when a required environment variable is missing, or two functions
     *                                  give one environment variable different values
     * @throws IllegalArgumentException when a parameter override names no template parameter or breaks
     *                                  its constraints
     */
    public LocalAwsStack start() throws IOException, InterruptedException {
        try {
            Files.createDirectories(workDir.resolve("logs"));
            int dynamoPort = port("AWS_ENDPOINT_URL_DYNAMODB");
            int sfnPort = port("AWS_ENDPOINT_URL_SFN");
            int eventsPort = port("AWS_ENDPOINT_URL_EVENTBRIDGE");
            int lambdaPort = port("AWS_ENDPOINT_URL_LAMBDA");
            int schedulerPort = port("AWS_ENDPOINT_URL_SCHEDULER");
            int kmsPort = port("AWS_ENDPOINT_URL_KMS");
            int apiPort = Integer.parseInt(requireEnv("RICHTER_API_PORT"));
            Map<String, String> overrides = new LinkedHashMap<>(LOCAL_PARAMETER_DEFAULTS);
            overrides.putAll(limits.parameterOverrides());
            template = templateFile == null ? SamTemplate.load(root, overrides) : SamTemplate.load(root, templateFile, overrides);
            IamEnforcement.install(IamPolicies.of(template), iam, iamRecordingFile(), log);
            log.accept("local IAM: " + (iam ? "enforced" : "OFF (" + IAM_ENV_VAR + "=off or withoutIam())")
                    + " from the template's policies; calls recorded in " + iamRecordingFile());
            log.accept("local limits: " + limits.describe());
            faults.targets(template.functions().stream().map(SamTemplate.FunctionDef::logicalId).collect(Collectors.toSet()),
                    template.tableNames());
            logFaults(faults.current());
            log.accept("template parameters set here: " + overrides + " (WorkerLeadMs defaults to "
                    + LOCAL_PARAMETER_DEFAULTS.get("WorkerLeadMs") + " locally: no cold starts; 10000 on AWS)");
            setFunctionProperties(template);
            ensureNodeModules();

            startNode("dynamodb", List.of("dynalite.cjs", "--port", String.valueOf(dynamoPort),
                    "--faults-log", faultsFile().toString()), Map.of());
            createTables(dynamoPort);
            faults.attachDynamoDb(URI.create("http://127.0.0.1:" + dynamoPort));   // after the tables: a fault may hit CreateTable

            kms = LocalKms.loadOrCreate(workDir.resolve("kms"), template.kmsKeys().values()).start(kmsPort);
            eventBus = new EventBusCapture(workDir.resolve("events.jsonl"), faults);
            eventBus.start(eventsPort);
            identity = LocalIdentityProvider.loadOrCreate(workDir.resolve("idp"));
            ApiAuth auth = ApiAuth.of(template, identity);
            if (insecureDevAuth) {
                auth = auth.insecureDevHeaders();
            }
            Path invocations = workDir.resolve("logs/lambda.log");
            invocationLog = new PrintWriter(Files.newBufferedWriter(invocations, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
            PrintWriter invocationFile = invocationLog;
            lambdaHost = new LambdaHost(template, limits.invokePayloadBytes(), auth, ApiRequest.MAX_BODY_BYTES, faults,
                    line -> {
                        synchronized (invocationFile) {
                            invocationFile.println(Instant.now() + " " + line);
                        }
                        if (verbose) {
                            log.accept("  " + line);
                        }
                    });
            if (!verbose) {
                log.accept("Lambda invocations: " + invocations + " (--verbose prints them here)");
            }
            lambdaHost.writeMetricsTo(metricsFile());
            log.accept("Richter's own metrics (EMF): " + metricsFile());
            lambdaHost.serveOnApiPort(LocalSignIn.PATH, new LocalSignIn(identity, java.time.Clock.systemUTC()));
            lambdaHost.start(lambdaPort, apiPort);
            ruleDelivery = new EventRuleDelivery(rulesOnTheFunctionsBus(template.eventRules(), System.getenv("EVENT_BUS_NAME")),
                    lambdaHost, line -> {
                synchronized (invocationFile) {
                    invocationFile.println(Instant.now() + " " + line);
                }
            });
            eventBus.addListener(ruleDelivery);
            scheduler = new LocalScheduler(lambdaHost, template.scheduleGroups(), line -> {
                synchronized (invocationFile) {
                    invocationFile.println(Instant.now() + " " + line);
                }
                log.accept(line);
            });
            scheduler.start(schedulerPort);

            Path config = writeSfnConfig(sfnPort);
            startNode("sfn", List.of("sfn-server.cjs", "--config", config.toString(), "--port", String.valueOf(sfnPort)),
                    Map.of("AWS_ENDPOINT_URL_LAMBDA", "http://127.0.0.1:" + lambdaPort,
                            "AWS_ENDPOINT_URL_EVENTBRIDGE", "http://127.0.0.1:" + eventsPort));
            log.accept("local stack up: dynamodb :" + dynamoPort + ", sfn :" + sfnPort + ", lambda :" + lambdaPort
                    + ", events :" + eventsPort + ", scheduler :" + schedulerPort + ", kms :" + kmsPort
                    + ", api http://127.0.0.1:" + apiPort);
            return this;
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Where the Lambda host appends the CloudWatch EMF lines the functions print ({@code <workDir>/metrics.jsonl}, one
     * JSON object per line; {@code build/local/metrics.jsonl} for {@code ./richter demo} and {@code ./richter stack}).
     */
    public Path metricsFile() {
        return workDir.resolve("metrics.jsonl");
    }

    /**
     * Where every fault that fires is appended, one JSON object per line ({@code <workDir>/faults.jsonl}; the line format is
     * {@link FaultInjector}'s), by this JVM (Lambda, EventBridge) and by dynalite (DynamoDB).
     */
    public Path faultsFile() {
        return workDir.resolve("faults.jsonl");
    }

    /**
     * The faults armed now, replaceable while the stack runs: {@code faults().set(LocalFaults.parse("..."))},
     * {@code faults().clear()}; {@code faults().fired()} counts the faults fired per rule.
     */
    public FaultInjector faults() {
        return faults;
    }

    /** Logs the armed faults: one line, and a loud banner when there are some. */
    private void logFaults(LocalFaults armed) {
        log.accept("local faults: " + armed.describe());
        if (!armed.isEmpty()) {
            String bar = "!".repeat(100);
            log.accept(bar);
            log.accept("!! FAULTS ARMED (" + LocalFaults.ENV_VAR + "): the local stack fails on purpose:");
            armed.rules().forEach(r -> log.accept("!!   " + r));
            log.accept("!! each fault that fires is logged and appended to " + faultsFile());
            log.accept(bar);
        }
    }

    /** The local identity provider whose tokens the HTTP API accepts (keys in {@code <workDir>/idp}). */
    public LocalIdentityProvider identity() {
        return identity;
    }

    /** The parsed template, with the limits' parameter overrides. */
    public SamTemplate template() {
        return template;
    }

    /** The limits this stack enforces. */
    public LocalLimits limits() {
        return limits;
    }

    /**
     * The system properties the stack sets for its functions: every function's template environment
     * (names the process environment sets excluded, and {@link #JVM_LAUNCHER_VARIABLES}), the limits'
     * {@link LocalLimits#systemProperties()}, and the load driver's collection before a step turned off (one JVM
     * holds every worker here, so one worker's collection would pause the others).
     *
     * @throws IllegalStateException naming the variable, both functions and both values when two
     *                               functions give one name different values (one JVM cannot hold both)
     */
    /**
     * Variables Lambda's Java runtime hands to the JVM it starts, not to the function's code (e.g.
     * {@code JAVA_TOOL_OPTIONS}: one function's JIT and heap flags). The in-JVM host starts no JVM per function, so it
     * cannot apply them and does not pass them on.
     */
    static final Set<String> JVM_LAUNCHER_VARIABLES = Set.of("JAVA_TOOL_OPTIONS");

    static Map<String, String> functionProperties(List<SamTemplate.FunctionDef> functions, LocalLimits limits,
                                                  Function<String, String> processEnv) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> setBy = new LinkedHashMap<>();
        for (SamTemplate.FunctionDef f : functions) {
            for (var e : f.environment().entrySet()) {
                if (JVM_LAUNCHER_VARIABLES.contains(e.getKey())) {
                    continue;
                }
                String previous = values.putIfAbsent(e.getKey(), e.getValue());
                if (previous == null) {
                    setBy.put(e.getKey(), f.logicalId());
                } else if (!previous.equals(e.getValue())) {
                    throw new IllegalStateException("template.yaml: environment variable " + e.getKey() + " is '" + previous
                            + "' for " + setBy.get(e.getKey()) + " but '" + e.getValue() + "' for " + f.logicalId()
                            + "; the local stack runs every function in one JVM and hands the environment over as"
                            + " system properties, so one name can have only one value");
                }
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            String env = processEnv.apply(k);
            if (env == null || env.isBlank()) {
                out.put(k, v);
            }
        });
        out.putAll(limits.systemProperties());
        // one JVM runs every worker here: a worker's collection before its step would pause the others mid-step
        out.put(LoadDriver.Config.COLLECT_BEFORE_STEP_ENV, "false");
        // the local targets (the demo shop, test servers) and webhooks are on loopback, which Richter on AWS refuses
        // (AllowedNetworks); said at start (setFunctionProperties)
        out.put(ALLOW_LOOPBACK, "true");
        return out;
    }

    /**
     * The rules as the local bus sees them: a rule on the template's custom bus ({@code EventBusName: {Ref:
     * RichterEventBus}}, locally its logical id) listens on the bus the functions put their events on, which is
     * {@code EVENT_BUS_NAME} of the process environment when it is set (it wins over the template's value, as in
     * {@code Env}); rules on the {@code default} bus stay there. The template has one custom bus.
     */
    static List<SamTemplate.EventRule> rulesOnTheFunctionsBus(List<SamTemplate.EventRule> rules, String busEnv) {
        if (busEnv == null || busEnv.isBlank()) {
            return rules;
        }
        return rules.stream().map(r -> r.eventBusName().equals("default") ? r
                : new SamTemplate.EventRule(r.logicalId(), busEnv, r.pattern(), r.functionTargets())).toList();
    }

    /** The local stack's one difference from AWS in where Richter may call: loopback targets and webhooks pass. */
    static final String ALLOW_LOOPBACK = "RICHTER_ALLOW_LOOPBACK";

    /** Sets {@link #functionProperties} of {@code t}, remembering previous values for {@link #close()}. */
    void setFunctionProperties(SamTemplate t) {
        Map<String, String> props = functionProperties(t.functions(), limits, System::getenv);
        log.accept("network check: the local stack lets Richter call loopback addresses (127.0.0.0/8, ::1), which a"
                + " deployment refuses with link-local and metadata addresses (AllowedNetworks)");
        props.forEach((k, v) -> {
            if (!previousProperties.containsKey(k)) {
                previousProperties.put(k, System.getProperty(k));
            }
            System.setProperty(k, v);
        });
        limits.systemProperties().forEach((k, v) -> {
            String env = System.getenv(k);
            if (env != null && !env.isBlank() && !env.equals(v)) {
                log.accept("warning: environment variable " + k + "=" + env + " hides the local limit " + v
                        + " from functions reading it through Env");
            }
        });
    }

    private void restoreProperties() {
        previousProperties.forEach((k, v) -> {
            if (v == null) {
                System.clearProperty(k);
            } else {
                System.setProperty(k, v);
            }
        });
        previousProperties.clear();
    }

    /** The local EventBridge's captured events. */
    public EventBusCapture eventBus() {
        return eventBus;
    }

    /** The local EventBridge Scheduler (one-time schedules run at their time). */
    public LocalScheduler scheduler() {
        return scheduler;
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
        synchronized (processes) {
            if (closed) {
                // close() ran (a TERM while starting): this process must not outlive the JVM
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
                throw new IOException("the local stack is stopping: " + name + " not started");
            }
            processes.add(p);
        }
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
        } catch (ExecutionException | TimeoutException e) {
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
        for (SamTemplate.StateMachineDef sm : template.stateMachines()) {
            Path file = dir.resolve(sm.logicalId() + ".json");
            Files.writeString(file, template.substitutedDefinition(sm));
            machines.add(Map.of("arn", sm.arn(), "definitionFile", file.toString(), "principal", sm.logicalId()));
        }
        Path config = workDir.resolve("sfn-config.json");
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("port", sfnPort);
        doc.put("stateMachines", machines);
        doc.put("limits", limits.stepFunctionsConfig());
        Files.writeString(config, Json.write(doc));
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

    /**
     * Stops the Node processes (SIGTERM, then SIGKILL after 5 s, descendants included) and the
     * in-process servers, and restores the system properties {@link #start()} set. {@link #faults()}'s counts stay
     * readable. Runs once: later calls return at once. Safe while {@link #start()} runs on another thread (a shutdown
     * hook): a process {@code start()} launches after it is stopped at once, and {@code start()} fails.
     */
    @Override
    public void close() {
        List<Process> started;
        synchronized (processes) {
            if (closed) {
                return;
            }
            closed = true;
            started = new ArrayList<>(processes);
            processes.clear();
        }
        faults.detachDynamoDb();
        for (Process p : started.reversed()) {
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
        if (lambdaHost != null) {
            lambdaHost.close();
        }
        if (scheduler != null) {
            scheduler.close();
        }
        if (ruleDelivery != null) {
            ruleDelivery.close();
        }
        if (kms != null) {
            kms.close();
        }
        if (eventBus != null) {
            eventBus.close();
        }
        if (invocationLog != null) {
            invocationLog.close();
        }
        IamEnforcement.uninstall();
        restoreProperties();
    }
}
