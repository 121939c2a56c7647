package dev.richter.loaddriver.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import dev.richter.loaddriver.ArrivalScheduler;
import dev.richter.loaddriver.MonotonicClock;
import dev.richter.loaddriver.ConstantArrivalSchedule;
import dev.richter.loaddriver.HttpTransport;
import dev.richter.loaddriver.JdkHttpTransport;
import dev.richter.loaddriver.NettyHttpTransport;
import dev.richter.loaddriver.LoadDriver;
import dev.richter.loaddriver.OutboundRequest;
import dev.richter.loaddriver.ResultSink;
import dev.richter.loaddriver.Window;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.HdrHistogram.Histogram;

/**
 * Benchmark driver for {@code bench/load-driver.sh}: runs the real {@link LoadDriver} (in-memory sink) against a
 * URL and prints one {@code key=value} line per measurement.
 *
 * <p>Transport ({@code -Dbench.transport}, default {@code jdk}): {@code jdk} ({@link JdkHttpTransport}, HTTP/1.1),
 * {@code netty} ({@link NettyHttpTransport}, HTTP/1.1 on http://), {@code h2c} (Netty, HTTP/2 prior knowledge on
 * http://), {@code h2} (Netty, https:// offering ALPN h2 then http/1.1), {@code tls-h1} (Netty, https:// offering
 * http/1.1 only). For https the JVM's trust store decides ({@code -Djavax.net.ssl.trustStore}). Netty's send-loop
 * poll window is {@link NettyHttpTransport#DEFAULT_SPIN_NANOS} unless {@code -Dbench.spinNanos} says otherwise;
 * {@code -Dbench.scheduler=thread} keeps the scheduler on the calling thread (see {@link #CLOCK}).
 *
 * <p>Usage: {@code LoadDriverBench <url> maxrate} —
 * open-model max sustained rate after an 8 s warm-up: the highest target rate (2 s trials from 1000 QPS —
 * halved first while it fails —, ×1.25, then bisected 3 times; a failed trial is retried once) at which
 * every due request was sent and answered ok, nothing was dropped and the send rate ((n − 1) / (last send −
 * first send)) reached ≥ 99 % of the target, then CPU per request in a 10 s trial at that rate, over its steady window
 * ({@link Steady}); {@code LoadDriverBench
 * <url> cost <qps> <durationS> <maxInFlight>} — one measured trial after a 10 s warm-up ({@code -Dbench.profile=<file>}:
 * async-profiler's CPU samples of that trial, see {@link Profiler}); or {@code LoadDriverBench <url> accuracy} — rate
 * accuracy at 1, 10, 100, 1000, 10000 QPS, send lateness (send time minus due time, µs: p50, p99, p99.9, max, as the
 * driver records it) at 1000 and 10000 QPS beside its floor (the same scheduler on the same thread with a no-op
 * dispatch: what this host's timers and load allow), and peak heap used at 10000 QPS; or {@code LoadDriverBench <url>
 * worker10k} — one worker holding 10 000 QPS for 20 s ({@code -Dbench.worker10kSeconds}), per-window rate error and
 * send lateness against the floor of the same run ({@link #worker10k}).
 *
 * <p>CPU per request is the process's CPU time over a trial divided by the requests nginx counted in it
 * ({@code -Dbench.nginxStatus=<stub_status url>}; by requests sent without it). CPU time is robust to a shared host's
 * neighbours; wall-clock rates are not. A trial of 6 s or more also reports it over its steady window ({@link Steady}:
 * from 3 s after the step starts to 1 s before its end, so without the recompilations a new run sets off), and the
 * share of that window's CPU the JIT compiler threads took.
 */
public final class LoadDriverBench {
    /** {@code jdk} (default), {@code netty}, {@code h2c}, {@code h2} or {@code tls-h1}, from {@code -Dbench.transport}. */
    private static final String TRANSPORT = System.getProperty("bench.transport", "jdk");
    /**
     * {@code -Dbench.scheduler=thread} runs the arrival scheduler on the driver's calling thread even where the
     * transport offers a send loop, to measure in one build what scheduling on the transport's I/O thread gains.
     */
    private static final MonotonicClock CLOCK = "thread".equals(System.getProperty("bench.scheduler"))
            ? new MonotonicClock() { // the system clock, but not MonotonicClock.SystemClock: LoadDriver then parks its own thread
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public void parkUntil(long deadlineNanos) {
                    MonotonicClock.system().parkUntil(deadlineNanos);
                }
            }
            : MonotonicClock.system();

    /**
     * The accuracy trials start their workers as AWS does, ahead of the step (the leg's WaitForLaunch lead,
     * {@code RICHTER_WORKER_LEAD_MS}, 10 s by default), ms: long enough for the worker's warm-up (3 s) and its
     * collection before the step (1 s).
     */
    private static final long ACCURACY_LEAD_MS = 5000;

    /**
     * Seconds of each send-lateness trial at 1 000 and 10 000 QPS, and of its floor: a p99 of 5 s at 1 000 QPS rests on
     * its 50 latest sends, which one burst of this shared host's noise decides for the driver or the floor alone.
     */
    private static final int LATENESS_TRIAL_S = 20;

    private LoadDriverBench() {}

    /** Per-run send-time capture (scheduler thread only). */
    private static final class SendTimes implements LoadDriver.SendObserver {
        final long[] sendNanos;
        final long[] dueNanos;
        int n;

        SendTimes(int capacity) {
            sendNanos = new long[capacity];
            dueNanos = new long[capacity];
        }

        /** The worker's send lateness, µs, as the driver recorded it ({@link LoadDriver.SendObserver#onSendLateness}). */
        Histogram latenessUs = new Histogram(1, 60_000_000L, 3);

        @Override
        public void onSend(long index, long due, long sendNanosValue) {
            if (n < sendNanos.length) {
                dueNanos[n] = due;
                sendNanos[n++] = sendNanosValue;
            }
        }

        @Override
        public void onSendLateness(Histogram sendLatenessUs) {
            latenessUs = sendLatenessUs;
        }
    }

    /**
     * @param nginxRequests requests nginx counted during the trial ({@code stub_status}), or -1 without
     *                      {@code -Dbench.nginxStatus}
     */
    private record Trial(double qps, double durationS, WorkerResult result, SendTimes sends, long peakHeapBytes,
                         long cpuNanos, long nginxRequests, Steady steady, List<Window> windows) {
        /**
         * Process CPU time (all threads: scheduler, I/O, completions, GC, JIT) per request counted at nginx, microseconds;
         * per request sent when nginx's count is not known.
         */
        double cpuUsPerRequest() {
            long n = nginxRequests >= 0 ? nginxRequests : result.counters().sent();
            return n == 0 ? 0 : cpuNanos / 1000.0 / n;
        }

        /** CPU per request over the trial's steady window, µs; the whole trial's when it had none (shorter than 6 s). */
        double steadyCpuUsPerRequest() {
            return steady == null || steady.nginxRequests() <= 0 ? cpuUsPerRequest() : steady.cpuUsPerRequest();
        }

        long target() {
            return (long) Math.ceil(qps * durationS - 1e-9);
        }

        double elapsedS() {
            return Math.max(durationS, (result.endedAtMs() - result.startedAtMs()) / 1000.0);
        }

        double achievedQps() {
            return result.counters().ok() / elapsedS();
        }

        /** Rate from the send timestamps: (n − 1) / (last send − first send). */
        double sendRateQps() {
            return sends.n < 2 ? 0 : (sends.n - 1) / ((sends.sendNanos[sends.n - 1] - sends.sendNanos[0]) / 1e9);
        }

        /** Kept pace: every due request sent and answered ok, no drops, send rate ≥ 99 % of the target. */
        boolean sustained() {
            var c = result.counters();
            return c.dropped() == 0 && c.errors() == 0 && c.ok() == target() && sendRateQps() >= 0.99 * qps;
        }
    }

    /**
     * A trial's steady window: from {@link #STEADY_SKIP_S} after the step starts to 1 s before it ends. The first
     * seconds of each run carry the JIT recompilations it sets off (uncommon traps on the new run's paths: on a slow
     * host C2 is busy for 1 to 2 s), and its last second the drain; a worker's run of minutes to hours amortizes both,
     * so its CPU per request is the window's.
     *
     * @param cpuNanos      the process's CPU time in the window, ns (all threads)
     * @param jitNanos      of which the JIT compiler threads' ({@code C1/C2 CompilerThread}, from
     *                      {@code /proc/self/task/<tid>/schedstat}), ns
     * @param nginxRequests requests nginx counted in the window
     */
    record Steady(long cpuNanos, long jitNanos, long nginxRequests) {
        double cpuUsPerRequest() {
            return nginxRequests <= 0 ? 0 : cpuNanos / 1000.0 / nginxRequests;
        }

        double jitPct() {
            return cpuNanos <= 0 ? 0 : 100.0 * jitNanos / cpuNanos;
        }
    }

    /** Seconds of a trial's start left out of its steady window ({@link Steady}). */
    static final double STEADY_SKIP_S = 3;

    /**
     * CPU time of this JVM's JIT compiler threads, ns: the sum of {@code sum_exec_runtime} (the first field of
     * {@code /proc/self/task/<tid>/schedstat}) over the tasks whose {@code comm} starts with {@code C1 CompilerThre}
     * or {@code C2 CompilerThre}; 0 where /proc has no schedstat.
     */
    static long jitCpuNanos() {
        long sum = 0;
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return 0;
        }
        for (java.io.File task : tasks) {
            try {
                String comm = java.nio.file.Files.readString(task.toPath().resolve("comm")).trim();
                if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                    String schedstat = java.nio.file.Files.readString(task.toPath().resolve("schedstat")).trim();
                    sum += Long.parseLong(schedstat.split("\\s+")[0]);
                }
            } catch (java.io.IOException | RuntimeException e) {
                // a compiler thread that ended between the listing and the read: its time is lost to both edges
            }
        }
        return sum;
    }

    private static Trial run(String url, double qps, double durationS, int maxInFlight) {
        return run(url, qps, durationS, maxInFlight, 0);
    }

    /**
     * @param leadMs how long before the step's start the worker starts, ms (0: the step starts when the worker does);
     *               workers on AWS start {@code RICHTER_WORKER_LEAD_MS} early, and use a lead of 1 s or more to collect
     *               garbage before their first send. With a lead the step starts on a whole epoch second (up to 1 s
     *               later), as the run's steps do, so that each per-second window holds one second of due times
     */
    private static Trial run(String url, double qps, double durationS, int maxInFlight, long leadMs) {
        long stepStartEpochMs = leadMs > 0 ? (System.currentTimeMillis() + leadMs + 999) / 1000 * 1000 : 0;
        WorkerTask task = new WorkerTask("bench", "bench", "formal", 0, qps, (int) Math.ceil(durationS), 0, 1, stepStartEpochMs, 2000,
                maxInFlight, 10, Marker.DEFAULT, List.of(new Scenario("static", "nginx", url, 1,
                        List.of(new ReplayRequest("GET", "/", Map.of(), null)))));
        SendTimes sends = new SendTimes((int) Math.ceil(qps * durationS) + 1);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        AtomicLong peakHeap = new AtomicLong();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "heap-sampler");
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleAtFixedRate(() -> peakHeap.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max),
                0, 50, TimeUnit.MILLISECONDS);
        try (HttpTransport transport = transport()) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            LoadDriver driver = new LoadDriver(transport, sink, id -> false, CLOCK, System::currentTimeMillis,
                    LoadDriver.Config.DEFAULT, sends);
            long served0 = NGINX.requests();
            long cpu0 = processCpuNanos();
            // the steady window's edges, as {cpu, jit, served}; the step starts now (no lead) or at its epoch
            AtomicReferenceArray<long[]> edges = new AtomicReferenceArray<>(2);
            if (durationS >= 6 && NGINX.url().length() > 0) {
                long startInMs = Math.max(0, stepStartEpochMs - System.currentTimeMillis());
                long[] offsetsMs = {startInMs + Math.round(STEADY_SKIP_S * 1000), startInMs + Math.round((durationS - 1) * 1000)};
                for (int i = 0; i < 2; i++) {
                    int edge = i;
                    sampler.schedule(() -> {
                        edges.set(edge, new long[] {processCpuNanos(), jitCpuNanos(), NGINX.requests()});
                    }, offsetsMs[i], TimeUnit.MILLISECONDS);
                }
            }
            WorkerResult r = driver.run(task);
            long cpu = processCpuNanos() - cpu0;
            long served1 = NGINX.requests();
            // the second status read counts itself
            long served = served0 < 0 || served1 < 0 ? -1 : served1 - served0 - 1;
            long[] a = edges.get(0);
            long[] b = edges.get(1);
            Steady steady = a == null || b == null ? null : new Steady(b[0] - a[0], b[1] - a[1], b[2] - a[2] - 1);
            return new Trial(qps, durationS, r, sends, peakHeap.get(), cpu, served, steady, sink.windows());
        } finally {
            sampler.shutdownNow();
        }
    }

    /** The transport named by {@link #TRANSPORT}. */
    static HttpTransport transport() {
        NettyHttpTransport.Options netty = NettyHttpTransport.Options.DEFAULT
                .withSpinNanos(Long.getLong("bench.spinNanos", NettyHttpTransport.DEFAULT_SPIN_NANOS));
        return switch (TRANSPORT) {
            case "jdk" -> new JdkHttpTransport(2, Duration.ofSeconds(2));
            case "netty" -> new NettyHttpTransport(1, netty);
            case "h2c" -> new NettyHttpTransport(1, netty.withCleartext(NettyHttpTransport.Protocol.HTTP_2));
            case "h2" -> new NettyHttpTransport(1, netty.withTls(NettyHttpTransport.Protocol.HTTP_2));
            case "tls-h1" -> new NettyHttpTransport(1, netty.withTls(NettyHttpTransport.Protocol.HTTP_1_1));
            default -> throw new IllegalArgumentException("bench.transport: jdk|netty|h2c|h2|tls-h1, was " + TRANSPORT);
        };
    }

    /**
     * nginx's request counter ({@code stub_status}: the third number of its third line, requests since start, the
     * status request itself included) at {@code -Dbench.nginxStatus=<url>}; -1 without it.
     */
    private record NginxStatus(String url) {
        long requests() {
            if (url.isEmpty()) {
                return -1;
            }
            try (var in = URI.create(url).toURL().openStream()) {
                String[] lines = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).split("\n");
                return Long.parseLong(lines[2].trim().split("\\s+")[2]);
            } catch (java.io.IOException | RuntimeException e) {
                throw new IllegalStateException("nginx stub_status at " + url + ": " + e, e);
            }
        }
    }

    private static final NginxStatus NGINX = new NginxStatus(System.getProperty("bench.nginxStatus", ""));

    private static long processCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void print(String fmt, Object... args) {
        System.out.println(String.format(Locale.ROOT, fmt, args));
        System.out.flush();
    }

    private static void maxRate(String url) {
        run(url, 2000, 8, 1000); // warm-up: JIT, connections
        double lastPass = 0;
        double firstFail = 0;
        double passCpuUsPerRequest = 0;
        double qps = 1000;
        while (lastPass == 0 && qps >= 100) { // a busy host: find a passing rate first
            Trial t = trial(url, qps);
            if (t.sustained()) {
                lastPass = qps;
                passCpuUsPerRequest = t.cpuUsPerRequest();
            } else {
                firstFail = qps;
                qps = Math.round(qps / 2);
            }
        }
        for (qps = Math.round(lastPass * 1.25); lastPass > 0 && qps <= 200_000 && firstFail <= lastPass; qps = Math.round(qps * 1.25)) {
            Trial t = trial(url, qps);
            if (t.sustained()) {
                lastPass = qps;
                passCpuUsPerRequest = t.cpuUsPerRequest();
            } else {
                firstFail = qps;
            }
        }
        for (int i = 0; i < 3 && firstFail > lastPass && lastPass > 0; i++) {
            double mid = Math.round((lastPass + firstFail) / 2);
            Trial t = trial(url, mid);
            if (t.sustained()) {
                lastPass = mid;
                passCpuUsPerRequest = t.cpuUsPerRequest();
            } else {
                firstFail = mid;
            }
        }
        // CPU per request at the rate found, in a longer trial once the search has compiled the hot paths: the search's
        // 2 s trials also carry the JIT compilations a new rate sets off (a run of minutes amortizes them)
        Trial steady = lastPass > 0 ? run(url, lastPass, 10, 1000) : null;
        if (steady != null) {
            report("maxrate_steady", steady);
        }
        print("maxrate transport=%s max_rate_qps=%.0f cpu_us_per_req=%.2f trial_cpu_us_per_req=%.2f jit_pct=%.1f search_cpu_us_per_req=%.2f",
                TRANSPORT, lastPass, steady == null ? 0 : steady.steadyCpuUsPerRequest(),
                steady == null ? 0 : steady.cpuUsPerRequest(), steady == null || steady.steady() == null ? 0 : steady.steady().jitPct(),
                passCpuUsPerRequest);
    }

    /** One 2 s max-rate trial; a failed one is repeated once (a shared host has bursts of interference). */
    private static Trial trial(String url, double qps) {
        Trial t = run(url, qps, 2, 1000);
        report("maxrate_trial", t);
        if (!t.sustained()) {
            t = run(url, qps, 2, 1000);
            report("maxrate_retry", t);
        }
        return t;
    }

    private static void report(String label, Trial t) {
        var c = t.result().counters();
        double countErrPct = 100.0 * Math.abs(c.sent() - t.target()) / Math.max(1, t.target());
        double rateErrPct = t.qps() > 0 && t.sends().n >= 2 ? 100.0 * Math.abs(t.sendRateQps() - t.qps()) / t.qps() : 0;
        Histogram fromDue = HistogramCodec.decode(t.result().latencyFromIntendedHist());
        print("%s qps=%.0f duration_s=%.0f target=%d sent=%d ok=%d dropped=%d errors=%d late=%d achieved_qps=%.1f "
                        + "timeouts=%d connect_errors=%d http_errors=%s send_rate_qps=%.2f count_err_pct=%.3f rate_err_pct=%.3f p99_from_due_ms=%.2f peak_heap_mb=%.1f cpu_us_per_req=%.1f steady_cpu_us_per_req=%.1f jit_pct=%.1f sustained=%s",
                label, t.qps(), t.durationS(), t.target(), c.sent(), c.ok(), c.dropped(), c.errors(), c.late(),
                t.achievedQps(), c.timeouts(), c.connectErrors(), c.httpErrors().toString().replace(" ", ""), t.sendRateQps(), countErrPct, rateErrPct, fromDue.getValueAtPercentile(99) / 1000.0,
                t.peakHeapBytes() / 1048576.0, t.cpuUsPerRequest(), t.steadyCpuUsPerRequest(),
                t.steady() == null ? 0 : t.steady().jitPct(), t.sustained());
    }

    /** Diagnosis ({@code -Dbench.gaps=true}): where the late sends at {@code qps} fall, as gaps off 1 / qps by 0.3 ms or more. */
    private static void printGaps(long[] sendNanos, int n, double qps) {
        long intervalNanos = Math.round(1e9 / qps);
        // the JVM's uptime at the first send, to line the gaps up with -Xlog:gc,safepoint::uptimemillis or PrintCompilation
        long firstSendUptimeMs = ManagementFactory.getRuntimeMXBean().getUptime() - (System.nanoTime() - sendNanos[0]) / 1_000_000;
        StringBuilder b = new StringBuilder("lateness_gaps qps=" + Math.round(qps) + " (first send at JVM uptime "
                + firstSendUptimeMs + " ms; ms offset:us off)");
        for (int i = 1; i < n; i++) {
            long offUs = Math.abs(sendNanos[i] - sendNanos[i - 1] - intervalNanos) / 1000;
            if (offUs >= 300) {
                b.append(String.format(Locale.ROOT, " %d:%d", (sendNanos[i] - sendNanos[0]) / 1_000_000, offUs));
            }
        }
        print("%s", b);
    }

    /** Diagnosis ({@code -Dbench.gaps=true}): per second of the step, the sends later than {@code boundUs} and the latest. */
    private static void printLateBySecond(SendTimes sends, long boundUs) {
        StringBuilder b = new StringBuilder("late_by_second bound_us=" + boundUs + " (second:late/max_us)");
        long[] bounds = {50, 100, 150, 200, 300, 500, 1000, 2000};
        long[] over = new long[bounds.length];
        long late = 0;
        long max = 0;
        int second = 0;
        for (int i = 0; i < sends.n; i++) {
            int s = (int) ((sends.dueNanos[i] - sends.dueNanos[0]) / 1_000_000_000L);
            if (s != second) {
                b.append(String.format(Locale.ROOT, " %d:%d/%d", second, late, max));
                second = s;
                late = 0;
                max = 0;
            }
            long us = (sends.sendNanos[i] - sends.dueNanos[i]) / 1000;
            late += us > boundUs ? 1 : 0;
            max = Math.max(max, us);
            for (int k = 0; k < bounds.length; k++) {
                over[k] += us > bounds[k] ? 1 : 0;
            }
        }
        b.append(String.format(Locale.ROOT, " %d:%d/%d", second, late, max));
        b.append(" | later than (us:sends)");
        for (int k = 0; k < bounds.length; k++) {
            b.append(String.format(Locale.ROOT, " %d:%d", bounds[k], over[k]));
        }
        print("%s", b);
    }

    /** p50, p99, p99.9 and max of a send-lateness histogram (µs), one line. */
    private static void printLateness(String label, double qps, Histogram latenessUs) {
        print("%s qps=%.0f sends=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d", label, qps, latenessUs.getTotalCount(),
                latenessUs.getValueAtPercentile(50), latenessUs.getValueAtPercentile(99),
                latenessUs.getValueAtPercentile(99.9), latenessUs.getMaxValue());
    }

    /**
     * The floor this host allows: the same scheduler, clock and thread (the transport's send loop) with a no-op dispatch
     * (no HTTP), {@code qps} for {@code seconds}; its lateness is the wake-up time minus the due time, µs.
     */
    private static Histogram latenessFloor(String url, double qps, int seconds) {
        Histogram latenessUs = new Histogram(1, 60_000_000L, 3);
        ArrivalScheduler.Dispatch noOp = (i, due, now) -> latenessUs.recordValue(Math.max(0, (now - due) / 1000));
        ArrivalScheduler scheduler = new ArrivalScheduler(MonotonicClock.system());
        try (HttpTransport transport = transport()) {
            Optional<ArrivalScheduler.TimerLoop> loop = transport.prepare(new OutboundRequest(URI.create(url),
                    "GET", Map.of(), new byte[0], 2000)).sendLoop();
            long t0 = System.nanoTime() + 100_000_000L;
            if (loop.isPresent() && CLOCK instanceof MonotonicClock.SystemClock) {
                scheduler.runOn(loop.get(), ConstantArrivalSchedule.single(qps, seconds), t0, () -> false, noOp).join();
            } else {
                scheduler.run(ConstantArrivalSchedule.single(qps, seconds), t0, () -> false, noOp);
            }
        }
        return latenessUs;
    }

    private static void accuracy(String url) {
        run(url, 2000, 5, 10_000); // warm-up: JIT, connections
        double[][] plan = {{1, 10}, {10, 10}, {100, 5}, {1000, LATENESS_TRIAL_S}, {10000, LATENESS_TRIAL_S}};
        for (double[] p : plan) {
            Trial t = run(url, p[0], p[1], 10_000, ACCURACY_LEAD_MS);
            report("accuracy", t);
            if (p[0] == 1000 || p[0] == 10000) {
                printLateness("lateness", p[0], t.sends().latenessUs);
                printLateness("lateness_floor", p[0], latenessFloor(url, p[0], LATENESS_TRIAL_S));
            }
            if ((p[0] == 1000 || p[0] == 10000) && Boolean.getBoolean("bench.gaps")) {
                printGaps(t.sends().sendNanos, t.sends().n, p[0]);
            }
            if (p[0] == 10000) {
                print("heap qps=10000 peak_heap_used_mb=%.1f max_heap_mb=%.0f", t.peakHeapBytes() / 1048576.0,
                        Runtime.getRuntime().maxMemory() / 1048576.0);
            }
        }
    }

    /** The in-flight cap of a worker's task on AWS ({@code RunLayout}'s per-worker cap), requests. */
    static final int WORKER_MAX_IN_FLIGHT = 2_000;

    /**
     * Issue 45's per-worker goal: one worker at 10 000 QPS for {@code durationS} on this JVM's one CPU (the script pins
     * it with {@code taskset}, {@code -XX:ActiveProcessorCount=1}), started as on AWS (a 5 s lead, its warm-up and
     * collection, the step on a whole second), after a 5 s run that compiles the bench's own paths. Then the floor of
     * the same run: the same scheduler on the same send loop with a no-op dispatch, 10 000 QPS for as long as the worker ran
     * ({@link #latenessFloor}). One line, {@code worker_10k}: due, sent, dropped, ok and errors; per window (a second of
     * due times, {@link Window#sent}) the largest |sent − 10 000| / 10 000 in %; send lateness p50/p99 beside the floor's
     * p99 and {@code lateness_p99_vs_floor} = floor p99 / driver p99 (µs, each at least 1: ≥ 0.5 is within 2× the
     * floor); the in-flight cap and peak the result reports; CPU per request over the steady window.
     */
    private static void worker10k(String url, double durationS) {
        double qps = 10_000;
        run(url, 2000, 5, WORKER_MAX_IN_FLIGHT); // the bench's own paths compiled
        Trial t = run(url, qps, durationS, WORKER_MAX_IN_FLIGHT, ACCURACY_LEAD_MS);
        Histogram floor = latenessFloor(url, qps, (int) Math.ceil(durationS));
        if (Boolean.getBoolean("bench.gaps")) {
            printGaps(t.sends().sendNanos, t.sends().n, qps);
            printLateBySecond(t.sends(), 2 * Math.max(1, floor.getValueAtPercentile(99)));
        }
        java.util.Map<Long, Long> sentBySecond = new java.util.TreeMap<>();
        for (Window w : t.windows()) {
            sentBySecond.merge(w.epochSecond(), w.sent(), Long::sum);
        }
        long firstSecond = t.result().startedAtMs() / 1000;
        double maxWindowErrPct = 0;
        int windows = 0;
        for (long s = firstSecond; s < firstSecond + (long) durationS; s++) {
            long sent = sentBySecond.getOrDefault(s, 0L);
            maxWindowErrPct = Math.max(maxWindowErrPct, 100.0 * Math.abs(sent - qps) / qps);
            windows++;
        }
        var c = t.result().counters();
        long driverP99 = Math.max(1, t.sends().latenessUs.getValueAtPercentile(99));
        long floorP99 = Math.max(1, floor.getValueAtPercentile(99));
        print("worker_10k qps=%.0f duration_s=%.0f due=%d sent=%d dropped=%d ok=%d errors=%d windows=%d "
                        + "max_window_rate_err_pct=%.3f lateness_p50_us=%d lateness_p99_us=%d floor_p99_us=%d "
                        + "lateness_p99_vs_floor=%.3f in_flight_cap=%d peak_in_flight=%d cpu_us_per_req=%.2f",
                qps, durationS, c.due(), c.sent(), c.dropped(), c.ok(), c.errors(), windows, maxWindowErrPct,
                t.sends().latenessUs.getValueAtPercentile(50), driverP99, floorP99, (double) floorP99 / driverP99,
                t.result().inFlightCap(), t.result().peakInFlight(), t.steadyCpuUsPerRequest());
    }

    /**
     * async-profiler around the measured trial of {@code cost} (not the warm-up), when {@code -Dbench.profile=<file>}
     * names its output (collapsed stacks under their thread names, CPU samples every 100 µs, kernel frames included) and the JVM was started
     * with {@code -agentpath:<libasyncProfiler.so>}; reached through its Java API by reflection, so the bench needs it
     * only when profiling.
     */
    private record Profiler(String file) {
        static Profiler fromProperties() {
            return new Profiler(System.getProperty("bench.profile", ""));
        }

        void start() {
            execute("start,event=cpu,interval=100us,threads");
        }

        void stop() {
            execute("stop,collapsed,file=" + file);
        }

        private void execute(String command) {
            if (file.isEmpty()) {
                return;
            }
            try {
                Class<?> c = Class.forName("one.profiler.AsyncProfiler");
                Object p = c.getMethod("getInstance").invoke(null);
                c.getMethod("execute", String.class).invoke(p, command);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("bench.profile needs async-profiler's jar on the class path and its agent: " + e, e);
            }
        }
    }

    /** Entry point; see the class comment for arguments. */
    public static void main(String[] args) {
        if (args.length == 5 && args[1].equals("cost")) {
            int maxInFlight = Integer.parseInt(args[4]);
            run(args[0], Double.parseDouble(args[2]), 10, maxInFlight); // warm-up: JIT, connections
            Profiler profiler = Profiler.fromProperties();
            profiler.start();
            Trial t = run(args[0], Double.parseDouble(args[2]), Double.parseDouble(args[3]), maxInFlight);
            profiler.stop();
            report("cost", t);
            System.exit(0);
        }
        if (args.length != 2) {
            System.err.println("usage: LoadDriverBench <url> maxrate|accuracy|worker10k");
            System.exit(2);
        }
        switch (args[1]) {
            case "maxrate" -> maxRate(args[0]);
            case "accuracy" -> accuracy(args[0]);
            case "worker10k" -> worker10k(args[0], Double.parseDouble(System.getProperty("bench.worker10kSeconds", "20")));
            default -> {
                System.err.println("unknown mode " + args[1]);
                System.exit(2);
            }
        }
        System.exit(0);
    }
}
