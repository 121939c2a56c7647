package dev.richter.probe;

import dev.richter.common.net.AllowedNetworks;

import dev.richter.common.model.HealthReport;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Runs one probe round: every target concurrently (one virtual thread each), each bounded by its
 * own deadline, and at most {@code maxConcurrentPerEndpoint} probes in flight per endpoint
 * ({@code host:port}) across rounds of this container (a resilience4j bulkhead; a full bulkhead
 * means earlier probes are still stuck past their deadline, reported as {@code BULKHEAD_FULL}).
 *
 * <p>The round returns no later than the largest target deadline plus {@code graceMs}: a probe that
 * has not answered by its deadline plus the grace is reported as {@code TIMEOUT} and interrupted.
 * The round's CloudWatch business metrics go out as {@link CloudWatchMetricQuery#batches}: one {@code GetMetricData}
 * call per region, period and timeout for up to {@value CloudWatchMetricQuery#MAX_QUERIES} of them, one bulkhead
 * permit per call; each query still gets its own report.
 * Both {@code TIMEOUT} and {@code BULKHEAD_FULL} are module evidence (the endpoint does not answer in
 * time), except for the team's own evidence sources, which are not the module (missing evidence); every other report's
 * evidence is decided by {@link Probes}.
 * Source of the policy: DESIGN.md §6 (deadline shorter than the caller's, bulkhead per dependency).
 */
public final class Prober implements AutoCloseable {
    /** Default in-flight probes per endpoint. */
    public static final int DEFAULT_MAX_CONCURRENT_PER_ENDPOINT = 4;
    /** Default slack past a target's own deadline before the round gives up on it, milliseconds. */
    public static final long DEFAULT_GRACE_MS = 250;

    private final Probes probes;
    private final BulkheadRegistry bulkheads;
    private final long graceMs;
    private final LongSupplier clockMs;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final AllowedNetworks networks;

    /**
     * Defaults: {@value #DEFAULT_MAX_CONCURRENT_PER_ENDPOINT} per endpoint, {@value #DEFAULT_GRACE_MS} ms grace, the
     * deployment's networks ({@link AllowedNetworks#fromEnv}).
     */
    public Prober(Probes probes) {
        this(probes, DEFAULT_MAX_CONCURRENT_PER_ENDPOINT, DEFAULT_GRACE_MS, System::currentTimeMillis);
    }

    /** As {@link #Prober(Probes, int, long, LongSupplier, AllowedNetworks)} with {@link AllowedNetworks#fromEnv}. */
    public Prober(Probes probes, int maxConcurrentPerEndpoint, long graceMs, LongSupplier clockMs) {
        this(probes, maxConcurrentPerEndpoint, graceMs, clockMs, AllowedNetworks.fromEnv());
    }

    /**
     * @param probes                   the probe implementations
     * @param maxConcurrentPerEndpoint bulkhead size per {@code host:port}
     * @param graceMs                  slack past a target's deadline, milliseconds
     * @param clockMs                  epoch-millisecond clock for {@code observedAtMs}
     * @param networks                 where a probe may go: each target's host is checked at each probe, on what it
     *                                 resolves to then ({@link AllowedNetworks#refusal}); a refused one is not called
     */
    public Prober(Probes probes, int maxConcurrentPerEndpoint, long graceMs, LongSupplier clockMs,
                  AllowedNetworks networks) {
        this.networks = networks;
        this.probes = probes;
        this.bulkheads = BulkheadRegistry.of(BulkheadConfig.custom()
                .maxConcurrentCalls(maxConcurrentPerEndpoint).maxWaitDuration(Duration.ZERO).build());
        this.graceMs = graceMs;
        this.clockMs = clockMs;
    }

    /** Probes every target of the round; never throws for a target's failure. */
    public ProbeRoundResult run(ProbeRound round) {
        long observedAtMs = clockMs.getAsLong();
        long startNs = System.nanoTime();
        List<Future<HealthReport>> futures = new ArrayList<>(round.targets().size());
        Map<ProbeTarget, Future<HealthReport>> batched = cloudWatchBatches(round.targets());
        for (ProbeTarget t : round.targets()) {
            futures.add(t instanceof ProbeTarget.CloudWatchQuery ? batched.get(t) : executor.submit(() -> guarded(t)));
        }
        List<HealthReport> reports = new ArrayList<>();
        for (int i = 0; i < futures.size(); i++) {
            ProbeTarget t = round.targets().get(i);
            long deadlineNs = startNs + TimeUnit.MILLISECONDS.toNanos(t.timeoutMs() + graceMs);
            Future<HealthReport> f = futures.get(i);
            try {
                reports.add(f.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                f.cancel(true);
                reports.add(new HealthReport(t.module(), t.kind(), false, "TIMEOUT", List.of(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs),
                        "no answer within " + t.timeoutMs() + " ms", Map.of(), observedAtMs, evidenceOf(t), List.of()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                f.cancel(true);
                reports.add(Probes.failure(t, e, startNs, observedAtMs));
            } catch (ExecutionException e) {
                reports.add(Probes.failure(t, e.getCause(), startNs, observedAtMs));
            }
        }
        return new ProbeRoundResult(round.runId(), observedAtMs, reports);
    }

    /**
     * One task per {@link CloudWatchMetricQuery#batches batch} of the round's CloudWatch queries, and each query's
     * report as a view of its batch's task (identity-keyed: two equal targets are two queries).
     */
    private Map<ProbeTarget, Future<HealthReport>> cloudWatchBatches(List<ProbeTarget> targets) {
        List<ProbeTarget.CloudWatchQuery> queries = new ArrayList<>();
        for (ProbeTarget t : targets) {
            if (t instanceof ProbeTarget.CloudWatchQuery q) queries.add(q);
        }
        Map<ProbeTarget, Future<HealthReport>> byTarget = new java.util.IdentityHashMap<>();
        for (List<ProbeTarget.CloudWatchQuery> batch : CloudWatchMetricQuery.batches(queries)) {
            CompletableFuture<List<HealthReport>> call = CompletableFuture.supplyAsync(() -> guardedBatch(batch), executor);
            for (int i = 0; i < batch.size(); i++) {
                int index = i;
                byTarget.put(batch.get(i), call.thenApply(reports -> reports.get(index)));
            }
        }
        return byTarget;
    }

    private List<HealthReport> guardedBatch(List<ProbeTarget.CloudWatchQuery> batch) {
        Bulkhead b = bulkheads.bulkhead(batch.getFirst().endpointKey());
        if (!b.tryAcquirePermission()) {
            return batch.stream().map(this::bulkheadFull).toList();
        }
        try {
            return probes.cloudWatchMetrics(batch);
        } finally {
            b.onComplete();
        }
    }

    private HealthReport guarded(ProbeTarget t) {
        Optional<String> refused = host(t).flatMap(networks::refusal);
        if (refused.isPresent()) {
            return new HealthReport(t.module(), t.kind(), false, NETWORK_REFUSED, List.of(), 0,
                    "not called: " + refused.get() + " (AllowedNetworks)", Map.of(), clockMs.getAsLong(), evidenceOf(t),
                    List.of());
        }
        Bulkhead b = bulkheads.bulkhead(t.endpointKey());
        if (!b.tryAcquirePermission()) {
            return bulkheadFull(t);
        }
        try {
            return probes.probe(t);
        } finally {
            b.onComplete();
        }
    }

    /**
     * Status of a probe not made because its target's host resolves to an address the deployment's networks refuse
     * (link-local, metadata, loopback on AWS, or outside {@code AllowedNetworks}): module evidence for a service, so a
     * service that moved out of the allowed networks fails its probes and its run stops; monitoring evidence for a
     * team's own source.
     */
    public static final String NETWORK_REFUSED = "NETWORK_REFUSED";

    /** The host a probe of {@code t} connects to; empty for CloudWatch (the AWS SDK's own regional endpoint). */
    static Optional<String> host(ProbeTarget t) {
        return switch (t) {
            case ProbeTarget.Http h -> urlHost(h.url());
            case ProbeTarget.Tcp x -> Optional.of(x.host());
            case ProbeTarget.Grpc g -> Optional.of(g.host());
            case ProbeTarget.Prometheus p -> urlHost(p.url());
            case ProbeTarget.PromQuery q -> urlHost(q.url());
            case ProbeTarget.Alerts a -> urlHost(a.url());
            case ProbeTarget.CloudWatchQuery c -> Optional.empty();
        };
    }

    private static Optional<String> urlHost(String url) {
        try {
            return Optional.ofNullable(java.net.URI.create(url).getHost());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The report of a probe not made because its endpoint's bulkhead is full. */
    private HealthReport bulkheadFull(ProbeTarget t) {
        return new HealthReport(t.module(), t.kind(), false, "BULKHEAD_FULL", List.of(), 0,
                "too many probes still in flight to " + t.endpointKey(), Map.of(), clockMs.getAsLong(), evidenceOf(t), List.of());
    }

    /** Module evidence, or monitoring evidence for the team's own sources ({@link ProbeTarget#teamEvidence()}). */
    private static HealthReport.Evidence evidenceOf(ProbeTarget t) {
        return t.teamEvidence() ? HealthReport.Evidence.MONITORING : HealthReport.Evidence.MODULE;
    }

    @Override
    public void close() {
        executor.shutdownNow();
        probes.close();
    }
}
