package dev.richter.local;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A real Prometheus and Alertmanager for the demo and the ITs (Debian packages {@code prometheus} 2.42,
 * {@code prometheus-alertmanager} 0.25; {@code .ci/run} installs them): Prometheus scrapes the given
 * {@code /actuator/prometheus} targets every second and evaluates the shop's alert rules every second, sending to the
 * Alertmanager, whose API v2 the probe reads. Configuration, TSDB and Alertmanager data go under {@code workDir}; both
 * servers listen on loopback ports given by the caller.
 *
 * <p>The rule: {@value #SHEDDING_ALERT} fires as soon as the shop's entry ({@value #ENTRY}) answered 429 within the
 * last 15 s ({@code sum by (service) (rate(http_server_requests_seconds_count{service="gateway",status="429"}[15s])) > 0},
 * {@code for: 0s}): its clients are being shed, labelled {@code team="<team>"} and {@code service="gateway"}. Prometheus resends firing alerts every second
 * ({@code --rules.alert.resend-delay=1s}; the default minute would keep an alert from the Alertmanager that long).
 */
public final class LocalMonitoring implements AutoCloseable {
    /** The alert that fires when a shop service sheds load. */
    public static final String SHEDDING_ALERT = "ShopShedding";
    /** The service whose 429 answers the alert watches: the shop's entry, which its clients call. */
    public static final String ENTRY = "gateway";
    private static final String PROMETHEUS = "prometheus";
    private static final String ALERTMANAGER = "prometheus-alertmanager";

    private final Process prometheus;
    private final Process alertmanager;
    private final int prometheusPort;
    private final int alertmanagerPort;

    private LocalMonitoring(Process prometheus, Process alertmanager, int prometheusPort, int alertmanagerPort) {
        this.prometheus = prometheus;
        this.alertmanager = alertmanager;
        this.prometheusPort = prometheusPort;
        this.alertmanagerPort = alertmanagerPort;
    }

    /** A service Prometheus scrapes: its job name becomes the {@code service} label, e.g. {@code order}. */
    public record ScrapeTarget(String service, String hostPort) {}

    /**
     * Why the servers cannot run here, or empty when both binaries are on the {@code PATH}.
     */
    public static Optional<String> missing() {
        return missing(LocalMonitoring::onPath);
    }

    /** {@link #missing()} with {@code onPath} telling whether a binary is on the {@code PATH}. */
    static Optional<String> missing(Predicate<String> onPath) {
        List<String> absent = absent(onPath);
        return absent.isEmpty() ? Optional.empty() : Optional.of(String.join(" and ", absent)
                + " not installed (apt-get install prometheus prometheus-alertmanager)");
    }

    /** The binaries (each its Debian package's name) not on the {@code PATH}, in the order Prometheus, Alertmanager. */
    private static List<String> absent(Predicate<String> onPath) {
        return List.of(PROMETHEUS, ALERTMANAGER).stream().filter(b -> !onPath.test(b)).toList();
    }

    private static boolean onPath(String binary) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, binary))) return true;
        }
        return false;
    }

    /**
     * Installs what {@link #missing()} lacks, as the demo shop's script installs {@code redis-server}: the Debian
     * packages {@code prometheus} and {@code prometheus-alertmanager} (each binary is its package's name), by {@code
     * apt-get install -y}, first as the package lists stand, then once more after {@code apt-get update} when that
     * failed (a fresh machine has no lists); as root, else through {@code sudo -n} when it needs no password.
     *
     * @param output where apt-get's output goes
     * @param out    progress lines (one when it installs)
     * @return why the servers still cannot run (no apt-get, not root, the install failed), or empty when both are there
     */
    public static Optional<String> install(ProcessBuilder.Redirect output, java.util.function.Consumer<String> out)
            throws InterruptedException {
        return install(LocalMonitoring::onPath, command -> run(command, output), isRoot(), out);
    }

    /** Runs one command to its end; its exit status (non-zero also when it cannot start). */
    interface Commands {
        int run(List<String> command) throws InterruptedException;
    }

    /** {@link #install(ProcessBuilder.Redirect, java.util.function.Consumer)} with its means given, for tests. */
    static Optional<String> install(Predicate<String> onPath, Commands commands, boolean root,
                                    java.util.function.Consumer<String> out) throws InterruptedException {
        List<String> absent = absent(onPath);
        if (absent.isEmpty()) {
            return Optional.empty();
        }
        List<String> prefix = root ? List.of() : List.of("sudo", "-n");
        if (!onPath.test("apt-get") || (!root && (!onPath.test("sudo") || commands.run(List.of("sudo", "-n", "true")) != 0))) {
            return missing(onPath);
        }
        out.accept("installing " + String.join(" and ", absent) + " (Debian packages, apt-get install) for the team's"
                + " evidence ...");
        List<String> install = new java.util.ArrayList<>(prefix);
        install.addAll(List.of("apt-get", "install", "-y", "-qq"));
        install.addAll(absent);
        if (commands.run(install) != 0) {
            List<String> update = new java.util.ArrayList<>(prefix);
            update.addAll(List.of("apt-get", "update", "-qq"));
            if (commands.run(update) != 0 || commands.run(install) != 0) {
                return Optional.of("apt-get could not install " + String.join(" and ", absent));
            }
        }
        return missing(onPath);
    }

    private static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return uid instanceof Integer i && i == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    private static int run(List<String> command, ProcessBuilder.Redirect output) throws InterruptedException {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
            return pb.start().waitFor();
        } catch (IOException e) {
            return 127;
        }
    }

    /**
     * Starts both servers and waits until each answers {@code /-/ready} and Prometheus has the Alertmanager.
     *
     * @param workDir          where configs, data and logs go (created; the previous data is removed)
     * @param team             the {@code team} label of the alerts
     * @param targets          the services scraped
     * @param prometheusPort   Prometheus' loopback port
     * @param alertmanagerPort the Alertmanager's loopback port
     * @throws IOException when a binary is missing or a server is not ready within 30 s (its log named)
     */
    public static LocalMonitoring start(Path workDir, String team, List<ScrapeTarget> targets, int prometheusPort,
                                        int alertmanagerPort) throws IOException, InterruptedException {
        Optional<String> missing = missing();
        if (missing.isPresent()) throw new IOException(missing.get());
        if (Files.exists(workDir)) {
            try (var walk = Files.walk(workDir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(workDir);
        Files.writeString(workDir.resolve("alertmanager.yml"), """
                route:
                  receiver: none
                  group_wait: 0s
                  group_interval: 1s
                receivers:
                  - name: none
                """);
        Files.writeString(workDir.resolve("rules.yml"), """
                groups:
                  - name: shop
                    interval: 1s
                    rules:
                      - alert: %s
                        expr: sum by (service) (rate(http_server_requests_seconds_count{service="%s",status="429"}[15s])) > 0
                        for: 0s
                        labels: {team: "%s"}
                        annotations: {summary: "{{ $labels.service }} sheds load (HTTP 429)"}
                """.formatted(SHEDDING_ALERT, ENTRY, team));
        String jobs = targets.stream().map(t -> """
                  - job_name: %s
                    metrics_path: /actuator/prometheus
                    static_configs: [{targets: ["%s"], labels: {service: "%s"}}]
                """.formatted(t.service(), t.hostPort(), t.service())).collect(Collectors.joining());
        Files.writeString(workDir.resolve("prometheus.yml"), """
                global: {scrape_interval: 1s, evaluation_interval: 1s, scrape_timeout: 900ms}
                rule_files: [rules.yml]
                alerting:
                  alertmanagers: [{static_configs: [{targets: ["127.0.0.1:%d"]}]}]
                scrape_configs:
                %s""".formatted(alertmanagerPort, jobs));
        Process am = new ProcessBuilder(ALERTMANAGER, "--config.file=" + workDir.resolve("alertmanager.yml"),
                "--storage.path=" + workDir.resolve("alertmanager-data"), "--web.listen-address=127.0.0.1:" + alertmanagerPort,
                "--cluster.listen-address=").redirectErrorStream(true)
                .redirectOutput(workDir.resolve("alertmanager.log").toFile()).start();
        Process prom = new ProcessBuilder(PROMETHEUS, "--config.file=" + workDir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + workDir.resolve("prometheus-data"), "--web.listen-address=127.0.0.1:" + prometheusPort,
                "--rules.alert.resend-delay=1s").directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(workDir.resolve("prometheus.log").toFile()).start();
        LocalMonitoring m = new LocalMonitoring(prom, am, prometheusPort, alertmanagerPort);
        try {
            m.awaitReady(workDir);
        } catch (IOException | InterruptedException | RuntimeException e) {
            m.close();
            throw e;
        }
        return m;
    }

    private void awaitReady(Path workDir) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        boolean promReady = false;
        boolean amReady = false;
        while (System.nanoTime() < deadline) {
            if (!prometheus.isAlive() || !alertmanager.isAlive()) break;
            promReady = promReady || ok(http, prometheusUrl() + "/-/ready");
            amReady = amReady || ok(http, alertmanagerUrl() + "/-/ready");
            if (promReady && amReady && body(http, prometheusUrl() + "/api/v1/alertmanagers").contains("activeAlertmanagers\":[{")) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IOException("Prometheus or Alertmanager not ready within 30 s: see " + workDir.resolve("prometheus.log")
                + " and " + workDir.resolve("alertmanager.log"));
    }

    private static boolean ok(HttpClient http, String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(1)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String body(HttpClient http, String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(1)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Prometheus' base URL, e.g. {@code http://127.0.0.1:19490}. */
    public String prometheusUrl() {
        return "http://127.0.0.1:" + prometheusPort;
    }

    /** The Alertmanager's base URL. */
    public String alertmanagerUrl() {
        return "http://127.0.0.1:" + alertmanagerPort;
    }

    /**
     * The {@code PUT /evidence-sources} body of a shop: this Prometheus with order's {@code orders-per-second}
     * ({@code sum(rate(orders_placed_total[15s]))}, at least half its load-proportional baseline) and this
     * Alertmanager, alerts of {@code team}.
     */
    public String evidenceSources(String team) {
        return """
                {"prometheus": [{"name": "shop-prometheus", "url": "%s",
                                 "queries": [{"name": "orders-per-second", "module": "order",
                                              "promql": "sum(rate(orders_placed_total[15s]))",
                                              "expect": {"baselineMinRatio": 0.5, "loadProportional": true}}]}],
                 "alertmanager": [{"name": "shop-alertmanager", "url": "%s", "matchers": {"team": "%s"}}]}
                """.formatted(prometheusUrl(), alertmanagerUrl(), team);
    }

    /** Stops both servers (their own processes only) and waits for them. */
    @Override
    public void close() {
        for (Process p : List.of(prometheus, alertmanager)) {
            p.destroy();
        }
        for (Process p : List.of(prometheus, alertmanager)) {
            try {
                if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
