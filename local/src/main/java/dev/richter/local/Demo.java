package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import dev.richter.api.ApiRequest;
import dev.richter.common.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Richter's main job, end to end on the local stack (README command 1): starts the local stack, registers the demo
 * shop's services and safety configuration, starts the shop (Spring Boot services with the OpenTelemetry agent and
 * Richter's extension) and, beside it, the team's own Prometheus and Alertmanager ({@link LocalMonitoring}, installed
 * first when missing), creates the plan of {@code examples/shop/plan.json} (pre-test 2 QPS × 10 s; after its dynamic
 * gate the warm-up at 20 QPS until steady (at most 165 s); formal 20 → 40 → 60 → 80 QPS × 10 s, across the shop's capacity), starts it
 * through the HTTP API, prints progress, ingests the shop's OTLP spans into the link builder, and keeps a file copy of
 * the stored report (JSON + HTML) under {@code build/reports/<runId>/}; it ends with the report's headline figures
 * ({@link #summary}), the team's alerts on the run's timeline ({@link #teamAlerts}), the isolation line measured from
 * the shop's own database and payment counter ({@link ShopLedger#isolationLine}), Richter's own metrics
 * ({@link MetricsSummary}) and where the time went ({@link #timeLine}).
 *
 * <p>What a person reads goes to the terminal: progress, the headline, the report's paths. Log lines (the local
 * stack's, the functions' Log4j lines, the shop script's, the Lambda host's per-invocation lines) go to
 * {@value #LOG_FILE} under the work directory, the file the {@code richter} script also writes the build's output
 * to, unless {@code --verbose} is given: then everything goes to the terminal. {@code --remote-api URL} is the
 * LocalStack path ({@link #runRemote}), the one switch to it: the environment never selects it, so a variable the
 * {@code richter} script exports for another command (its {@code RICHTER_API_URL}) cannot turn README command 1 into a
 * run against a deployed API.
 *
 * <p>Exit status: 0 when the report was written (whatever the run's outcome, which is printed),
 * 1 on any failure to get there. Everything started is stopped on exit.
 */
public final class Demo {
    /** The demo's team. */
    public static final String TEAM = "shop-team";
    /**
     * Budget of one {@code POST /traces} body, bytes: whole traces, 3 MiB, under the API's 4 MiB body limit
     * ({@code ApiRequest.MAX_BODY_BYTES}, itself under the 6 MB Lambda invoke payload) with room for a trace that
     * overshoots the budget.
     */
    static final int INGEST_CHUNK_BYTES = ApiRequest.MAX_BODY_BYTES * 3 / 4;

    private Demo() {}

    /** The demo's log file, relative to the work directory {@code build/local} (the {@code richter} script's too). */
    public static final String LOG_FILE = "logs/demo.log";

    public static void main(String[] args) throws Exception {
        boolean verbose = false;
        String remote = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--verbose")) {
                verbose = true;
            } else if (args[i].equals("--remote-api") && i + 1 < args.length && !args[i + 1].isBlank()) {
                remote = args[++i];
            } else {
                System.err.println("unknown option " + args[i] + " (./richter demo [--verbose]; local/localstack.sh passes"
                        + " --remote-api URL)");
                System.exit(2);
            }
        }
        Path root = LocalAwsStack.rootFromEnv();
        Path work = root.resolve("build/local");
        if (remote != null) {
            System.exit(runRemote(root, remote));
        }
        PrintStream console = System.out;
        PrintStream consoleErr = System.err;
        Path logFile = work.resolve(LOG_FILE);
        PrintStream log = console;
        Consumer<String> progress = console::println;
        ProcessBuilder.Redirect scriptOutput = ProcessBuilder.Redirect.INHERIT;
        if (!verbose) {
            // every line written to System.out or System.err from here on (Log4j's Lambda appender, libraries) is a log line
            Files.createDirectories(logFile.getParent());
            PrintStream file = new PrintStream(new FileOutputStream(logFile.toFile(), true), true, StandardCharsets.UTF_8);
            System.setOut(file);
            System.setErr(file);
            log = file;
            progress = line -> {
                console.println(line);
                file.println(line);
            };
            scriptOutput = ProcessBuilder.Redirect.appendTo(logFile.toFile());
        }
        PrintStream logLines = log;
        int status = 0;
        long t0 = System.nanoTime();
        LocalLimits limits = LocalLimits.fromEnv();
        if (!limits.parameterOverrides().containsKey(WORKER_LEAD_PARAMETER)) {
            limits = limits.withParameterOverride(WORKER_LEAD_PARAMETER, String.valueOf(WORKER_LEAD_MS));
        }
        LocalAwsStack local = new LocalAwsStack(root, work, limits, logLines::println);
        if (verbose) {
            local.verbose();
        }
        try (LocalAwsStack stack = local.start()) {
            progress.accept(String.format(Locale.ROOT, "local stack up in %.1f s: DynamoDB, Step Functions, Lambda, EventBridge,"
                    + " the HTTP API at %s", seconds(t0), LocalAwsStack.apiBaseUrl()));
            run(root, stack, root.resolve(REPORTS_DIR), progress, scriptOutput, seconds(t0));
        } catch (Exception e) {
            e.printStackTrace(log);
            consoleErr.println("demo failed: " + e + (verbose ? "" : " (log lines: " + logFile + ")"));
            status = 1;
        }
        System.exit(status);
    }

    /** The template parameter of the workers' lead before their step's first due time. */
    static final String WORKER_LEAD_PARAMETER = "WorkerLeadMs";

    /**
     * The demo's workers' lead, milliseconds, unless {@code RICHTER_LOCAL_LIMITS} sets {@code param.WorkerLeadMs}: its
     * steps have one or two workers, in the one JVM of the local stack, launched within 0.2 s of their step's start
     * (measured on a 2-core machine under load), so they wait 1 s instead of the local stack's 3 s
     * ({@link LocalAwsStack#LOCAL_PARAMETER_DEFAULTS}, sized for the ITs' hundreds of workers) at each of the plan's
     * eight steps.
     */
    static final int WORKER_LEAD_MS = 1000;

    /** Seconds since {@code t0} ({@link System#nanoTime()}). */
    static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Where the demo keeps its file copies of reports, one folder per run id, relative to the repository root. */
    public static final String REPORTS_DIR = "build/reports";

    /** The payment exit, which marked traffic must never reach for real. */
    public static final String PAYMENT_EXIT = "payment POST /charge";

    /** Who the demo is, in the audit log ({@code sub} of its token). */
    public static final String CALLER = "demo@shop-team";

    /** The shop's services in the test scope, front first; payment is the exit. */
    public static final List<String> SCOPE = List.of("gateway", "order", "inventory");

    /**
     * The shop's environment for the demo: its agent extension loads its isolation from Richter's own {@code GET
     * /safety/isolation} at {@code apiBase} with a token of the demo team ({@code token}).
     */
    public static Map<String, String> shopEnv(String apiBase, String token) {
        return Map.of("SHOP_ISOLATION_URL", apiBase + "/safety/isolation", "SHOP_ISOLATION_TOKEN", token);
    }

    /**
     * What one demo run produced.
     *
     * @param reportDir the directory holding {@code report.json} and {@code report.html}
     * @param shopSide  the shop's own ledger over the run ({@link ShopLedger#minus}: after less before)
     * @param refused   spans of the run on which the agent extension refused a call ({@code richter.refused})
     */
    public record DemoRun(Path reportDir, ShopLedger shopSide, long refused) {}

    /**
     * Runs the main job against a started stack, printing to {@code System.out} (the ITs' way): {@link
     * #run(Path, LocalAwsStack, Path, Consumer, ProcessBuilder.Redirect, double)} with the shop script's output inherited.
     */
    public static DemoRun run(Path root, LocalAwsStack stack, Path reports) throws IOException, InterruptedException {
        return run(root, stack, reports, line -> System.out.println(line), ProcessBuilder.Redirect.INHERIT, 0);
    }

    /**
     * Runs the main job against a started stack: configures the demo team, starts the shop, runs the plan, prints
     * the isolation line measured from the shop's side, stops the shop, then prints the run's own metrics ({@link
     * MetricsSummary}: rate error, probe round p99, abort latency when aborted) and where the time went.
     *
     * @param reports      where the report's file copy goes: {@code <reports>/<runId>/report.{json,html}} (the demo's
     *                     {@link #REPORTS_DIR}; tests pass a folder under their own {@code target/})
     * @param out          the progress and headline lines (a person reads them)
     * @param scriptOutput where the shop script's output goes (a log file, or inherited)
     * @param stackS       seconds the local stack took to start, for the time line (0: not measured here)
     * @throws IllegalStateException when the API answers unexpectedly or the run does not finish
     */
    public static DemoRun run(Path root, LocalAwsStack stack, Path reports, Consumer<String> out,
                              ProcessBuilder.Redirect scriptOutput, double stackS) throws IOException, InterruptedException {
        // a real token of the demo team, verified by the local API's JWT authorizer like any client's
        String token = stack.identity().token(TEAM, CALLER, Duration.ofHours(2), JWSAlgorithm.RS256);
        out.accept("authenticating as " + CALLER + " of team " + TEAM + " (a JWT of the local identity provider, RS256)");
        String shopToken = stack.identity().token(TEAM, "shop-agent", Duration.ofHours(2), JWSAlgorithm.RS256);
        Map<String, Double> times = new LinkedHashMap<>();
        if (stackS > 0) {
            times.put("stack", stackS);
        }
        DemoRun result = run(root, new ApiClient(LocalAwsStack.apiBaseUrl(), token), "127.0.0.1",
                shopEnv(LocalAwsStack.apiBaseUrl(), shopToken), () -> "events on the bus: " + eventCounts(stack),
                reports, out, scriptOutput, times);
        out.accept("Richter's own metrics (" + stack.metricsFile() + "):");
        MetricsSummary.of(stack.metricsFile(), result.reportDir().getFileName().toString()).lines()
                .forEach(l -> out.accept("  " + l));
        out.accept(timeLine(times));
        return result;
    }

    /** The event bus's events by detail type, in first-seen order: {@code Run Started, 12 × Verdict Changed, ...}. */
    private static String eventCounts(LocalAwsStack stack) {
        Map<String, Long> counts = stack.eventBus().events().stream().map(e -> e.path("detail-type").asText())
                .collect(Collectors.groupingBy(t -> t, LinkedHashMap::new, Collectors.counting()));
        return counts.entrySet().stream().map(e -> e.getValue() == 1 ? e.getKey() : e.getValue() + " × " + e.getKey())
                .collect(Collectors.joining(", "));
    }

    /**
     * Where the demo's time went, one line: each phase's seconds in order ({@code stack}, {@code shop}, {@code warm},
     * {@code run}, {@code spans}, {@code stop}), e.g. {@code time: stack 5.8 s · shop 47.9 s · ...}; the build's
     * time is the {@code richter} script's own line.
     */
    static String timeLine(Map<String, Double> seconds) {
        return "time: " + seconds.entrySet().stream()
                .map(e -> String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue()))
                .collect(Collectors.joining(" · "));
    }

    /**
     * The LocalStack path ({@code local/localstack.sh}, {@code --remote-api URL}): the main job against a deployed API
     * at {@code apiUrl}, with the
     * token in {@code RICHTER_TOKEN}; the shop runs here and is registered at {@code RICHTER_SHOP_HOST} (the name
     * LocalStack's functions reach this machine by, default {@code host.docker.internal}).
     *
     * @return the exit status: 0 when the report was written
     */
    static int runRemote(Path root, String apiUrl) {
        String token = System.getenv().getOrDefault("RICHTER_TOKEN", "");
        String shopHost = System.getenv().getOrDefault("RICHTER_SHOP_HOST", "host.docker.internal");
        String base = apiUrl.endsWith("/") ? apiUrl.substring(0, apiUrl.length() - 1) : apiUrl;
        try {
            System.out.println("the main job against " + base + " (shop registered at " + shopHost + ")");
            Map<String, Double> times = new LinkedHashMap<>();
            run(root, new ApiClient(base, token), shopHost, shopEnv(base, token),
                    () -> "events: on LocalStack's event bus richter-local", root.resolve(REPORTS_DIR),
                    line -> System.out.println(line), ProcessBuilder.Redirect.INHERIT, times);
            System.out.println(timeLine(times));
            return 0;
        } catch (Exception e) {
            System.err.println("demo failed: " + e);
            return 1;
        }
    }

    /** Inventory's shadows: its SQL tables and its Redis key space ({@code datastores} of {@code POST /services}). */
    public static final List<Map<String, Object>> INVENTORY_DATASTORES = List.of(
            Map.of("kind", "table", "production", "stock", "shadow", "stock_shadow"),
            Map.of("kind", "table", "production", "reservations", "shadow", "reservations_shadow"),
            Map.of("kind", "cache", "production", "stock:", "shadow", "shadow:stock:"));
    /** Order's shadow: its DynamoDB table of placed orders. */
    public static final List<Map<String, Object>> ORDER_DATASTORES =
            List.of(Map.of("kind", "dynamodb", "production", "orders", "shadow", "orders_shadow"));

    /**
     * Registers the demo team's services (gateway, order with its shadow DynamoDB table, inventory with its shadow
     * tables and keys) at {@code
     * shopHost} and its safety configuration (trace source: the shop's run directory; the payment exit, mocked for
     * marked traffic; isolation enforced, refreshed every 5 s), before the shop starts, so that its agent extension's
     * first load is the whole isolation.
     */
    static void configure(Path root, ApiClient api, String shopHost, Consumer<String> out) throws IOException, InterruptedException {
        for (String service : SCOPE) {
            int port = switch (service) {
                case "gateway" -> Shop.GATEWAY_PORT;
                case "order" -> Shop.ORDER_PORT;
                default -> Shop.INVENTORY_PORT;
            };
            Map<String, Object> body = new java.util.LinkedHashMap<>(Map.of("name", service,
                    "baseUrl", "http://" + shopHost + ":" + port,
                    "healthPath", "/actuator/health", "prometheusPath", "/actuator/prometheus"));
            if (service.equals("inventory")) {
                body.put("datastores", INVENTORY_DATASTORES);
            } else if (service.equals("order")) {
                body.put("datastores", ORDER_DATASTORES);
            }
            expect(api.post("/services", Json.write(body)), 201, 200);
        }
        out.accept("registered services " + String.join(", ", SCOPE) + " (inventory with its shadow tables and keys,"
                + " order with its shadow DynamoDB table)");
        // where the shop's spans will be written once it starts: PUT /safety refuses a trace directory that does not exist
        java.nio.file.Files.createDirectories(root.resolve("examples/shop/target/run"));
        var safety = api.put("/safety", Json.write(Map.of(
                "traceSource", Map.of("kind", "directory", "path", root.resolve("examples/shop/target/run").toString()),
                "exits", List.of(Map.of("service", "payment", "node", PAYMENT_EXIT, "from", "order",
                        "baseUrl", "http://" + shopHost + ":" + Shop.PAYMENT_PORT)),
                "mocks", List.of(Map.of("exit", PAYMENT_EXIT, "status", 200, "body", "{\"chargeId\":\"mock\"}",
                        "headers", Map.of("Content-Type", "application/json"), "latencyMs", 20)),
                "isolation", Map.of("mode", "enforce", "refreshS", 5))));
        expect(safety, 200, 201);
        out.accept("safety configuration: trace source examples/shop/target/run, payment exit mocked for marked "
                + "traffic, isolation enforced by the agent extension");
    }

    /** Prometheus' and the Alertmanager's ports of the demo (next to the shop's 18080-18093). */
    static final int PROMETHEUS_PORT = 18094;
    static final int ALERTMANAGER_PORT = 18095;

    /**
     * The demo's own Prometheus and Alertmanager ({@link LocalMonitoring}) scraping the shop's gateway and order, and
     * registered as the team's evidence sources ({@code PUT /evidence-sources}): the report's timeline then shows the
     * shop's own {@code ShopShedding} alert at the step where the gateway sheds. When they are not installed it installs
     * them first ({@link LocalMonitoring#install}: the Debian packages, as the shop script installs {@code
     * redis-server}). Null (and said so) when they cannot be installed or do not start: the run then judges by
     * Richter's own probes only. Started beside the shop: Prometheus scrapes targets that are not up yet as down.
     */
    static LocalMonitoring monitoring(Path root, ApiClient api, Map<String, String> shopEnv, String shopHost,
                                      Consumer<String> out, ProcessBuilder.Redirect installOutput) {
        try {
            var missing = LocalMonitoring.install(installOutput, out);
            if (missing.isPresent()) {
                out.accept("team evidence: " + missing.get() + "; the run judges the shop by Richter's own probes only");
                return null;
            }
            LocalMonitoring m = LocalMonitoring.start(root.resolve("build/local/monitoring"), TEAM, List.of(
                    new LocalMonitoring.ScrapeTarget("gateway", shopHost + ":" + Shop.port(shopEnv, "gateway", Shop.GATEWAY_PORT)),
                    new LocalMonitoring.ScrapeTarget("order", shopHost + ":" + Shop.port(shopEnv, "order", Shop.ORDER_PORT))),
                    PROMETHEUS_PORT, ALERTMANAGER_PORT);
            try {
                expect(api.put("/evidence-sources", m.evidenceSources(TEAM)), 200, 201);
            } catch (IOException | RuntimeException e) {
                m.close();
                throw e;
            }
            out.accept("team evidence: Prometheus " + m.prometheusUrl() + " (order's orders-per-second) and Alertmanager "
                    + m.alertmanagerUrl() + " (alert " + LocalMonitoring.SHEDDING_ALERT + " when the gateway sheds)");
            return m;
        } catch (IOException e) {
            out.accept("team evidence: Prometheus/Alertmanager did not start (" + e.getMessage()
                    + "); the run judges the shop by Richter's own probes only");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Runs the main job through {@code api}: {@link #configure}, starts the shop with {@code shopEnv} and, beside it,
     * the team's monitoring ({@link #monitoring}), runs the plan in {@code examples/shop/plan.json}, reads the shop's
     * own ledger before and after ({@link ShopLedger}), stops the shop while its spans are ingested, and prints the
     * headline and the isolation line; {@code events} says what reached the event bus (a log line); the report's file
     * copy goes to {@code <reports>/<runId>/}; each phase's seconds are put in {@code times}.
     *
     * @throws IllegalStateException when the API answers unexpectedly or the run does not finish
     */
    static DemoRun run(Path root, ApiClient api, String shopHost, Map<String, String> shopEnv, Supplier<String> events,
                       Path reports, Consumer<String> out, ProcessBuilder.Redirect scriptOutput, Map<String, Double> times)
            throws IOException, InterruptedException {
        configure(root, api, shopHost, out);
        var plan = api.post("/plans", Files.readString(root.resolve("examples/shop/plan.json")));
        expect(plan, 201);
        String planId = plan.json().path("planId").asText();
        out.accept("created plan " + planId + " (examples/shop/plan.json)");
        String runId;
        ShopLedger shopSide;
        long refused;
        ObjectNode spans;
        out.accept("starting the shop (gateway, order, inventory, payment on Spring Boot with the OpenTelemetry agent; H2,"
                + " Redis, DynamoDB) and the team's Prometheus and Alertmanager ...");
        long t = System.nanoTime();
        CompletableFuture<LocalMonitoring> monitoringStart = CompletableFuture.supplyAsync(
                () -> monitoring(root, api, shopEnv, shopHost, out, scriptOutput));
        Shop shop = null;
        CompletableFuture<Void> stopped = null;
        try {
            shop = Shop.start(root, shopEnv, scriptOutput);
            monitoringStart.join();
            times.put("shop", seconds(t));
            out.accept(String.format(Locale.ROOT, "shop up in %.1f s", seconds(t)));
            t = System.nanoTime();
            out.accept("warming the shop with " + Shop.WARM_ORDERS + " real orders: a production service meets a test warm"
                    + " from its own traffic");
            shop.warm();
            times.put("warm", seconds(t));
            ShopLedger before = shop.ledger();
            long startedAt = System.currentTimeMillis();
            t = System.nanoTime();
            var start = api.post("/plans/" + planId + "/runs", "");
            expect(start, 202);
            runId = start.json().path("runId").asText();
            out.accept("started run " + runId + " (" + start.json().path("executionArn").asText() + ")");
            out.accept("watch it live: " + LocalAwsStack.apiBaseUrl() + "/console#/runs/" + runId + " (sign in as team "
                    + TEAM + "; the console lasts as long as the demo's stack)");
            RunWatcher.watch(api, runId, 15 * 60_000L, out);
            times.put("run", seconds(t));
            t = System.nanoTime();
            // the agent exports its spans every 500 ms: the last request's were written while the report was made
            shopSide = shop.ledger().minus(before);
            spans = shop.exportSpans();
            refused = Shop.refused(spans, startedAt, System.currentTimeMillis());
            // the shop stops while its spans are ingested: what the run needed of it is read
            Shop running = shop;
            shop = null;
            stopped = CompletableFuture.runAsync(() -> stop(running, monitoringStart));
            if (!spans.path("resourceSpans").isEmpty()) {
                ingest(api, spans, out);
            }
            times.put("spans", seconds(t));
        } finally {
            if (stopped == null) {
                stop(shop, monitoringStart);
            }
        }
        t = System.nanoTime();
        stopped.join();
        times.put("stop", seconds(t));

        Path dir = reports.resolve(runId);
        Files.createDirectories(dir);
        var json = api.get("/runs/" + runId + "/report");
        expect(json, 200);
        var html = api.get("/runs/" + runId + "/report?format=html");
        expect(html, 200);
        Files.writeString(dir.resolve("report.json"), json.json().toPrettyString());
        Files.writeString(dir.resolve("report.html"), html.body());
        System.out.println(events.get());
        out.accept("");
        summary(json.json(), dir).forEach(out);
        out.accept(shopSide.isolationLine(refused));
        return new DemoRun(dir, shopSide, refused);
    }

    /** Stops the shop (when started) and the team's monitoring (once its start ends, when it started). */
    private static void stop(Shop shop, CompletableFuture<LocalMonitoring> monitoringStart) {
        try {
            if (shop != null) {
                shop.close();
            }
        } finally {
            LocalMonitoring m = monitoringStart.handle((started, failed) -> started).join();
            if (m != null) {
                m.close();
            }
        }
    }

    /** {@link #ingest(ApiClient, ObjectNode, Consumer)} of the OTLP JSON file {@code spans}, printing to {@code System.out}. */
    static void ingest(ApiClient api, Path spans) throws IOException, InterruptedException {
        ingest(api, (ObjectNode) Json.MAPPER.readTree(spans.toFile()), line -> System.out.println(line));
    }

    /** Sends the OTLP JSON {@code spans} to the link builder, one request per ≤ 3 MiB of whole traces. */
    static void ingest(ApiClient api, ObjectNode spans, Consumer<String> out) throws IOException, InterruptedException {
        // the API takes bodies of 4 MiB at most
        List<String> chunks = TraceChunks.split(spans, INGEST_CHUNK_BYTES);
        int parsed = 0;
        int edges = 0;
        for (int i = 0; i < chunks.size(); i++) {
            var ingest = api.post("/traces?file=shop-spans-" + (i + 1) + ".json", chunks.get(i));
            expect(ingest, 200);
            parsed += ingest.json().path("spansParsed").asInt();
            edges += ingest.json().path("edgesAdded").asInt();
        }
        out.accept("ingested the shop's spans into the link builder: " + parsed + " spans in " + chunks.size()
                + " request(s), " + edges + " new edges (GET /links/tree, /links/exits)");
    }

    /**
     * What a person reads at the end of the demo, from the stored report JSON ({@link dev.richter.report.Report}'s
     * fields): outcome, capacity ("not measured" when {@code capacity.measured} is false), how the warm-up ended, failure mode, the five
     * resilience findings, confidence, the number of problems to follow, and the report's files.
     */
    static List<String> summary(JsonNode report, Path dir) {
        List<String> out = new ArrayList<>();
        out.add("outcome:      " + report.path("outcome").asText() + " — " + report.path("outcomeReason").asText());
        JsonNode capacity = report.path("capacity");
        out.add("capacity:     " + (capacity.path("measured").asBoolean(false)
                ? String.format(Locale.ROOT, "%s%.1f QPS (%s%s)", capacity.path("reached").asBoolean(true) ? "" : "\u2265 ",
                        capacity.path("maxSustainableQps").asDouble(), capacity.path("interval").path("text").asText("")
                                .transform(t -> t.isEmpty() ? "" : t + "; "), capacity.path("limitedBy").asText())
                : "not measured (" + capacity.path("limitedBy").asText() + ")"));
        if (report.hasNonNull("warmUpEnd")) {
            out.add("warm-up:      " + report.path("warmUpEnd").asText());
        }
        JsonNode mode = report.path("failureMode");
        out.add("failure mode: " + mode.path("kind").asText() + (mode.path("evidence").asText().isEmpty() ? ""
                : " — " + mode.path("evidence").asText()));
        out.add("resilience:");
        for (JsonNode f : report.path("resilience").path("findings")) {
            out.add(String.format(Locale.ROOT, "  %-20s %-12s %s", f.path("defence").asText(),
                    f.path("status").asText(), f.path("line").asText()));
        }
        out.addAll(teamAlerts(report));
        out.add(String.format(Locale.ROOT, "confidence:   %.2f", report.path("confidence").path("score").asDouble()));
        int problems = report.path("problems").size();
        out.add("problems to follow: " + problems + (problems == 0 ? "" : " (listed at the top of report.html)"));
        out.add("report: " + dir.resolve("report.html"));
        out.add("report: " + dir.resolve("report.json"));
        return out;
    }

    /**
     * The team's own alerts on the run's timeline (the report's {@code events} of kind {@code alert-fired} and {@code
     * alert-resolved}), one line each: the alert, its module, the step it fired in, when (UTC, and seconds into the
     * step), and when it resolved or that it was still firing at the run's end, e.g. {@code team alert:   ShopShedding
     * on gateway fired in step 2 · 60 QPS at 08:15:23 (3.5 s into the step), still firing at the abort}; {@code team
     * alert:   none fired} without one.
     */
    static List<String> teamAlerts(JsonNode report) {
        List<String> out = new ArrayList<>();
        List<JsonNode> events = new ArrayList<>();
        report.path("events").forEach(events::add);
        boolean aborted = events.stream().anyMatch(e -> e.path("kind").asText().equals("abort"));
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            if (!e.path("kind").asText().equals("alert-fired")) {
                continue;
            }
            String name = e.path("name").asText();
            String module = e.path("module").asText();
            long atMs = e.path("atMs").asLong();
            String resolved = aborted ? "still firing at the abort" : "still firing at the run's end";
            for (JsonNode later : events.subList(i + 1, events.size())) {
                if (later.path("kind").asText().equals("alert-resolved") && later.path("name").asText().equals(name)
                        && later.path("module").asText().equals(module)) {
                    resolved = "resolved at " + CLOCK.format(Instant.ofEpochMilli(later.path("atMs").asLong()));
                    break;
                }
            }
            out.add("team alert:   " + name + " on " + module + " fired in " + stepAt(report, e.path("step").asText(), atMs)
                    + ", " + resolved + " (the report's timeline)");
        }
        if (out.isEmpty()) {
            out.add("team alert:   none fired");
        }
        return out;
    }

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

    /** {@code step 2 · 60 QPS at 08:15:23 (3.5 s into the step)} for an event's step id ({@code formal#1}) and time. */
    private static String stepAt(JsonNode report, String stepId, long atMs) {
        String clock = CLOCK.format(Instant.ofEpochMilli(atMs)) + " UTC";
        int hash = stepId.indexOf('#');
        if (hash < 0) {
            return "the run at " + clock;
        }
        String stage = stepId.substring(0, hash);
        int index = Integer.parseInt(stepId.substring(hash + 1));
        String field = switch (stage) {
            case "pre-test" -> "preTest";
            case "warm-up" -> "warmUp";
            case "confirm" -> "confirm";
            default -> "formal";
        };
        JsonNode step = report.path(field).path(index);
        if (step.isMissingNode()) {
            return dev.richter.report.StepLabels.name(stage, index) + " at " + clock;
        }
        return String.format(Locale.ROOT, "%s at %s (%.1f s into the step)", dev.richter.report.StepLabels.label(stage, index,
                step.path("targetQps").asDouble()), clock, (atMs - step.path("startedAtMs").asLong()) / 1000.0);
    }

    private static void expect(ApiClient.Response r, int... statuses) {
        for (int s : statuses) {
            if (r.status() == s) {
                return;
            }
        }
        throw new IllegalStateException("API answered " + r.status() + ": " + r.body());
    }
}
