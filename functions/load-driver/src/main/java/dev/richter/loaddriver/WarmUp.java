package dev.richter.loaddriver;

import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import java.io.IOException;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * A worker's warm-up before its step: its own scenarios (requests, headers, bodies, checks, marker) sent through its
 * own transport and the same {@link LoadDriver} code at {@value #RATE_QPS} QPS for about {@code warmUpMs}, to a
 * {@link LoopbackResponder} in the same JVM instead of the target. No request reaches a real service, and nothing is
 * stored: the results go to an in-memory sink and are dropped.
 *
 * <p>Why: the load driver's function has one vCPU (1 769 MB), so the JIT's compiler threads run on the core that sends.
 * Without a warm-up the send path is compiled during the step: {@code bench/load-driver.sh} saw the sends stop for
 * 2–11 ms while the JIT compiled the dispatch and a cold path opened a connection, and every stalled millisecond is a
 * late send (lateness p99 553–1 389 µs at 1 000 QPS against a floor of 135–186 µs). The function runs C1 only
 * (template.yaml), whose compilations are short; with C2 a 2 s warm-up at 5 000 QPS still left Netty's buffer methods
 * compiling 2 s into a 10 000 QPS step (p99.9 2.4–3.3 ms). {@value #RATE_QPS} QPS for 3 s is
 * 30 000 requests, about 1.2 s of CPU (client and responder) inside the worker's lead ({@code RICHTER_WORKER_LEAD_MS},
 * 10 s by default), which the worker is billed for anyway.
 */
final class WarmUp {
    private static final Logger LOG = LogManager.getLogger(WarmUp.class);
    /** Default warm-up length, milliseconds. */
    static final long DEFAULT_MS = 3000;
    /** The warm-up's rate, requests per second, whatever the worker's own. */
    static final double RATE_QPS = 10_000;

    private WarmUp() {}

    /**
     * Runs the warm-up of {@code task} for about {@code ms} (whole seconds, at least one); never throws: a warm-up that
     * cannot run (no loopback port, a scenario that does not prepare) is logged and skipped.
     *
     * @return the warm-up's result (its counters say how many requests it sent), or null when it did not run
     */
    static WorkerResult run(HttpTransport transport, WorkerTask task, long ms, MonotonicClock clock) {
        long startNs = System.nanoTime();
        try (LoopbackResponder responder = new LoopbackResponder()) {
            String base = responder.baseUri().toString();
            List<Scenario> scenarios = task.scenarios().stream()
                    .map(s -> new Scenario(s.name(), s.service(), base, s.weight(), s.requests(), s.data())).toList();
            WorkerTask warm = new WorkerTask(task.runId(), task.teamId(), "warm-up", task.stepIndex(), RATE_QPS,
                    (int) Math.max(1, Math.ceil(ms / 1000.0)), 0, 1, 0, task.requestTimeoutMs(), task.maxInFlight(),
                    task.latenessToleranceMs(), task.marker(), scenarios);
            LoadDriver.Config plain = new LoadDriver.Config(LoadDriver.Config.DEFAULT.abortPollIntervalMs(),
                    LoadDriver.Config.DEFAULT.windowFlushIntervalMs(), LoadDriver.Config.DEFAULT.maxParkSliceNanos(), 0,
                    false, 0);
            WorkerResult r = new LoadDriver(transport, new ResultSink.InMemory(), runId -> false, clock,
                    System::currentTimeMillis, plain, LoadDriver.SendObserver.NONE).run(warm);
            LOG.info("run {}: {} warmed up in {} ms: {} requests to a loopback responder ({} ok), none to the target",
                    task.runId(), task.workerName(), (System.nanoTime() - startNs) / 1_000_000, r.counters().sent(),
                    r.counters().ok());
            return r;
        } catch (IOException | RuntimeException e) {
            LOG.warn("run {}: {} sends without a warm-up: {}", task.runId(), task.workerName(), e.toString());
            return null;
        }
    }
}
