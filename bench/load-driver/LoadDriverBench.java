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
 * first send)) reached ≥ 99 % of the target; {@code LoadDriverBench <url> cost <qps>
 * <durationS> <maxInFlight>} — one measured trial after a 10 s warm-up; or
 * {@code LoadDriverBench <url> accuracy} — rate accuracy at 1, 10, 100, 1000, 10000 QPS, send-side
 * inter-arrival jitter at 1000 QPS (|gap − 1 ms|, µs histogram; and the floor: the same scheduler, on the same
 * thread, with a no-op dispatch) and peak heap used at 10000 QPS.
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

    /** The accuracy trials start their workers as AWS does, ahead of the step (the leg's WaitForLaunch lead), ms. */
    private static final long ACCURACY_LEAD_MS = 1500;

    private LoadDriverBench() {}

    /** Per-run send-time capture (scheduler thread only). */
    private static final class SendTimes implements LoadDriver.SendObserver {
        final long[] sendNanos;
        int n;

        SendTimes(int capacity) {
            sendNanos = new long[capacity];
        }

        @Override
        public void onSend(long index, long dueNanos, long sendNanosValue) {
            if (n < sendNanos.length) {
                sendNanos[n++] = sendNanosValue;
            }
        }
    }

    private record Trial(double qps, double durationS, WorkerResult result, SendTimes sends, long peakHeapBytes,
                         long cpuNanos) {
        /** Process CPU time per sent request, microseconds (all threads: scheduler, I/O, completions, GC, JIT). */
        double cpuUsPerRequest() {
            return result.counters().sent() == 0 ? 0 : cpuNanos / 1000.0 / result.counters().sent();
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

    private static Trial run(String url, double qps, double durationS, int maxInFlight) {
        return run(url, qps, durationS, maxInFlight, 0);
    }

    /**
     * @param leadMs how long before the step's start the worker starts, ms (0: the step starts when the worker does);
     *               workers on AWS start {@code RICHTER_WORKER_LEAD_MS} early, and use a lead of 1 s or more to collect
     *               garbage before their first send
     */
    private static Trial run(String url, double qps, double durationS, int maxInFlight, long leadMs) {
        long stepStartEpochMs = leadMs > 0 ? System.currentTimeMillis() + leadMs : 0;
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
            LoadDriver driver = new LoadDriver(transport, new ResultSink.InMemory(), id -> false, CLOCK,
                    System::currentTimeMillis, LoadDriver.Config.DEFAULT, sends);
            long cpu0 = processCpuNanos();
            WorkerResult r = driver.run(task);
            return new Trial(qps, durationS, r, sends, peakHeap.get(), processCpuNanos() - cpu0);
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
        print("maxrate transport=%s max_rate_qps=%.0f cpu_us_per_req=%.1f", TRANSPORT, lastPass, passCpuUsPerRequest);
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
                        + "timeouts=%d connect_errors=%d http_errors=%s send_rate_qps=%.2f count_err_pct=%.3f rate_err_pct=%.3f p99_from_due_ms=%.2f peak_heap_mb=%.1f cpu_us_per_req=%.1f sustained=%s",
                label, t.qps(), t.durationS(), t.target(), c.sent(), c.ok(), c.dropped(), c.errors(), c.late(),
                t.achievedQps(), c.timeouts(), c.connectErrors(), c.httpErrors().toString().replace(" ", ""), t.sendRateQps(), countErrPct, rateErrPct, fromDue.getValueAtPercentile(99) / 1000.0,
                t.peakHeapBytes() / 1048576.0, t.cpuUsPerRequest(), t.sustained());
    }

    private static void printJitter(String label, long[] sendNanos, int n) {
        Histogram jitterUs = new Histogram(1, 60_000_000L, 3);
        for (int i = 1; i < n; i++) {
            long gapNanos = sendNanos[i] - sendNanos[i - 1];
            jitterUs.recordValue(Math.max(1, Math.abs(gapNanos - 1_000_000L) / 1000));
        }
        print("%s qps=1000 gaps=%d p50_us=%d p99_us=%d max_us=%d", label, jitterUs.getTotalCount(),
                jitterUs.getValueAtPercentile(50), jitterUs.getValueAtPercentile(99), jitterUs.getMaxValue());
        if (Boolean.getBoolean("bench.gaps")) { // diagnosis: where the late wake-ups fall (offset from the first send)
            StringBuilder b = new StringBuilder(label + "_late_gaps (ms offset:us off)");
            for (int i = 1; i < n; i++) {
                long offUs = Math.abs(sendNanos[i] - sendNanos[i - 1] - 1_000_000L) / 1000;
                if (offUs >= 300) {
                    b.append(String.format(" %d:%d", (sendNanos[i] - sendNanos[0]) / 1_000_000, offUs));
                }
            }
            print("%s", b);
        }
    }

    private static void accuracy(String url) {
        run(url, 2000, 5, 10_000); // warm-up: JIT, connections
        double[][] plan = {{1, 10}, {10, 10}, {100, 5}, {1000, 5}, {10000, 5}};
        for (double[] p : plan) {
            Trial t = run(url, p[0], p[1], 10_000, ACCURACY_LEAD_MS);
            report("accuracy", t);
            if (p[0] == 1000) {
                printJitter("jitter", t.sends().sendNanos, t.sends().n);
                // the floor this host allows: the same scheduler, clock and thread with a no-op dispatch (no HTTP)
                long[] wokeNanos = new long[5000];
                int[] n = {0};
                ArrivalScheduler.Dispatch noOp = (i, due, now) -> wokeNanos[n[0]++] = now;
                ArrivalScheduler scheduler = new ArrivalScheduler(MonotonicClock.system());
                try (HttpTransport transport = transport()) {
                    Optional<ArrivalScheduler.TimerLoop> loop = transport.prepare(new OutboundRequest(URI.create(url),
                            "GET", Map.of(), new byte[0], 2000)).sendLoop();
                    if (loop.isPresent() && CLOCK instanceof MonotonicClock.SystemClock) {
                        scheduler.runOn(loop.get(), ConstantArrivalSchedule.single(1000, 5), System.nanoTime(),
                                () -> false, noOp).join();
                    } else {
                        scheduler.run(ConstantArrivalSchedule.single(1000, 5), System.nanoTime(), () -> false, noOp);
                    }
                }
                printJitter("jitter_floor", wokeNanos, n[0]);
            }
            if (p[0] == 10000) {
                print("heap qps=10000 peak_heap_used_mb=%.1f max_heap_mb=%.0f", t.peakHeapBytes() / 1048576.0,
                        Runtime.getRuntime().maxMemory() / 1048576.0);
            }
        }
    }

    /** Entry point; see the class comment for arguments. */
    public static void main(String[] args) {
        if (args.length == 5 && args[1].equals("cost")) {
            int maxInFlight = Integer.parseInt(args[4]);
            run(args[0], Double.parseDouble(args[2]), 10, maxInFlight); // warm-up: JIT, connections
            report("cost", run(args[0], Double.parseDouble(args[2]), Double.parseDouble(args[3]), maxInFlight));
            System.exit(0);
        }
        if (args.length != 2) {
            System.err.println("usage: LoadDriverBench <url> maxrate|accuracy");
            System.exit(2);
        }
        switch (args[1]) {
            case "maxrate" -> maxRate(args[0]);
            case "accuracy" -> accuracy(args[0]);
            default -> {
                System.err.println("unknown mode " + args[1]);
                System.exit(2);
            }
        }
        System.exit(0);
    }
}
