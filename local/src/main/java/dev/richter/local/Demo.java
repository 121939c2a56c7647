package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import dev.richter.api.ApiRequest;
import dev.richter.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Richter's main job, end to end on the local stack (README command 1): starts the local stack, registers the demo
 * shop's services and safety configuration, starts the shop (Spring Boot services with the OpenTelemetry agent and
 * Richter's extension), creates the plan of {@code examples/shop/plan.json} (pre-test 2 QPS × 10 s; after its dynamic
 * gate the warm-up, 20 QPS × 45 s; formal 20 → 40 → 60 → 80 QPS × 15 s, across the shop's capacity), starts it through the HTTP API, prints progress, ingests the
 * shop's OTLP spans into the link builder, and keeps a file copy of the stored report (JSON + HTML) under
 * {@code build/reports/<runId>/}; it ends with the report's path and headline figures ({@link #summary}) and the
 * isolation line measured from the shop's own database and payment counter ({@link ShopLedger#isolationLine}).
 *
 * <p>{@code --verbose} also prints the Lambda host's per-invocation lines, which otherwise go only to
 * {@code build/local/logs/lambda.log}. {@code --remote-api URL} is the LocalStack path ({@link #runRemote}), the one
 * switch to it: the environment never selects it, so a variable the {@code richter} script exports for another
 * command (its {@code RICHTER_API_URL}) cannot turn README command 1 into a run against a deployed API.
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
        int status = 0;
        LocalAwsStack local = new LocalAwsStack(root, work, System.out::println);
        if (verbose) {
            local.verbose();
        }
        try (LocalAwsStack stack = local.start()) {
            run(root, stack, root.resolve(REPORTS_DIR));
        } catch (Exception e) {
            System.err.println("demo failed: " + e);
            status = 1;
        }
        System.exit(status);
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
     * Runs the main job against a started stack: configures the demo team, starts the shop, runs the plan, prints
     * the isolation line measured from the shop's side, stops the shop, then prints the run's own metrics ({@link
     * MetricsSummary}: rate error, probe round p99, abort latency when aborted).
     *
     * @param reports where the report's file copy goes: {@code <reports>/<runId>/report.{json,html}} (the demo's
     *                {@link #REPORTS_DIR}; tests pass a folder under their own {@code target/})
     * @throws IllegalStateException when the API answers unexpectedly or the run does not finish
     */
    public static DemoRun run(Path root, LocalAwsStack stack, Path reports) throws IOException, InterruptedException {
        // a real token of the demo team, verified by the local API's JWT authorizer like any client's
        String token = stack.identity().token(TEAM, CALLER, Duration.ofHours(2), JWSAlgorithm.RS256);
        System.out.println("authenticating as " + CALLER + " of team " + TEAM + " (a JWT of the local identity provider, RS256)");
        String shopToken = stack.identity().token(TEAM, "shop-agent", Duration.ofHours(2), JWSAlgorithm.RS256);
        DemoRun result = run(root, new ApiClient(LocalAwsStack.apiBaseUrl(), token), "127.0.0.1",
                shopEnv(LocalAwsStack.apiBaseUrl(), shopToken),
                () -> "events on the bus: " + stack.eventBus().events().stream().map(e -> e.path("detail-type").asText()).toList(),
                reports);
        System.out.println("Richter's own metrics (" + stack.metricsFile() + "):");
        MetricsSummary.of(stack.metricsFile(), result.reportDir().getFileName().toString()).lines()
                .forEach(l -> System.out.println("  " + l));
        return result;
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
            run(root, new ApiClient(base, token), shopHost, shopEnv(base, token),
                    () -> "events: on LocalStack's event bus richter-local", root.resolve(REPORTS_DIR));
            return 0;
        } catch (Exception e) {
            System.err.println("demo failed: " + e);
            return 1;
        }
    }

    /**
     * Registers the demo team's services (gateway, order, inventory with its shadow tables and keys) at {@code
     * shopHost} and its safety configuration (trace source: the shop's run directory; the payment exit, mocked for
     * marked traffic; isolation enforced, refreshed every 5 s), before the shop starts, so that its agent extension's
     * first load is the whole isolation.
     */
    static void configure(Path root, ApiClient api, String shopHost) throws IOException, InterruptedException {
        List<Map<String, Object>> inventoryStores = List.of(
                Map.of("kind", "table", "production", "stock", "shadow", "stock_shadow"),
                Map.of("kind", "table", "production", "reservations", "shadow", "reservations_shadow"),
                Map.of("kind", "cache", "production", "stock:", "shadow", "shadow:stock:"));
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
                body.put("datastores", inventoryStores);
            }
            expect(api.post("/services", Json.write(body)), 201, 200);
            System.out.println("registered service " + service);
        }
        var safety = api.put("/safety", Json.write(Map.of(
                "traceSource", Map.of("kind", "directory", "path", root.resolve("examples/shop/target/run").toString()),
                "exits", List.of(Map.of("service", "payment", "node", PAYMENT_EXIT, "from", "order",
                        "baseUrl", "http://" + shopHost + ":" + Shop.PAYMENT_PORT)),
                "mocks", List.of(Map.of("exit", PAYMENT_EXIT, "status", 200, "body", "{\"chargeId\":\"mock\"}",
                        "headers", Map.of("Content-Type", "application/json"), "latencyMs", 20)),
                "isolation", Map.of("mode", "enforce", "refreshS", 5))));
        expect(safety, 200, 201);
        System.out.println("safety configuration: trace source examples/shop/target/run, payment exit mocked for marked "
                + "traffic, isolation enforced by the agent extension");
    }

    /**
     * Runs the main job through {@code api}: {@link #configure}, starts the shop with {@code shopEnv}, runs the plan
     * in {@code examples/shop/plan.json}, reads the shop's own ledger before and after ({@link ShopLedger}), prints
     * the isolation line, ingests the shop's spans, stops the shop; {@code events} says what reached the event bus;
     * the report's file copy goes to {@code <reports>/<runId>/}.
     *
     * @throws IllegalStateException when the API answers unexpectedly or the run does not finish
     */
    /** Prometheus' and the Alertmanager's ports of the demo (next to the shop's 18080-18093). */
    static final int PROMETHEUS_PORT = 18094;
    static final int ALERTMANAGER_PORT = 18095;

    /**
     * The demo's own Prometheus and Alertmanager ({@link LocalMonitoring}) scraping the shop's gateway and order, and
     * registered as the team's evidence sources ({@code PUT /evidence-sources}): the report's timeline then shows the
     * shop's own {@code ShopShedding} alert at the step where the gateway sheds. Null (and said so) when they are not
     * installed or do not start: the run then judges by Richter's own probes only.
     */
    static LocalMonitoring monitoring(Path root, ApiClient api, Shop shop, String shopHost) throws IOException, InterruptedException {
        var missing = LocalMonitoring.missing();
        if (missing.isPresent()) {
            System.out.println("team evidence: " + missing.get() + "; the run judges the shop by Richter's own probes only");
            return null;
        }
        try {
            LocalMonitoring m = LocalMonitoring.start(root.resolve("build/local/monitoring"), TEAM, List.of(
                    new LocalMonitoring.ScrapeTarget("gateway", shopHost + ":" + shop.port("gateway", Shop.GATEWAY_PORT)),
                    new LocalMonitoring.ScrapeTarget("order", shopHost + ":" + shop.port("order", Shop.ORDER_PORT))),
                    PROMETHEUS_PORT, ALERTMANAGER_PORT);
            expect(api.put("/evidence-sources", m.evidenceSources(TEAM)), 200, 201);
            System.out.println("team evidence: Prometheus " + m.prometheusUrl() + " (order's orders-per-second) and Alertmanager "
                    + m.alertmanagerUrl() + " (alert " + LocalMonitoring.SHEDDING_ALERT + " when the gateway sheds)");
            return m;
        } catch (IOException e) {
            System.out.println("team evidence: Prometheus/Alertmanager did not start (" + e.getMessage()
                    + "); the run judges the shop by Richter's own probes only");
            return null;
        }
    }

    static DemoRun run(Path root, ApiClient api, String shopHost, Map<String, String> shopEnv, Supplier<String> events,
                      Path reports) throws IOException, InterruptedException {
        configure(root, api, shopHost);
        var plan = api.post("/plans", Files.readString(root.resolve("examples/shop/plan.json")));
        expect(plan, 201);
        String planId = plan.json().path("planId").asText();
        System.out.println("created plan " + planId);
        String runId;
        ShopLedger shopSide;
        long refused;
        System.out.println("starting the shop (gateway, order, inventory, payment; H2, Redis) ...");
        try (Shop shop = Shop.start(root, shopEnv); LocalMonitoring monitoring = monitoring(root, api, shop, shopHost)) {
            System.out.println("warming the shop with " + Shop.WARM_ORDERS + " real orders: a production service meets a test warm"
                    + " from its own traffic");
            shop.warm();
            ShopLedger before = shop.ledger();
            long startedAt = System.currentTimeMillis();
            var start = api.post("/plans/" + planId + "/runs", "");
            expect(start, 202);
            runId = start.json().path("runId").asText();
            System.out.println("started run " + runId + " (" + start.json().path("executionArn").asText() + ")");
            RunWatcher.watch(api, runId, 15 * 60_000L, System.out::println);
            Thread.sleep(1_000); // the agent exports its spans every 500 ms
            shopSide = shop.ledger().minus(before);
            refused = Shop.refused(shop.spans(startedAt, System.currentTimeMillis()));
            Path spans = root.resolve("build/local/shop-spans.json");
            if (shop.exportSpans(spans)) {
                ingest(api, spans);
            }
        }

        Path dir = reports.resolve(runId);
        Files.createDirectories(dir);
        var json = api.get("/runs/" + runId + "/report");
        expect(json, 200);
        var html = api.get("/runs/" + runId + "/report?format=html");
        expect(html, 200);
        Files.writeString(dir.resolve("report.json"), json.json().toPrettyString());
        Files.writeString(dir.resolve("report.html"), html.body());
        System.out.println();
        System.out.println(events.get());
        summary(json.json(), dir).forEach(System.out::println);
        System.out.println(shopSide.isolationLine(refused));
        return new DemoRun(dir, shopSide, refused);
    }

    /** Sends the spans in {@code spans} to the link builder, one request per ≤ 3 MiB of whole traces. */
    static void ingest(ApiClient api, Path spans) throws IOException, InterruptedException {
        // the API takes bodies of 4 MiB at most
        List<String> chunks = TraceChunks.split(Json.MAPPER.readTree(spans.toFile()), INGEST_CHUNK_BYTES);
        int parsed = 0;
        int edges = 0;
        for (int i = 0; i < chunks.size(); i++) {
            var ingest = api.post("/traces?file=shop-spans-" + (i + 1) + ".json", chunks.get(i));
            expect(ingest, 200);
            parsed += ingest.json().path("spansParsed").asInt();
            edges += ingest.json().path("edgesAdded").asInt();
        }
        System.out.println("ingested shop spans into the link builder: " + parsed + " spans in " + chunks.size()
                + " request(s), " + edges + " new edges");
    }

    /**
     * What a person reads at the end of the demo, from the stored report JSON ({@link dev.richter.report.Report}'s
     * fields): outcome, capacity ("not measured" when {@code capacity.measured} is false), failure mode, the five
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
        JsonNode mode = report.path("failureMode");
        out.add("failure mode: " + mode.path("kind").asText() + (mode.path("evidence").asText().isEmpty() ? ""
                : " — " + mode.path("evidence").asText()));
        out.add("resilience:");
        for (JsonNode f : report.path("resilience").path("findings")) {
            out.add(String.format(Locale.ROOT, "  %-20s %-12s %s", f.path("defence").asText(),
                    f.path("status").asText(), f.path("line").asText()));
        }
        out.add(String.format(Locale.ROOT, "confidence:   %.2f", report.path("confidence").path("score").asDouble()));
        int problems = report.path("problems").size();
        out.add("problems to follow: " + problems + (problems == 0 ? "" : " (listed at the top of report.html)"));
        out.add("report: " + dir.resolve("report.html"));
        out.add("report: " + dir.resolve("report.json"));
        return out;
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
