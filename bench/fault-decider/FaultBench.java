import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Verdict;
import dev.richter.decider.AbortFlag;
import dev.richter.decider.DecideRequest;
import dev.richter.decider.DecideResult;
import dev.richter.decider.DecisionRules;
import dev.richter.decider.FaultDeciderService;
import dev.richter.decider.LoadWindow;
import dev.richter.decider.ModuleDecision;
import dev.richter.decider.ModuleState;
import dev.richter.decider.WindowReader;
import dev.richter.decider.VerdictRepository;
import dev.richter.probe.ProbeRound;
import dev.richter.probe.ProbeRoundResult;
import dev.richter.probe.ProbeTarget;
import dev.richter.probe.Prober;
import dev.richter.probe.Probes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Fault-injection harness for the probe + fault-decider pair.
 *
 * <p>Each trial starts its own scripted target (a JDK {@link HttpServer} on loopback with
 * {@code /actuator/health}, {@code /actuator/prometheus} and a business endpoint {@code /work}), runs the
 * monitor loop as the state machine does (probe round, decide, Wait 2 s) and a load generator that
 * replays 10 requests per second with the load driver's window shape. Probes are the real {@link Prober}
 * over real HTTP/TCP; decisions are the real {@link FaultDeciderService} with in-memory repositories.
 * Time is virtual: the Wait does not sleep, but every probe and load request runs for real and its
 * real duration is added to the virtual clock; the target reads the virtual time (a request header for
 * load requests, the round start for probes) to play its script.
 *
 * <p>The target also plays the team's own evidence: a Prometheus query API answering the module's orders per second
 * (half the load's rate) and an Alertmanager API v2 listing its alerts; fault kinds {@code alert} (an alert of the
 * module fires) and {@code business_drop} (orders per second fall to a tenth) leave every probe green.
 *
 * <p>Measures per fault kind: detection latency from injection to the first DAMAGED verdict (p50/p99; for
 * {@code business_drop} the first verdict its business metric made, SUSPECT after 3 rounds past its expectation),
 * false negatives (no DAMAGED within {@code DETECT_LIMIT_MS}); per healthy / noisy / cold-start target:
 * false positives per decision. A peer policy (the same rules with the vote and the error-burst rule
 * switched off: consecutive counts only) decides the same rounds of the first {@code PEER_TRIALS}
 * trials of each kind, for a ratio in the same run.
 *
 * <p>Settings (environment): {@code TRIALS} per fault kind (default 200), {@code FP_TRIALS} per benign
 * kind (default 60), {@code FP_ROUNDS} decisions per benign trial (default 100), {@code PARALLEL}
 * concurrent trials (default 16), {@code PEER_TRIALS} (default 5), {@code SEED}, {@code RULES_JSON} (rules
 * under test as partial JSON over the defaults, e.g. {@code {"passiveWindowSeconds":3}}), {@code BENCH_DEBUG}
 * (print every benign decision that said DAMAGED, to stderr).
 */
public final class FaultBench {
    static final long INTERVAL_MS = 2000;               // the ASL's Wait between rounds while all is well (1 s on alert)
    static final long DETECT_LIMIT_MS = 40_000;          // a fault not flagged by then is a false negative
    /** Pre-test rounds: past the business metrics' settle time (15 s) with 4 baseline rounds at 2 s a round. */
    static final int PRE_TEST_ROUNDS = 12;
    /** Formal rounds before the injection: past the business metrics' settle time (15 s) at 2 s a round. */
    static final int FORMAL_WARMUP_ROUNDS = 9;
    static final int LOAD_QPS = 10;
    static final long LOAD_TIMEOUT_MS = 2000;            // the load driver's per-request deadline
    static final String MODULE = "svc";

    enum Kind {
        HEALTHY(false), NOISY(false), COLD_START(false),
        HANG(true), SLOW(true), ERROR_BURST(true), MEMORY_LEAK(true), POOL_EXHAUSTION(true), FLAP(true),
        /** The team's Alertmanager fires an alert on the module; every probe stays green. */
        ALERT(true),
        /** The module's business metric (orders per second) falls to a tenth; every probe stays green. */
        BUSINESS_DROP(true);
        final boolean fault;

        Kind(boolean fault) {
            this.fault = fault;
        }
    }

    /** What the target does for one request. */
    record Behaviour(long delayMs, int status, String body) {}

    /** The scripted target: behaviour is a pure function of (kind, virtual time, random). */
    static final class Target implements AutoCloseable {
        final Kind kind;
        final AtomicLong virtualMs;
        final long startMs;
        volatile long injectAtMs = Long.MAX_VALUE;
        final SplittableRandom rnd;
        final HttpServer server;
        /** The team's Prometheus and Alertmanager: another endpoint than the module's, as in production. */
        final HttpServer evidence;
        final ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor();

        Target(Kind kind, AtomicLong virtualMs, long seed) throws IOException {
            this.kind = kind;
            this.virtualMs = virtualMs;
            this.startMs = virtualMs.get();
            this.rnd = new SplittableRandom(seed);
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
            server.setExecutor(exec);
            server.createContext("/actuator/health", ex -> serve(ex, health(at(ex))));
            server.createContext("/actuator/prometheus", ex -> serve(ex, prometheus(at(ex))));
            server.createContext("/work", ex -> serve(ex, work(at(ex))));
            server.start();
            // the team's own evidence: a Prometheus query API and an Alertmanager API v2, in the servers' shapes
            evidence = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            evidence.setExecutor(exec);
            evidence.createContext("/api/v1/query", ex -> serve(ex, businessMetric(at(ex))));
            evidence.createContext("/api/v2/alerts", ex -> serve(ex, alerts(at(ex))));
            evidence.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        long at(HttpExchange ex) {
            String h = ex.getRequestHeaders().getFirst("X-Virtual-Ms");
            return h == null ? virtualMs.get() : Long.parseLong(h);
        }

        synchronized double r() {
            return rnd.nextDouble();
        }

        /** The fault in force at {@code t}, or the benign kind. */
        Kind effective(long t) {
            if (kind == Kind.COLD_START) return t - startMs < 8000 ? Kind.COLD_START : Kind.HEALTHY;
            if (!kind.fault) return kind;
            if (t < injectAtMs) return Kind.HEALTHY;
            if (kind == Kind.FLAP) return ((t - injectAtMs) / 3000) % 2 == 0 ? Kind.HANG : Kind.HEALTHY;
            return kind;
        }

        double heapAt(long t) {
            Kind k = effective(t);
            if (k == Kind.MEMORY_LEAK) return Math.min(0.99, 0.5 + 0.12 * (t - injectAtMs) / 1000.0);
            if (k == Kind.NOISY) return 0.35 + 0.4 * r();
            if (k == Kind.COLD_START) return 0.2 + 0.3 * (t - startMs) / 8000.0;
            return 0.45 + 0.15 * r();
        }

        double connAt(long t) {
            Kind k = effective(t);
            if (k == Kind.POOL_EXHAUSTION) return 1.0;
            if (k == Kind.NOISY) return 0.05 + 0.55 * r();
            return 0.1 + 0.2 * r();
        }

        static final String UP = "{\"status\":\"UP\",\"components\":{\"db\":{\"status\":\"UP\"},\"diskSpace\":{\"status\":\"UP\"}}}";

        Behaviour health(long t) {
            return switch (effective(t)) {
                case HANG -> new Behaviour(5000, 200, UP);
                case SLOW -> new Behaviour(1400 + (long) (200 * r()), 200, UP);
                case POOL_EXHAUSTION -> new Behaviour(800, 503,
                        "{\"status\":\"DOWN\",\"components\":{\"db\":{\"status\":\"DOWN\",\"details\":{\"error\":\"Connection is not available, request timed out after 800ms\"}}}}");
                case MEMORY_LEAK -> heapAt(t) > 0.95 ? new Behaviour(300, 500, "java.lang.OutOfMemoryError: Java heap space")
                        : new Behaviour(2, 200, UP);
                case NOISY -> {
                    double x = r();
                    yield x < 0.005 ? new Behaviour(1200, 200, UP) : new Behaviour((long) (40 * r()), 200, UP);
                }
                case COLD_START -> new Behaviour(100 + (long) (300 * r()), 200, UP);
                default -> new Behaviour(1, 200, UP);
            };
        }

        Behaviour prometheus(long t) {
            String body = """
                    # HELP jvm_memory_used_bytes The amount of used memory
                    # TYPE jvm_memory_used_bytes gauge
                    jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} %d
                    jvm_memory_max_bytes{area="heap",id="G1 Old Gen"} 1000000000
                    # TYPE hikaricp_connections_active gauge
                    hikaricp_connections_active{pool="HikariPool-1"} %d
                    hikaricp_connections_max{pool="HikariPool-1"} 20
                    process_cpu_usage %.3f
                    """.formatted((long) (heapAt(t) * 1e9), Math.round(connAt(t) * 20), 0.2 + 0.3 * r());
            return switch (effective(t)) {
                case HANG -> new Behaviour(5000, 200, body);
                case SLOW -> new Behaviour(1400 + (long) (200 * r()), 200, body);
                case NOISY -> new Behaviour((long) (30 * r()), 200, body);
                default -> new Behaviour(1, 200, body);
            };
        }

        Behaviour work(long t) {
            return switch (effective(t)) {
                case HANG -> new Behaviour(5000, 200, "ok");
                case SLOW -> new Behaviour(1400 + (long) (200 * r()), 200, "ok");
                case ERROR_BURST -> r() < 0.7 ? new Behaviour(2, 500, "error") : new Behaviour(2, 200, "ok");
                case POOL_EXHAUSTION -> r() < 0.9 ? new Behaviour(800, 500, "pool timeout") : new Behaviour(5, 200, "ok");
                case MEMORY_LEAK -> heapAt(t) > 0.95 ? (r() < 0.4 ? new Behaviour(300, 500, "OOM") : new Behaviour(300, 200, "ok"))
                        : new Behaviour(3, 200, "ok");
                case NOISY -> {
                    double x = r();
                    if (x < 0.003) yield new Behaviour(5, 500, "error");
                    yield new Behaviour(x < 0.013 ? 300 : 5 + (long) (55 * r()), 200, "ok");
                }
                case COLD_START -> new Behaviour(200 + (long) (400 * r()), 200, "ok");
                default -> new Behaviour(1 + (long) (4 * r()), 200, "ok");
            };
        }

        /** Orders per second: half the load's rate, ±10 % (NOISY: ±40 %); a tenth of it under BUSINESS_DROP. */
        Behaviour businessMetric(long t) {
            Kind k = effective(t);
            double spread = k == Kind.NOISY ? 0.4 : 0.1;
            double v = LOAD_QPS * 0.5 * (1 - spread + 2 * spread * r()) * (k == Kind.BUSINESS_DROP ? 0.1 : 1);
            return new Behaviour(2, 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
                    + "\"value\":[" + t / 1000.0 + ",\"" + v + "\"]}]}}");
        }

        /** No alert; under ALERT one active alert of the module, as Alertmanager lists it. */
        Behaviour alerts(long t) {
            if (effective(t) != Kind.ALERT) return new Behaviour(2, 200, "[]");
            String starts = java.time.Instant.ofEpochMilli(injectAtMs).toString();
            String ends = java.time.Instant.ofEpochMilli(t + 60_000).toString();
            return new Behaviour(2, 200, "[{\"annotations\":{},\"endsAt\":\"" + ends + "\",\"fingerprint\":\"b1\",\"receivers\":"
                    + "[{\"name\":\"none\"}],\"startsAt\":\"" + starts + "\",\"status\":{\"inhibitedBy\":[],\"silencedBy\":[],"
                    + "\"state\":\"active\"},\"updatedAt\":\"" + starts + "\",\"labels\":{\"alertname\":\"SvcErrors\",\"service\":\""
                    + MODULE + "\"}}]");
        }

        static void serve(HttpExchange ex, Behaviour b) throws IOException {
            try {
                if (b.delayMs() > 0) Thread.sleep(b.delayMs());
                byte[] bytes = b.body().getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(b.status(), bytes.length);
                ex.getResponseBody().write(bytes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException ignored) {
                // the client gave up (deadline): nothing to answer
            } finally {
                ex.close();
            }
        }

        @Override
        public void close() {
            server.stop(0);
            evidence.stop(0);
            exec.shutdownNow();
        }
    }

    /** In-memory verdicts table. */
    static final class MemVerdicts implements VerdictRepository {
        final Map<String, ModuleState> states = new ConcurrentHashMap<>();

        @Override
        public Map<String, ModuleState> loadStates(String runId) {
            return Map.copyOf(states);
        }

        @Override
        public void save(String runId, List<ModuleDecision> decisions) {
            for (ModuleDecision d : decisions) states.put(d.verdict().module(), Json.read(Json.write(d.next()), ModuleState.class));
        }
    }

    /** In-memory run-metrics table. */
    static final class MemMetrics implements WindowReader {
        final List<LoadWindow> windows = new CopyOnWriteArrayList<>();
        final Map<String, String> stepOf = new ConcurrentHashMap<>();

        @Override
        public List<LoadWindow> windows(String runId, String stage, int stepIndex, long from, long to) {
            String key = stage + "#" + stepIndex;
            return windows.stream().filter(w -> w.epochSecond() >= from && w.epochSecond() <= to
                    && key.equals(stepOf.get(Long.toString(w.epochSecond())))).toList();
        }
    }

    static final class NoAbort implements AbortFlag {
        @Override
        public boolean isAbortRequested(String runId) {
            return false;
        }

        @Override
        public void requestAbort(String runId, String reason) {}
    }

    /** When a fault starts to hurt service after injection (the leak ramps 0.5 -> 0.95 heap at 0.12/s), ms. */
    static long harmOffsetMs(Kind k) {
        return k == Kind.MEMORY_LEAK ? 3750 : 0;
    }

    /** Rounds before any fault, and those of them after which the decider asked for the short (alert) wait. */
    static final AtomicLong BENIGN_ROUNDS = new AtomicLong();
    static final AtomicLong BENIGN_ALERT_ROUNDS = new AtomicLong();

    /** HTTP probe latencies of healthy-target rounds, a check that the bench itself is not overloaded. */
    static final List<Long> HEALTHY_PROBE_MS = new CopyOnWriteArrayList<>();

    record TrialResult(Kind kind, long detectMs, long peerDetectMs, int decisions, int damagedDecisions,
                       int suspectDecisions, String firstRule) {}

    static final HttpClient LOAD = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofMillis(LOAD_TIMEOUT_MS)).build();
    static final Prober PROBER = warmedProber();

    static Prober warmedProber() {
        Probes p = new Probes();
        p.warmUp();
        return new Prober(p);
    }
    static final ExecutorService BACKGROUND = Executors.newVirtualThreadPerTaskExecutor();
    static final Semaphore BOUND = new Semaphore(Integer.parseInt(env("PARALLEL", "16")));
    /** The rules under test: the defaults, or {@code RULES_JSON} (partial JSON over the defaults). */
    static final DecisionRules RULES = DecisionRules.fromJson(env("RULES_JSON", "{}"));
    static final DecisionRules PEER_RULES = DecisionRules.fromJson(
            "{\"damagedVoteFraction\":1.0,\"minVotingKinds\":100,\"damagedErrorRate\":2.0}");

    static String env(String k, String d) {
        String v = System.getenv(k);
        return v == null || v.isBlank() ? d : v;
    }

    /** Replays LOAD_QPS requests for each second in [fromSec, toSec] (concurrently) and records windows. */
    static List<LoadWindow> load(Target target, long fromSec, long toSec) throws Exception {
        List<LoadWindow> out = new ArrayList<>();
        try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
            List<List<Future<long[]>>> perSecond = new ArrayList<>();
            for (long s = fromSec; s <= toSec; s++) {
                List<Future<long[]>> fs = new ArrayList<>();
                for (int i = 0; i < LOAD_QPS; i++) {
                    long vMs = s * 1000 + i * (1000L / LOAD_QPS);
                    fs.add(exec.submit(() -> {
                        long t0 = System.nanoTime();
                        boolean ok;
                        try {
                            HttpResponse<Void> r = LOAD.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port() + "/work"))
                                    .timeout(Duration.ofMillis(LOAD_TIMEOUT_MS)).header("X-Virtual-Ms", Long.toString(vMs))
                                    .header("baggage", "richter-loadtest=1").GET().build(), HttpResponse.BodyHandlers.discarding());
                            ok = r.statusCode() < 400;
                        } catch (IOException e) {
                            ok = false;
                        }
                        return new long[] {(System.nanoTime() - t0) / 1000, ok ? 0 : 1};
                    }));
                }
                perSecond.add(fs);
            }
            long s = fromSec;
            for (List<Future<long[]>> fs : perSecond) {
                // Auto-resizing (small) histograms keep the bench's CPU for the probes; the codec path is the same.
                Histogram h = new Histogram(HistogramCodec.SIGNIFICANT_DIGITS);
                long errors = 0;
                for (Future<long[]> f : fs) {
                    long[] r = f.get();
                    h.recordValue(Math.max(1, Math.min(r[0], HistogramCodec.HIGHEST_TRACKABLE_US)));
                    errors += r[1];
                }
                out.add(new LoadWindow(s, 0, fs.size(), errors, HistogramCodec.encode(h)));
                s++;
            }
        }
        return out;
    }

    /** One trial of one kind; benign kinds run {@code benignRounds} decisions, faults run until DAMAGED or the limit. */
    static TrialResult trial(Kind kind, int index, long seed, int benignRounds, boolean withPeer) throws Exception {
        AtomicLong clock = new AtomicLong(1_800_000_000_000L + index * 10_000_000L + new SplittableRandom(seed).nextLong(1000));
        SplittableRandom rnd = new SplittableRandom(seed ^ 0x5DEECE66DL);
        String runId = kind + "-" + index;
        MemMetrics metrics = new MemMetrics();
        MemVerdicts verdicts = new MemVerdicts();
        FaultDeciderService service = new FaultDeciderService(t -> RULES, verdicts, metrics,
                new NoAbort(), d -> {}, clock::get);
        MemVerdicts peerVerdicts = new MemVerdicts();
        FaultDeciderService peer = new FaultDeciderService(t -> PEER_RULES, peerVerdicts, metrics, new NoAbort(), d -> {}, clock::get);
        try (Target target = new Target(kind, clock, seed)) {
            List<ProbeTarget> targets = List.of(
                    new ProbeTarget.Http(MODULE, "http://127.0.0.1:" + target.port() + "/actuator/health", 1000),
                    new ProbeTarget.Tcp(MODULE, "127.0.0.1", target.port(), 500),
                    new ProbeTarget.Prometheus(MODULE, "http://127.0.0.1:" + target.port() + "/actuator/prometheus", 1000, null),
                    new ProbeTarget.PromQuery(MODULE, "http://127.0.0.1:" + target.evidence.getAddress().getPort(), "orders-per-second",
                            "sum(rate(orders_placed_total[15s]))", 1000,
                            new dev.richter.common.model.EvidenceSources.MetricExpectation(null, null, 0.5, null, true)),
                    new ProbeTarget.Alerts(MODULE, "http://127.0.0.1:" + target.evidence.getAddress().getPort(), "bench", Map.of(),
                            "service", 1000));
            long nextLoadSec = clock.get() / 1000 - 3;
            long detectMs = -1;
            long peerDetectMs = -1;
            int decisions = 0;
            int damaged = 0;
            int suspect = 0;
            String firstRule = "";
            int round = 0;
            long lastWaitMs = INTERVAL_MS;
            while (true) {
                String stage = round < PRE_TEST_ROUNDS ? "pre-test" : "formal";
                int step = 0;
                if (kind.fault && round == PRE_TEST_ROUNDS + FORMAL_WARMUP_ROUNDS && target.injectAtMs == Long.MAX_VALUE) {
                    // Inject at a uniformly random moment of the Wait that just passed.
                    target.injectAtMs = clock.get() - (long) (rnd.nextDouble() * lastWaitMs);
                }
                long roundStart = clock.get();
                long roundStartNs = System.nanoTime();
                long toSec = roundStart / 1000 + 1;
                long fromSec = Math.max(nextLoadSec, toSec - 4);
                var loadFuture = BACKGROUND.submit(() -> load(target, fromSec, toSec));
                ProbeRoundResult probed = PROBER.run(new ProbeRound(runId, "bench", stage, step, targets));
                // As the state machine passes it on: through JSON.
                List<HealthReport> reports = Json.read(Json.write(probed), ProbeRoundResult.class).reports();
                for (LoadWindow w : loadFuture.get()) {
                    metrics.windows.add(w);
                    metrics.stepOf.put(Long.toString(w.epochSecond()), stage + "#" + step);
                }
                nextLoadSec = toSec + 1;
                clock.set(roundStart + (System.nanoTime() - roundStartNs) / 1_000_000);
                DecideRequest req = new DecideRequest(runId, "bench", stage, step, Long.MAX_VALUE, List.of(MODULE),
                        new DecideRequest.Round(runId, probed.observedAtMs(), reports));
                DecideResult r = service.decide(req);
                boolean anyDamaged = r.verdicts().stream().anyMatch(v -> v.state() == Verdict.State.DAMAGED);
                boolean anySuspect = r.verdicts().stream().anyMatch(v -> v.state() == Verdict.State.SUSPECT);
                boolean faultActive = kind.fault && clock.get() >= target.injectAtMs;
                if (kind == Kind.HEALTHY && index < 1_000_000) HEALTHY_PROBE_MS.add(reports.getFirst().latencyMs());
                if (!faultActive) {
                    decisions++;
                    if (anyDamaged) damaged++;
                    if (anyDamaged && System.getenv("BENCH_DEBUG") != null) {
                        System.err.println("FP " + kind + " round " + round + " " + stage + ": " + r.verdicts() + " reports " + reports);
                    }
                    if (anySuspect) suspect++;
                }
                // a business metric is acted on when it makes the module SUSPECT (3 rounds past its expectation, the issue's
                // "acts within 3 rounds"); every other fault when a module is DAMAGED
                boolean acted = kind == Kind.BUSINESS_DROP
                        ? r.verdicts().stream().anyMatch(v -> v.state() != Verdict.State.HEALTHY && v.reason().startsWith("business metric"))
                        : anyDamaged;
                if (faultActive && acted && detectMs < 0) {
                    detectMs = clock.get() - target.injectAtMs;
                    firstRule = r.verdicts().stream().filter(v -> kind == Kind.BUSINESS_DROP ? v.state() != Verdict.State.HEALTHY
                                    : v.state() == Verdict.State.DAMAGED)
                            .map(v -> v.module() + ":" + ruleOf(v.reason())).findFirst().orElse("");
                }
                if (withPeer) {
                    DecideResult pr = peer.decide(req);
                    boolean peerActed = pr.verdicts().stream().anyMatch(v -> kind == Kind.BUSINESS_DROP
                            ? v.state() != Verdict.State.HEALTHY && v.reason().startsWith("business metric") : v.state() == Verdict.State.DAMAGED);
                    if (faultActive && peerDetectMs < 0 && peerActed) {
                        peerDetectMs = clock.get() - target.injectAtMs;
                    }
                }
                round++;
                if (!kind.fault && round >= benignRounds) break;
                if (kind.fault && faultActive) {
                    boolean pastLimit = clock.get() - target.injectAtMs > DETECT_LIMIT_MS;
                    boolean done = detectMs >= 0 && (!withPeer || peerDetectMs >= 0);
                    if (done || pastLimit) break;
                }
                lastWaitMs = r.nextRoundInS() * 1000L;
                if (!faultActive) {
                    BENIGN_ROUNDS.incrementAndGet();
                    if (lastWaitMs < INTERVAL_MS) BENIGN_ALERT_ROUNDS.incrementAndGet();
                }
                clock.addAndGet(lastWaitMs); // the ASL's WaitNextRound (SecondsPath $.decision.nextRoundInS)
            }
            return new TrialResult(kind, detectMs, peerDetectMs, decisions, damaged, suspect, firstRule);
        }
    }

    static String ruleOf(String reason) {
        if (reason.startsWith("weighted probe vote")) return "vote";
        if (reason.startsWith("error rate")) return "error-burst";
        if (reason.contains("consecutive failed probes;")) return "consecutive+resource";
        if (reason.startsWith("alert ")) return "alert-firing";
        if (reason.startsWith("business metric")) return "business-metric";
        return "other";
    }

    static double pct(List<Long> sorted, double p) {
        if (sorted.isEmpty()) return Double.NaN;
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i))) / 1000.0;
    }

    public static void main(String[] args) throws Exception {
        int trials = Integer.parseInt(env("TRIALS", "200"));
        int fpTrials = Integer.parseInt(env("FP_TRIALS", "60"));
        int fpRounds = Integer.parseInt(env("FP_ROUNDS", "100"));
        int peerTrials = Integer.parseInt(env("PEER_TRIALS", "5"));
        long seed = Long.parseLong(env("SEED", "20261130"));
        // Warm the JVM (class loading, JIT of the HTTP stack) so a cold bench process does not pass for a slow target.
        try (ExecutorService warm = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<TrialResult>> ws = new ArrayList<>();
            for (int i = 0; i < BOUND.availablePermits(); i++) {
                final int index = 1_000_000 + i;
                ws.add(warm.submit(() -> trial(Kind.HEALTHY, index, index, 15, false)));
            }
            for (Future<TrialResult> f : ws) f.get();
        }
        long t0 = System.nanoTime();
        Map<Kind, List<Future<TrialResult>>> futures = new java.util.EnumMap<>(Kind.class);
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            int idx = 0;
            for (Kind k : Kind.values()) {
                int n = k.fault ? trials : fpTrials;
                List<Future<TrialResult>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    final int index = idx++;
                    final boolean withPeer = k.fault && i < peerTrials;
                    final long s = seed * 1_000_003L + index;
                    fs.add(exec.submit(() -> {
                        BOUND.acquire();
                        try {
                            return trial(k, index, s, fpRounds, withPeer);
                        } finally {
                            BOUND.release();
                        }
                    }));
                }
                futures.put(k, fs);
            }
            List<Long> allDetect = new ArrayList<>();
            List<Long> allFromHarm = new ArrayList<>();
            int faultTrials = 0;
            int fn = 0;
            long benignDecisions = 0;
            long benignDamaged = 0;
            System.out.printf(Locale.ROOT, "%-16s %7s %9s %8s %8s %8s %8s %10s %9s %9s  %s%n", "kind", "trials", "detected",
                    "fn_pct", "p50_s", "p99_s", "max_s", "harm_p99_s", "peer_p50", "speedup", "first rule (count)");
            for (Kind k : Kind.values()) {
                if (!k.fault) continue;
                List<Long> d = new ArrayList<>();
                List<Long> peerD = new ArrayList<>();
                List<Long> selfOnPeer = new ArrayList<>();
                Map<String, Integer> rules = new java.util.TreeMap<>();
                int missed = 0;
                for (Future<TrialResult> f : futures.get(k)) {
                    TrialResult r = f.get();
                    benignDecisions += r.decisions();
                    benignDamaged += r.damagedDecisions();
                    if (r.detectMs() < 0) missed++;
                    else {
                        d.add(r.detectMs());
                        rules.merge(r.firstRule(), 1, Integer::sum);
                    }
                    if (r.peerDetectMs() >= 0 && r.detectMs() >= 0) {
                        peerD.add(r.peerDetectMs());
                        selfOnPeer.add(r.detectMs());
                    }
                }
                Collections.sort(d);
                Collections.sort(peerD);
                Collections.sort(selfOnPeer);
                faultTrials += futures.get(k).size();
                fn += missed;
                allDetect.addAll(d);
                d.forEach(x -> allFromHarm.add(x - harmOffsetMs(k)));
                double speedup = peerD.isEmpty() ? Double.NaN : pct(peerD, 50) / pct(selfOnPeer, 50);
                List<Long> fromHarm = d.stream().map(x -> x - harmOffsetMs(k)).toList();
                System.out.printf(Locale.ROOT, "%-16s %7d %9d %8.2f %8.2f %8.2f %8.2f %10.2f %9s %9s  %s%n", k.name().toLowerCase(Locale.ROOT),
                        futures.get(k).size(), d.size(), 100.0 * missed / futures.get(k).size(), pct(d, 50), pct(d, 99),
                        d.isEmpty() ? Double.NaN : d.getLast() / 1000.0, pct(fromHarm, 99),
                        peerD.isEmpty() ? "-" : "%.1f".formatted(pct(peerD, 50)),
                        Double.isNaN(speedup) ? "-" : "%.1fx".formatted(speedup), rules);
            }
            System.out.println();
            System.out.printf(Locale.ROOT, "%-16s %7s %9s %9s %8s %11s%n", "benign", "trials", "decisions", "damaged", "fp_pct", "suspect_pct");
            for (Kind k : Kind.values()) {
                if (k.fault) continue;
                long dec = 0;
                long dmg = 0;
                long sus = 0;
                for (Future<TrialResult> f : futures.get(k)) {
                    TrialResult r = f.get();
                    dec += r.decisions();
                    dmg += r.damagedDecisions();
                    sus += r.suspectDecisions();
                }
                benignDecisions += dec;
                benignDamaged += dmg;
                System.out.printf(Locale.ROOT, "%-16s %7d %9d %9d %8.3f %11.3f%n", k.name().toLowerCase(Locale.ROOT),
                        futures.get(k).size(), dec, dmg, 100.0 * dmg / Math.max(1, dec), 100.0 * sus / Math.max(1, dec));
            }
            Collections.sort(allDetect);
            Collections.sort(allFromHarm);
            System.out.printf(Locale.ROOT, "detection p99 over all faults from injection %.2f s; from harm onset (leak reaching OOM) %.2f s%n",
                    pct(allDetect, 99), pct(allFromHarm, 99));
            List<Long> hp = new ArrayList<>(HEALTHY_PROBE_MS);
            Collections.sort(hp);
            System.out.printf(Locale.ROOT, "bench self-check: healthy-target HTTP probe latency p50 %.0f ms, p99 %.0f ms (n=%d)%n",
                    pct(hp, 50) * 1000, pct(hp, 99) * 1000, hp.size());
            System.out.printf(Locale.ROOT, "(benign decisions include the pre-injection rounds of fault trials)%n");
            System.out.printf(Locale.ROOT, "benign rounds followed by the 1 s alert wait: %.2f %% of %d (the extra probe and decider cost of a healthy run)%n",
                    100.0 * BENIGN_ALERT_ROUNDS.get() / Math.max(1, BENIGN_ROUNDS.get()), BENIGN_ROUNDS.get());
            System.out.printf(Locale.ROOT, "wall time %.1f s; probe interval %d ms, 1000 ms on alert (virtual Wait), probe deadlines http 1000 / tcp 500 / prometheus 1000 ms, load %d qps, load deadline %d ms%n",
                    (System.nanoTime() - t0) / 1e9, INTERVAL_MS, LOAD_QPS, LOAD_TIMEOUT_MS);
            System.out.printf(Locale.ROOT, "detect_p99_s=%.2f fp_pct=%.3f fn_pct=%.2f%n", pct(allDetect, 99),
                    100.0 * benignDamaged / Math.max(1, benignDecisions), 100.0 * fn / Math.max(1, faultTrials));
        }
        PROBER.close();
        System.exit(0);
    }
}
