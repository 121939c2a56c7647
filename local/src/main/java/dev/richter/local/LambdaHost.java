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
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Serves, in this JVM, the Lambda Invoke API for every function of {@code template.yaml}
 * ({@code POST /2015-03-31/functions/{name-or-arn}/invocations}) and the HTTP API routes as API
 * Gateway payload 2.0 events.
 *
 * <p>Each function keeps a pool of handler instances (like warm containers): one instance handles
 * one invocation at a time, a new one is built when all are busy. A handler exception is answered
 * as Lambda does: HTTP 200 with {@code X-Amz-Function-Error: Unhandled} and
 * {@code {errorMessage, errorType, stackTrace}}, which Step Functions turns into a Task failure.
 */
public final class LambdaHost implements AutoCloseable {
    private static final String INVOKE_PREFIX = "/2015-03-31/functions/";

    private final Map<String, Template.FunctionDef> functions = new LinkedHashMap<>();
    private final Map<String, Queue<RequestStreamHandler>> warm = new ConcurrentHashMap<>();
    private final List<Template.Route> routes;
    private final Consumer<String> log;
    /**
     * Platform threads, not virtual ones: a function's first invocations run class initializers
     * (SDK clients, schemas), and a virtual thread blocked in class initialization pins its carrier;
     * with as many carriers as cores, concurrent cold starts can then deadlock.
     */
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private HttpServer lambdaServer;
    private HttpServer apiServer;

    /**
     * @param template the parsed template
     * @param log      where one line per invocation goes
     */
    public LambdaHost(Template template, Consumer<String> log) {
        template.functions().forEach(f -> functions.put(f.logicalId(), f));
        this.routes = template.routes();
        this.log = log;
    }

    /** Starts the Invoke API on {@code lambdaPort} and the HTTP API on {@code apiPort} (loopback). */
    public void start(int lambdaPort, int apiPort) throws IOException {
        lambdaServer = HttpServer.create(new InetSocketAddress("127.0.0.1", lambdaPort), 256);
        lambdaServer.createContext("/", this::serveInvoke);
        lambdaServer.setExecutor(executor);
        lambdaServer.start();
        apiServer = HttpServer.create(new InetSocketAddress("127.0.0.1", apiPort), 256);
        apiServer.createContext("/", this::serveApi);
        apiServer.setExecutor(executor);
        apiServer.start();
    }

    /** Invokes a function in-process. */
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
        Template.FunctionDef def = functions.get(id);
        if (def == null) {
            return new Invocation(404, null, Json.write(Map.of("Type", "User", "message", "Function not found: " + functionName)).getBytes(StandardCharsets.UTF_8));
        }
        Queue<RequestStreamHandler> pool = warm.computeIfAbsent(id, k -> new ConcurrentLinkedQueue<>());
        long t0 = System.nanoTime();
        RequestStreamHandler handler = null;
        try {
            handler = pool.poll();
            if (handler == null) {
                handler = (RequestStreamHandler) Class.forName(def.handlerClass()).getDeclaredConstructor().newInstance();
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            handler.handleRequest(new ByteArrayInputStream(payload), out, new LocalContext(id));
            log.accept(String.format("lambda %s ok %d ms", id, (System.nanoTime() - t0) / 1_000_000));
            return new Invocation(200, null, out.toByteArray());
        } catch (Throwable e) {
            Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
            StringWriter trace = new StringWriter();
            cause.printStackTrace(new PrintWriter(trace));
            log.accept(String.format("lambda %s FAILED %d ms: %s", id, (System.nanoTime() - t0) / 1_000_000,
                    String.join("\n    ", trace.toString().lines().limit(12).toList())));
            Map<String, Object> err = new LinkedHashMap<>();
            err.put("errorMessage", String.valueOf(cause.getMessage()));
            err.put("errorType", cause.getClass().getSimpleName());
            err.put("stackTrace", trace.toString().lines().limit(20).toList());
            return new Invocation(200, "Unhandled", Json.write(err).getBytes(StandardCharsets.UTF_8));
        } finally {
            if (handler != null) {
                pool.offer(handler);
            }
        }
    }

    /** One invocation's answer: HTTP status, the function-error header value (or null) and the payload. */
    public record Invocation(int status, String functionError, byte[] payload) {}

    private void serveInvoke(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            if (!"POST".equals(ex.getRequestMethod()) || !path.startsWith(INVOKE_PREFIX) || !path.endsWith("/invocations")) {
                send(ex, 404, "application/json", "{\"message\":\"unknown Lambda API path\"}".getBytes(StandardCharsets.UTF_8), Map.of());
                return;
            }
            String name = URLDecoder.decode(path.substring(INVOKE_PREFIX.length(), path.length() - "/invocations".length()),
                    StandardCharsets.UTF_8);
            Invocation inv = invoke(name, ex.getRequestBody().readAllBytes());
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("X-Amz-Executed-Version", "$LATEST");
            if (inv.functionError() != null) {
                headers.put("X-Amz-Function-Error", inv.functionError());
            }
            send(ex, inv.status(), "application/json", inv.payload(), headers);
        }
    }

    private void serveApi(HttpExchange ex) throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            String rawPath = ex.getRequestURI().getRawPath();
            for (Template.Route route : routes) {
                Map<String, String> params = match(route.path(), rawPath);
                if (params != null && route.method().equals(method)) {
                    byte[] body = ex.getRequestBody().readAllBytes();
                    Invocation inv = invoke(route.functionLogicalId(), Json.MAPPER.writeValueAsBytes(event(ex, route, params, body)));
                    if (inv.functionError() != null) {
                        send(ex, 500, "application/json", "{\"message\":\"Internal Server Error\"}".getBytes(StandardCharsets.UTF_8), Map.of());
                        return;
                    }
                    JsonNode resp = Json.MAPPER.readTree(inv.payload());
                    Map<String, String> headers = new LinkedHashMap<>();
                    resp.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), h.getValue().asText()));
                    String contentType = headers.getOrDefault("content-type", "application/json");
                    headers.remove("content-type");
                    String text = resp.path("body").asText("");
                    byte[] out = resp.path("isBase64Encoded").asBoolean(false) ? Base64.getDecoder().decode(text)
                            : text.getBytes(StandardCharsets.UTF_8);
                    send(ex, resp.path("statusCode").asInt(200), contentType, out, headers);
                    return;
                }
            }
            send(ex, 404, "application/json", "{\"message\":\"Not Found\"}".getBytes(StandardCharsets.UTF_8), Map.of());
        }
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

    /** The API Gateway HTTP API payload format 2.0 event of one request. */
    private static ObjectNode event(HttpExchange ex, Template.Route route, Map<String, String> params, byte[] body) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("version", "2.0");
        e.put("routeKey", route.routeKey());
        e.put("rawPath", ex.getRequestURI().getRawPath());
        String rawQuery = ex.getRequestURI().getRawQuery();
        e.put("rawQueryString", rawQuery == null ? "" : rawQuery);
        ObjectNode headers = e.putObject("headers");
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), String.join(",", v)));
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

    @Override
    public void close() {
        if (lambdaServer != null) {
            lambdaServer.stop(0);
        }
        if (apiServer != null) {
            apiServer.stop(0);
        }
        executor.shutdownNow();
    }

    /** A minimal Lambda {@link Context} for in-process invocations (15 min remaining time). */
    private record LocalContext(String functionName) implements Context {
        public String getAwsRequestId() { return UUID.randomUUID().toString(); }
        public String getLogGroupName() { return "/aws/lambda/" + functionName; }
        public String getLogStreamName() { return "local"; }
        public String getFunctionName() { return functionName; }
        public String getFunctionVersion() { return "$LATEST"; }
        public String getInvokedFunctionArn() { return new Template.FunctionDef(functionName, "").arn(); }
        public CognitoIdentity getIdentity() { return null; }
        public ClientContext getClientContext() { return null; }
        public int getRemainingTimeInMillis() { return 900_000; }
        public int getMemoryLimitInMB() { return 1024; }
        public LambdaLogger getLogger() {
            return new LambdaLogger() {
                public void log(String message) { System.err.println(message); }
                public void log(byte[] message) { System.err.println(new String(message, StandardCharsets.UTF_8)); }
            };
        }
    }
}
