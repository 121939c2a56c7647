package dev.richter.local;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import dev.richter.common.metrics.RichterMetrics;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Serves, in this JVM, the Lambda Invoke API for every function of {@code template.yaml}
 * ({@code POST /2015-03-31/functions/{name-or-arn}/invocations}) and the HTTP API routes as API
 * Gateway payload 2.0 events, as strict as AWS Lambda on the limits Richter depends on.
 *
 * <p>Each function keeps a pool of handler instances (like warm sandboxes): one instance handles
 * one invocation at a time, a new one is built when all are busy. Each invocation runs on its own
 * platform thread and gets a {@link Context} with a fresh request id, the function's
 * {@code MemorySize} and a true {@link Context#getRemainingTimeInMillis()}. Answers, as Lambda gives
 * them (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html):
 * <ul>
 *   <li>success: HTTP 200 and the handler's output;</li>
 *   <li>a handler exception: HTTP 200, {@code X-Amz-Function-Error: Unhandled} and
 *       {@code {errorMessage, errorType, stackTrace}} (the instance is kept), which Step Functions turns
 *       into a Task failure named {@code errorType};</li>
 *   <li>the function's {@code Timeout} passes (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html):
 *       HTTP 200, {@code X-Amz-Function-Error: Unhandled} and
 *       {@code {"errorType":"Sandbox.Timedout","errorMessage":"RequestId: <id> Error: Task timed out after 15.00 seconds"}};
 *       the handler thread is interrupted and its instance discarded, as AWS discards the sandbox;</li>
 *   <li>a request body over {@code invokePayloadBytes} (AWS: 6 MB = 6291456 bytes for a synchronous
 *       invocation, https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): HTTP 413,
 *       {@code x-amzn-ErrorType: RequestEntityTooLargeException},
 *       {@code {"Type":"User","message":"Request must be smaller than 6291456 bytes for the InvokeFunction operation"}};
 *       the function does not run;</li>
 *   <li>a response over {@code invokePayloadBytes} + {@value #RESPONSE_ALLOWANCE_BYTES} (AWS reports 6291556
 *       bytes): HTTP 200, {@code X-Amz-Function-Error: Unhandled},
 *       {@code {"errorType":"Function.ResponseSizeTooLarge","errorMessage":"Response payload size exceeded maximum allowed payload size (6291556 bytes)."}}
 *       (the instance is discarded: AWS's runtime exits);</li>
 *   <li>an unknown function: HTTP 404, {@code x-amzn-ErrorType: ResourceNotFoundException}.</li>
 * </ul>
 * A cold instance's construction (AWS's init phase) does not count against the timeout, but an init
 * longer than {@value #INIT_LIMIT_S} s does, as on AWS
 * (https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html).
 *
 * <p>IAM ({@link IamEnforcement}): each invocation's thread, init included, is marked with its function, so the
 * function's AWS SDK calls run under its role's policies. An Invoke that names its caller in
 * {@value #PRINCIPAL_HEADER} (the Step Functions server, for a state machine's Task) is checked for
 * {@code lambda:InvokeFunction} first: refused, it is answered 403 {@code AccessDeniedException} with AWS's message and
 * the function does not run. {@code POST} {@value #IAM_CHECK_PATH} {@code {principal, action, resource, session}}
 * answers {@code {denied: message | null}} for the server's own calls (a Distributed Map's child executions).
 *
 * <p>Faults: the {@link LocalFaults} Lambda rules of its {@link FaultInjector} ({@code error}, {@code timeout},
 * {@code throttle}, {@code crash:<ms>}) are applied in {@link #invoke}, after the function is found and the request
 * size checked, so the Invoke API and the HTTP API alike get them; see {@link LocalFaults} for each answer.
 */
public final class LambdaHost implements AutoCloseable {
    private static final String INVOKE_PREFIX = "/2015-03-31/functions/";

    /**
     * Bytes a synchronous response may exceed the request limit by: AWS's error names 6291556 bytes,
     * the 6 MB request limit (6291456) plus 100.
     */
    public static final int RESPONSE_ALLOWANCE_BYTES = 100;
    /** How much of a too-large body is read and dropped before the 413 is sent. */
    private static final long DRAIN_LIMIT_BYTES = 64L * 1024 * 1024;
    /** API Gateway's largest HTTP API request body: 10 MB. */
    public static final int API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
    /** AWS Lambda's init phase limit, in seconds, for on-demand functions. */
    public static final int INIT_LIMIT_S = 10;

    private final Map<String, SamTemplate.FunctionDef> functions = new LinkedHashMap<>();
    private final Map<String, Queue<RequestStreamHandler>> warm = new ConcurrentHashMap<>();
    private final List<SamTemplate.Route> routes;
    private final int invokePayloadBytes;
    private final ApiAuth auth;
    private final int maxApiBodyBytes;
    private final Consumer<String> log;
    private final FaultInjector faults;
    /** Handler threads still running (timed-out ones included), interrupted by {@link #close()}. */
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    private final AtomicLong threadSeq = new AtomicLong();
    /**
     * Platform threads, not virtual ones: a function's first invocations run class initializers
     * (SDK clients, schemas), and a virtual thread blocked in class initialization pins its carrier;
     * with as many carriers as cores, concurrent cold starts can then deadlock.
     */
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private HttpServer lambdaServer;
    private HttpServer apiServer;
    /** Paths served on the API's port by the local stack's own handlers ({@link #serveOnApiPort}). */
    private final Map<String, com.sun.net.httpserver.HttpHandler> extraApiContexts = new LinkedHashMap<>();
    /** The EMF file's writer while {@link #writeMetricsTo} is in effect, and the sink it replaced. */
    private BufferedWriter metricsFile;
    private Consumer<String> previousMetricsSink;

    /**
     * A host with AWS's invocation payload limit ({@link LocalLimits#AWS_INVOKE_PAYLOAD_BYTES}) whose routes with an
     * authorizer refuse every request ({@link ApiAuth#none()}).
     *
     * @param template the parsed template (parameter overrides applied)
     * @param log      where one line per invocation goes
     */
    public LambdaHost(SamTemplate template, Consumer<String> log) {
        this(template, LocalLimits.AWS_INVOKE_PAYLOAD_BYTES, log);
    }

    /**
     * A host whose routes with an authorizer refuse every request ({@link ApiAuth#none()}), with API Gateway's body
     * limit ({@value #API_GATEWAY_MAX_BODY_BYTES} bytes).
     */
    public LambdaHost(SamTemplate template, int invokePayloadBytes, Consumer<String> log) {
        this(template, invokePayloadBytes, ApiAuth.none(), API_GATEWAY_MAX_BODY_BYTES, log);
    }

    /**
     * @param template           the parsed template (parameter overrides applied): functions with their
     *                           handler, {@code Timeout} and {@code MemorySize}, and the HTTP API routes
     * @param invokePayloadBytes the largest request body, in bytes (see {@link LocalLimits#invokePayloadBytes()})
     * @param auth               how routes with an authorizer authorize a request
     * @param maxApiBodyBytes    the largest HTTP API request body, bytes: a larger one is answered 413 without
     *                           invoking anything
     * @param log                where one line per invocation goes
     * @throws IllegalArgumentException when {@code invokePayloadBytes} or {@code maxApiBodyBytes} is below 1
     */
    public LambdaHost(SamTemplate template, int invokePayloadBytes, ApiAuth auth, int maxApiBodyBytes, Consumer<String> log) {
        this(template, invokePayloadBytes, auth, maxApiBodyBytes, FaultInjector.none(), log);
    }

    /**
     * A host that applies the Lambda faults {@code faults} arms (see {@link LocalFaults}); the other parameters as in
     * {@link #LambdaHost(SamTemplate, int, ApiAuth, int, Consumer)}.
     */
    public LambdaHost(SamTemplate template, int invokePayloadBytes, ApiAuth auth, int maxApiBodyBytes, FaultInjector faults,
                      Consumer<String> log) {
        if (invokePayloadBytes < 1 || maxApiBodyBytes < 1) {
            throw new IllegalArgumentException("invokePayloadBytes and maxApiBodyBytes must be positive, were "
                    + invokePayloadBytes + " and " + maxApiBodyBytes);
        }
        template.functions().forEach(f -> functions.put(f.logicalId(), f));
        this.routes = template.routes();
        this.invokePayloadBytes = invokePayloadBytes;
        this.auth = Objects.requireNonNull(auth, "auth");
        this.maxApiBodyBytes = maxApiBodyBytes;
        this.faults = Objects.requireNonNull(faults, "faults");
        this.log = log;
    }

    /** The fault injector whose Lambda rules this host applies. */
    public FaultInjector faults() {
        return faults;
    }

    /** Starts the Invoke API on {@code lambdaPort} and the HTTP API on {@code apiPort} (loopback). */
    public void start(int lambdaPort, int apiPort) throws IOException {
        lambdaServer = HttpServer.create(new InetSocketAddress("127.0.0.1", lambdaPort), 256);
        lambdaServer.createContext("/", this::serveInvoke);
        lambdaServer.setExecutor(executor);
        lambdaServer.start();
        apiServer = HttpServer.create(new InetSocketAddress("127.0.0.1", apiPort), 256);
        apiServer.createContext("/", this::serveApi);
        extraApiContexts.forEach(apiServer::createContext);
        apiServer.setExecutor(executor);
        apiServer.start();
    }

    /**
     * Serves {@code path} (a prefix, e.g. {@code /idp/}) on the HTTP API's port with {@code handler} instead of the
     * routes: the local stack's own pages that share the API's origin (its identity provider's sign-in). Call before
     * {@link #start}.
     */
    public void serveOnApiPort(String path, com.sun.net.httpserver.HttpHandler handler) {
        extraApiContexts.put(path, handler);
    }

    /** The function definitions this host serves, by logical id. */
    public Map<String, SamTemplate.FunctionDef> functions() {
        return Collections.unmodifiableMap(functions);
    }

    /** The largest request body, in bytes; a response may be {@value #RESPONSE_ALLOWANCE_BYTES} bytes larger. */
    public int invokePayloadBytes() {
        return invokePayloadBytes;
    }

    /**
     * Invokes a function in-process and waits for its answer (at most its {@code Timeout}, plus the
     * init phase of a cold instance).
     *
     * @param functionName the function's name (logical id), ARN, or ARN/name with a {@code :qualifier}
     * @param payload      the event, JSON bytes
     * @return the answer as the Invoke API gives it (see the class comment), or an armed fault's
     *         ({@link LocalFaults}); never throws for a function's failure
     */
    public Invocation invoke(String functionName, byte[] payload) {
        String id = functionName;
        int fn = id.indexOf("function:");
        if (fn >= 0) {
            id = id.substring(fn + "function:".length());
        }
        int colon = id.indexOf(':');
        if (colon >= 0) {
            id = id.substring(0, colon);
        }
        SamTemplate.FunctionDef def = functions.get(id);
        if (def == null) {
            return new Invocation(404, null, userError("Function not found: " + SamTemplate.functionArn(id)),
                    "ResourceNotFoundException", null);
        }
        if (payload.length > invokePayloadBytes) {
            log.accept(String.format("lambda %s REJECTED: request of %d bytes over the %d-byte invocation payload limit",
                    id, payload.length, invokePayloadBytes));
            return new Invocation(413, null, userError("Request must be smaller than " + invokePayloadBytes
                    + " bytes for the InvokeFunction operation"), "RequestEntityTooLargeException", null);
        }
        String requestId = UUID.randomUUID().toString();
        FaultInjector.Selected fault = faults.select(LocalFaults.Component.LAMBDA, id, "Invoke").orElse(null);
        return fault == null || fault.rule().kind() == LocalFaults.Kind.CRASH ? run(def, payload, requestId, fault)
                : injected(def, fault, requestId);
    }

    /**
     * The answer of an {@code error}, {@code timeout} or {@code throttle} fault, the handler not run (see
     * {@link LocalFaults}); the fault is recorded first, so its faults.jsonl time is when the invocation began.
     */
    private Invocation injected(SamTemplate.FunctionDef def, FaultInjector.Selected fault, String requestId) {
        faults.fire(fault, "Invoke");
        log.accept(String.format("lambda %s FAULT injected: %s (rule %s, request %s); the handler does not run",
                def.logicalId(), fault.rule().kind().id(), fault.rule(), requestId));
        return switch (fault.rule().kind()) {
            case THROTTLE -> {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("Type", "User");
                body.put("message", "Rate Exceeded.");
                body.put("Reason", "ReservedFunctionConcurrentInvocationLimitExceeded");
                yield new Invocation(429, null, Json.write(body).getBytes(StandardCharsets.UTF_8), "TooManyRequestsException", null);
            }
            case TIMEOUT -> {
                try {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(def.timeoutS()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                yield timedOut(def, requestId);
            }
            default -> {
                Map<String, Object> err = new LinkedHashMap<>();
                err.put("errorType", LocalFaults.INJECTED_ERROR_TYPE);
                err.put("errorMessage", "RequestId: " + requestId + " Error: fault injected by the local stack (" + fault.rule() + ")");
                err.put("stackTrace", List.of());
                yield unhandled(err, requestId);
            }
        };
    }

    /**
     * Runs the handler; with {@code crash} (a {@code crash:<ms>} fault), cuts it {@code ms} after it started if it
     * still runs: interrupts its thread, discards its instance and answers {@code Runtime.ExitError}.
     */
    private Invocation run(SamTemplate.FunctionDef def, byte[] payload, String requestId, FaultInjector.Selected crash) {
        String id = def.logicalId();
        Queue<RequestStreamHandler> pool = warm.computeIfAbsent(id, k -> new ConcurrentLinkedQueue<>());
        RequestStreamHandler pooled = pool.poll();
        long t0 = System.nanoTime();
        long timeoutNanos = TimeUnit.SECONDS.toNanos(def.timeoutS());
        CompletableFuture<Long> started = new CompletableFuture<>();   // the deadline, once the instance is built
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        AtomicReference<RequestStreamHandler> instance = new AtomicReference<>(pooled);
        Thread thread = Thread.ofPlatform().daemon().name("lambda-" + id + "-" + threadSeq.incrementAndGet()).unstarted(() -> {
            IamEnforcement.enter(id);   // the function's SDK calls, init included, run under its role's policies
            try {
                RequestStreamHandler h = instance.get();
                try {
                    if (h == null) {
                        h = (RequestStreamHandler) Class.forName(def.handlerClass()).getDeclaredConstructor().newInstance();
                        instance.set(h);
                    }
                } catch (Throwable e) {
                    started.completeExceptionally(e);
                    return;
                }
                long deadline = System.nanoTime() + timeoutNanos;
                started.complete(deadline);
                try {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    h.handleRequest(new ByteArrayInputStream(payload), out, new LocalContext(def, requestId, deadline));
                    result.complete(out.toByteArray());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            } finally {
                running.remove(Thread.currentThread());
            }
        });
        running.add(thread);
        thread.start();
        try {
            long deadline;
            try {
                deadline = started.get(TimeUnit.SECONDS.toNanos(INIT_LIMIT_S) + timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                return failed(id, t0, e.getCause(), requestId);
            }
            long cutNanos = crash == null ? deadline : deadline - timeoutNanos + TimeUnit.MILLISECONDS.toNanos(crash.rule().crashAfterMs());
            boolean cut = cutNanos - deadline < 0;
            byte[] out;
            try {
                out = result.get(Math.max(0, (cut ? cutNanos : deadline) - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                pool.offer(instance.get());
                return failed(id, t0, e.getCause(), requestId);
            } catch (TimeoutException e) {
                if (!cut) {
                    throw e;
                }
                return crashed(def, thread, crash, requestId);
            }
            int responseLimit = invokePayloadBytes + RESPONSE_ALLOWANCE_BYTES;
            if (out.length > responseLimit) {
                log.accept(String.format("lambda %s FAILED %d ms: response of %d bytes over the %d-byte limit (instance discarded)",
                        id, (System.nanoTime() - t0) / 1_000_000, out.length, responseLimit));
                return functionError("Function.ResponseSizeTooLarge",
                        "Response payload size exceeded maximum allowed payload size (" + responseLimit + " bytes).", requestId);
            }
            pool.offer(instance.get());
            log.accept(String.format("lambda %s ok %d ms", id, (System.nanoTime() - t0) / 1_000_000));
            return new Invocation(200, null, out, null, requestId);
        } catch (TimeoutException e) {
            thread.interrupt();
            log.accept(String.format("lambda %s TIMED OUT: Timeout %d s passed (request %s); handler thread interrupted, instance discarded",
                    id, def.timeoutS(), requestId));
            return timedOut(def, requestId);
        } catch (InterruptedException e) {
            thread.interrupt();
            Thread.currentThread().interrupt();
            return failed(id, t0, e, requestId);
        }
    }

    /** Lambda's answer when the function's {@code Timeout} passed. */
    private static Invocation timedOut(SamTemplate.FunctionDef def, String requestId) {
        String seconds = String.format(Locale.ROOT, "%.2f", (double) def.timeoutS());
        return functionError("Sandbox.Timedout", "RequestId: " + requestId + " Error: Task timed out after " + seconds + " seconds",
                requestId);
    }

    /**
     * Cuts a running handler as a killed runtime: interrupts its thread (its instance is not returned to the pool),
     * records the fault and answers {@code Runtime.ExitError}. What the handler started on other threads and that does
     * not watch its thread's interrupt keeps running (one JVM holds every function); a watcher logs it when the
     * handler thread itself is still alive 5 s later.
     */
    private Invocation crashed(SamTemplate.FunctionDef def, Thread thread, FaultInjector.Selected crash, String requestId) {
        thread.interrupt();
        faults.fire(crash, "Invoke");
        log.accept(String.format("lambda %s FAULT injected: crash %d ms after the handler started (rule %s, request %s);"
                + " handler thread interrupted, instance discarded", def.logicalId(), crash.rule().crashAfterMs(), crash.rule(), requestId));
        Thread.ofVirtual().name("lambda-crash-watch-" + def.logicalId()).start(() -> {
            try {
                if (!thread.join(Duration.ofSeconds(5))) {
                    log.accept(String.format("lambda %s: the crashed handler thread %s still runs 5 s after the cut (request %s):"
                            + " it does not honour interrupts", def.logicalId(), thread.getName(), requestId));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return functionError("Runtime.ExitError", "RequestId: " + requestId + " Error: Runtime exited with error: signal: killed", requestId);
    }

    /** The handler's exception as Lambda answers it. */
    private Invocation failed(String id, long t0, Throwable e, String requestId) {
        Throwable cause = e instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
        StringWriter trace = new StringWriter();
        cause.printStackTrace(new PrintWriter(trace));
        log.accept(String.format("lambda %s FAILED %d ms: %s", id, (System.nanoTime() - t0) / 1_000_000,
                String.join("\n    ", trace.toString().lines().limit(12).toList())));
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("errorMessage", String.valueOf(cause.getMessage()));
        err.put("errorType", cause.getClass().getSimpleName());
        err.put("stackTrace", trace.toString().lines().limit(20).toList());
        return unhandled(err, requestId);
    }

    private static Invocation functionError(String errorType, String errorMessage, String requestId) {
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("errorType", errorType);
        err.put("errorMessage", errorMessage);
        return unhandled(err, requestId);
    }

    /** An {@code X-Amz-Function-Error: Unhandled} answer with this error document. */
    private static Invocation unhandled(Map<String, Object> error, String requestId) {
        return new Invocation(200, "Unhandled", Json.write(error).getBytes(StandardCharsets.UTF_8), null, requestId);
    }

    private static byte[] userError(String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("Type", "User");
        m.put("message", message);
        return Json.write(m).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * One invocation's answer.
     *
     * @param status        the Invoke API's HTTP status (200 also for function errors)
     * @param functionError the {@code X-Amz-Function-Error} header value ({@code Unhandled}), or null
     * @param payload       the function's output, or the error document
     * @param errorType     the {@code x-amzn-ErrorType} header of an API error (status 4xx), or null
     * @param requestId     the invocation's request id ({@code x-amzn-RequestId}), null when the function did not run
     */
    public record Invocation(int status, String functionError, byte[] payload, String errorType, String requestId) {
        public Invocation(int status, String functionError, byte[] payload) {
            this(status, functionError, payload, null, null);
        }
    }

    /** Header naming the caller's IAM principal (a state machine's logical id) on an Invoke from the Step Functions server. */
    public static final String PRINCIPAL_HEADER = "x-richter-principal";
    /** The path where the Step Functions server asks {@link IamEnforcement#check} about its own calls. */
    public static final String IAM_CHECK_PATH = "/richter-local/iam/check";

    private void serveInvoke(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            if ("POST".equals(ex.getRequestMethod()) && path.equals(IAM_CHECK_PATH)) {
                // {principal, action, resource, session} -> {denied: AWS's message | null}
                JsonNode q = Json.MAPPER.readTree(ex.getRequestBody().readAllBytes());
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("denied", IamEnforcement.check(q.path("principal").asText(), q.path("action").asText(),
                        q.path("resource").asText(), q.path("session").asText()).orElse(null));
                send(ex, 200, "application/json", Json.write(answer).getBytes(StandardCharsets.UTF_8), Map.of());
                return;
            }
            if (!"POST".equals(ex.getRequestMethod()) || !path.startsWith(INVOKE_PREFIX) || !path.endsWith("/invocations")) {
                send(ex, 404, "application/json", "{\"message\":\"unknown Lambda API path\"}".getBytes(StandardCharsets.UTF_8), Map.of());
                return;
            }
            String name = URLDecoder.decode(path.substring(INVOKE_PREFIX.length(), path.length() - "/invocations".length()),
                    StandardCharsets.UTF_8);
            String caller = ex.getRequestHeaders().getFirst(PRINCIPAL_HEADER);
            if (caller != null) {
                String arn = name.startsWith("arn:") ? name : SamTemplate.functionArn(name);
                var denied = IamEnforcement.check(caller, "lambda:InvokeFunction", arn, caller);
                if (denied.isPresent()) {
                    // Lambda's answer to an unauthorized Invoke: 403 AccessDeniedException; the function does not run
                    send(ex, 403, "application/json", Json.write(Map.of("Message", denied.get())).getBytes(StandardCharsets.UTF_8),
                            Map.of("x-amzn-ErrorType", "AccessDeniedException", "x-amzn-RequestId", UUID.randomUUID().toString()));
                    return;
                }
            }
            Invocation inv = invoke(name, ex.getRequestBody().readAllBytes());
            Map<String, String> headers = new LinkedHashMap<>();
            if (inv.requestId() != null) {
                headers.put("x-amzn-RequestId", inv.requestId());
            }
            if (inv.errorType() != null) {
                headers.put("x-amzn-ErrorType", inv.errorType());
            } else {
                headers.put("X-Amz-Executed-Version", "$LATEST");
            }
            if (inv.functionError() != null) {
                headers.put("X-Amz-Function-Error", inv.functionError());
            }
            send(ex, inv.status(), "application/json", inv.payload(), headers);
        }
    }

    /**
     * Serves one HTTP API request as API Gateway would: the route whose method and path match, else the
     * {@code $default} route; the route's authorizer; then the function, whose answer is the response. The host's own
     * answers use Richter's error shape {@code {"error", "message"}}: 404 {@code NotFound} when no route matches and
     * there is no {@code $default} route, 413 {@code PayloadTooLarge} for a body over {@code maxApiBodyBytes}, 401
     * {@code Unauthorized} (with {@code WWW-Authenticate: Bearer error="invalid_token"}) when the authorizer refuses,
     * 500 {@code InternalError} when the function fails. (On AWS, API Gateway answers its own errors as
     * {@code {"message": "..."}}.)
     */
    private void serveApi(HttpExchange ex) throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            String rawPath = ex.getRequestURI().getRawPath();
            SamTemplate.Route route = null;
            Map<String, String> params = null;
            for (SamTemplate.Route r : routes) {
                Map<String, String> p = r.isDefault() ? null : match(r.path(), rawPath);
                if (p != null && (r.method().equals(method) || r.method().equals("ANY"))) {
                    route = r;
                    params = p;
                    break;
                }
            }
            if (route == null) {
                route = routes.stream().filter(SamTemplate.Route::isDefault).findFirst().orElse(null);
                params = Map.of();
            }
            if (route == null) {
                sendError(ex, 404, "NotFound", "no route " + method + " " + rawPath, Map.of());
                return;
            }
            byte[] body = ex.getRequestBody().readNBytes(maxApiBodyBytes + 1);
            if (body.length > maxApiBodyBytes) {
                // read (and drop) a bounded rest, so the client is not cut off mid-upload and reads the answer
                ex.getRequestBody().skip(DRAIN_LIMIT_BYTES);
                sendError(ex, 413, "PayloadTooLarge", "body: larger than the limit of " + maxApiBodyBytes + " bytes", Map.of());
                return;
            }
            Map<String, String> headers = new LinkedHashMap<>();
            ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
            Map<String, String> claims = null;
            if (!route.authorizer().isEmpty()) {
                try {
                    claims = auth.authorize(route.authorizer(), headers);
                } catch (JwtAuthorizer.Rejected e) {
                    log.accept("api " + method + " " + rawPath + " 401: " + e.getMessage());
                    sendError(ex, 401, "Unauthorized", e.getMessage(), Map.of("WWW-Authenticate",
                            "Bearer error=\"invalid_token\", error_description=\"" + e.getMessage().replace("\"", "'") + "\""));
                    return;
                }
            }
            Invocation inv = invoke(route.functionLogicalId(), Json.MAPPER.writeValueAsBytes(event(ex, route, params, headers, body, claims)));
            if (inv.status() != 200 || inv.functionError() != null) {
                // API Gateway answers a failed Lambda integration (error, timeout, limit) with 500
                sendError(ex, 500, "InternalError", "the function failed; see the local stack's log", Map.of());
                return;
            }
            JsonNode resp = Json.MAPPER.readTree(inv.payload());
            Map<String, String> out = new LinkedHashMap<>();
            resp.path("headers").fields().forEachRemaining(h -> out.put(h.getKey(), h.getValue().asText()));
            String contentType = out.getOrDefault("content-type", "application/json");
            out.remove("content-type");
            String text = resp.path("body").asText("");
            byte[] bytes = resp.path("isBase64Encoded").asBoolean(false) ? Base64.getDecoder().decode(text)
                    : text.getBytes(StandardCharsets.UTF_8);
            send(ex, resp.path("statusCode").asInt(200), contentType, bytes, out);
        }
    }

    private static void sendError(HttpExchange ex, int status, String code, String message, Map<String, String> headers)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code);
        body.put("message", message);
        send(ex, status, "application/json", Json.write(body).getBytes(StandardCharsets.UTF_8), headers);
    }

    /** Path parameters when {@code rawPath} matches the route template ({@code /runs/{runId}}), else null. */
    static Map<String, String> match(String template, String rawPath) {
        String[] t = template.split("/");
        String[] p = rawPath.split("/");
        if (t.length != p.length) {
            return null;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < t.length; i++) {
            if (t[i].startsWith("{") && t[i].endsWith("}")) {
                if (p[i].isEmpty()) {
                    return null;
                }
                params.put(t[i].substring(1, t[i].length() - 1), URLDecoder.decode(p[i], StandardCharsets.UTF_8));
            } else if (!t[i].equals(p[i])) {
                return null;
            }
        }
        return params;
    }

    /**
     * The API Gateway HTTP API payload format 2.0 event of one request; {@code claims} (null on an open route) go to
     * {@code requestContext.authorizer.jwt.claims}, as the JWT authorizer hands them over.
     */
    private static ObjectNode event(HttpExchange ex, SamTemplate.Route route, Map<String, String> params, Map<String, String> requestHeaders,
                                    byte[] body, Map<String, String> claims) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("version", "2.0");
        e.put("routeKey", route.routeKey());
        e.put("rawPath", ex.getRequestURI().getRawPath());
        String rawQuery = ex.getRequestURI().getRawQuery();
        e.put("rawQueryString", rawQuery == null ? "" : rawQuery);
        ObjectNode headers = e.putObject("headers");
        requestHeaders.forEach(headers::put);
        if (rawQuery != null && !rawQuery.isEmpty()) {
            ObjectNode q = e.putObject("queryStringParameters");
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                q.put(k, q.has(k) ? q.get(k).asText() + "," + v : v);
            }
        }
        if (!params.isEmpty()) {
            ObjectNode pp = e.putObject("pathParameters");
            params.forEach(pp::put);
        }
        ObjectNode rc = e.putObject("requestContext");
        rc.put("routeKey", route.routeKey());
        rc.put("requestId", UUID.randomUUID().toString());
        rc.put("timeEpoch", System.currentTimeMillis());
        if (claims != null) {
            ObjectNode jwt = rc.putObject("authorizer").putObject("jwt");
            ObjectNode c = jwt.putObject("claims");
            claims.forEach(c::put);
            jwt.putNull("scopes");
        }
        ObjectNode http = rc.putObject("http");
        http.put("method", ex.getRequestMethod());
        http.put("path", ex.getRequestURI().getRawPath());
        http.put("protocol", "HTTP/1.1");
        http.put("sourceIp", ex.getRemoteAddress().getAddress().getHostAddress());
        if (body.length > 0) {
            e.put("body", Base64.getEncoder().encodeToString(body));
            e.put("isBase64Encoded", true);
        } else {
            e.put("isBase64Encoded", false);
        }
        return e;
    }

    private static void send(HttpExchange ex, int status, String contentType, byte[] body, Map<String, String> headers) throws IOException {
        ex.getResponseHeaders().set("Content-Type", contentType);
        headers.forEach((k, v) -> ex.getResponseHeaders().set(k, v));
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            ex.getResponseBody().write(body);
        }
    }

    /** Stops both servers and interrupts every handler thread still running. */
    @Override
    public void close() {
        if (lambdaServer != null) {
            lambdaServer.stop(0);
        }
        if (apiServer != null) {
            apiServer.stop(0);
        }
        executor.shutdownNow();
        running.forEach(Thread::interrupt);
        synchronized (this) {
            if (metricsFile != null) {
                RichterMetrics.captureOutsideLambda(previousMetricsSink);
                try {
                    metricsFile.close();
                } catch (IOException e) {
                    log.accept("metrics file not closed cleanly: " + e);
                }
                metricsFile = null;
            }
        }
    }

    /**
     * Appends every CloudWatch EMF line the functions print (one JSON object per line, as Lambda would put it in the
     * function's log stream, {@link RichterMetrics}) to {@code file}, flushed per line,
     * until {@link #close()}. The functions run in this JVM, so the capture is JVM-wide.
     *
     * @param file the JSON-lines file (created with its directories; appended to)
     * @throws IOException when the file cannot be opened
     */
    public synchronized void writeMetricsTo(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        metricsFile = out;
        Consumer<String> previous = RichterMetrics.captureOutsideLambda(line -> {
            synchronized (out) {
                try {
                    out.write(line);
                    out.newLine();
                    out.flush();
                } catch (IOException e) {
                    log.accept("EMF line not written to " + file + ": " + e);
                }
            }
        });
        if (previousMetricsSink == null) {
            previousMetricsSink = previous;
        }
    }

    /**
     * The Lambda {@link Context} of one invocation: a fresh request id, the function's memory, and the
     * time left until its deadline (deadline − now, never negative).
     */
    private static final class LocalContext implements Context {
        private final SamTemplate.FunctionDef def;
        private final String requestId;
        private final long deadlineNanos;

        LocalContext(SamTemplate.FunctionDef def, String requestId, long deadlineNanos) {
            this.def = def;
            this.requestId = requestId;
            this.deadlineNanos = deadlineNanos;
        }

        public String getAwsRequestId() { return requestId; }
        public String getLogGroupName() { return "/aws/lambda/" + def.logicalId(); }
        public String getLogStreamName() { return "local"; }
        public String getFunctionName() { return def.logicalId(); }
        public String getFunctionVersion() { return "$LATEST"; }
        public String getInvokedFunctionArn() { return def.arn(); }
        public CognitoIdentity getIdentity() { return null; }
        public ClientContext getClientContext() { return null; }
        public int getRemainingTimeInMillis() {
            return (int) Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
        }
        public int getMemoryLimitInMB() { return def.memoryMb(); }
        public LambdaLogger getLogger() {
            return new LambdaLogger() {
                public void log(String message) { System.err.println(message); }
                public void log(byte[] message) { System.err.println(new String(message, StandardCharsets.UTF_8)); }
            };
        }
    }
}
