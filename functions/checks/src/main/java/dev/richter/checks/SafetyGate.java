package dev.richter.checks;

import dev.richter.checks.safety.DiscoveredDatastoresCheck;
import dev.richter.checks.safety.GuardedMiddlewareCheck;
import dev.richter.checks.safety.IsolationEnforcedCheck;
import dev.richter.checks.safety.LinkComparisonCheck;
import dev.richter.checks.safety.MarkerOnSpan;
import dev.richter.checks.safety.MarkerPropagationCheck;
import dev.richter.checks.safety.MessageQueueCheck;
import dev.richter.checks.safety.MiddlewareVersionCheck;
import dev.richter.checks.safety.MockedExitsCheck;
import dev.richter.checks.safety.MocksPresentCheck;
import dev.richter.checks.safety.QueueUsage;
import dev.richter.checks.safety.SafetyChecks;
import dev.richter.checks.safety.ShadowStorageCheck;
import dev.richter.checks.safety.ShadowWritesCheck;
import dev.richter.links.source.TraceRead;
import dev.richter.links.source.TraceSource;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.Exit;
import dev.richter.links.datastore.DiscoveredDatastore;
import dev.richter.links.graph.Dimension;
import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.TraceFormat;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Supplier;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The safety checks of a gate (run or nightly) wired to a team's {@link SafetyConfig}: which
 * {@link SafetyChecks} run, on what inputs, and how long the dynamic checks wait for spans. Plain Java:
 * the handler loads the configuration, services, exits and the run's window and passes them in.
 *
 * <p>Static: {@value dev.richter.checks.safety.MocksPresentCheck#NAME} always (over the configured and
 * the link-builder-annotated mock-required exits) and {@value dev.richter.checks.safety.DiscoveredDatastoresCheck#NAME}
 * (the datastores the link builder discovered against the declared shadows); shadow storage, message queues and
 * middleware versions when the configuration lists shadow targets, queues or middleware rules; one WARN
 * {@value #CONFIG_CHECK} when the team has no configuration.
 *
 * <p>Dynamic: the spans of the window from the team's trace source, then marker propagation, mocked exits,
 * isolation enforced, guarded middleware ({@value dev.richter.checks.safety.GuardedMiddlewareCheck#NAME}: an unguarded
 * client or store on marked traffic FAILs), test-vs-real link comparison (interface dimension) and shadow writes. Spans arrive late: the OpenTelemetry agent exports
 * every 500 ms, so the read starts at least {@link #FLUSH_ALLOWANCE_MS} after the window's end and is
 * repeated every {@link #POLL_INTERVAL_MS} until a marked span is seen, for at most
 * {@link #MAX_MARKED_WAIT_MS}. One {@value #TRACE_SOURCE_CHECK} result says what was read: WARN when no
 * trace source is configured (the trace checks are skipped: runs of teams without one keep passing), FAIL
 * when the source cannot be read, holds no marked span although marked requests were sent (the checks
 * could not verify the marked traffic, so the gate must not open), or has parts it could not read: those parts are
 * missing evidence, named by position, and the other checks still judge the spans that were read.
 */
public final class SafetyGate {
    /** Check name of the "team has no safety configuration" WARN. */
    public static final String CONFIG_CHECK = "safety-config";
    /** Check name of the trace source's result. */
    public static final String TRACE_SOURCE_CHECK = "trace-source";
    /** Minimum delay between the window's end and the first read, ms (agent export interval 500 ms, plus the write). */
    public static final long FLUSH_ALLOWANCE_MS = 1_500;
    /** How long to keep polling when no marked span has arrived yet, ms. */
    public static final long MAX_MARKED_WAIT_MS = 5_000;
    /** Interval between reads while waiting, ms. */
    public static final long POLL_INTERVAL_MS = 500;
    /** Spans starting this long before the window (clock skew) or after it (last responses) are included, ms. */
    public static final long WINDOW_SLACK_MS = 1_000;

    /** Sleeps; replaced in tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleepMs(long ms) throws InterruptedException;
    }

    private static final org.apache.logging.log4j.Logger LOG = org.apache.logging.log4j.LogManager.getLogger(SafetyGate.class);

    private final LongSupplier nowMs;
    private final Sleeper sleeper;
    private final java.util.function.BiConsumer<String, List<Span>> spansRead;

    /** Production wiring: wall clock, {@link Thread#sleep}. */
    public SafetyGate() {
        this(System::currentTimeMillis, Thread::sleep);
    }

    public SafetyGate(LongSupplier nowMs, Sleeper sleeper) {
        this(nowMs, sleeper, (team, spans) -> { });
    }

    private SafetyGate(LongSupplier nowMs, Sleeper sleeper, java.util.function.BiConsumer<String, List<Span>> spansRead) {
        this.nowMs = nowMs;
        this.sleeper = sleeper;
        this.spansRead = spansRead;
    }

    /**
     * This gate, also handing the spans each dynamic check read to {@code spansRead} (team, spans), e.g. to record the
     * datastores they show ({@code LinkService.recordDatastores}). A listener that throws costs its own work, not the
     * checks: it is logged.
     */
    public SafetyGate withSpansRead(java.util.function.BiConsumer<String, List<Span>> spansRead) {
        return new SafetyGate(nowMs, sleeper, spansRead);
    }

    /**
     * Static safety checks.
     *
     * @param teamId the team
     * @param config its configuration, {@link SafetyConfig#NONE} when it has none
     * @param configured false when the team never stored one (adds the {@value #CONFIG_CHECK} WARN)
     * @param services the team's registered services (the scope)
     * @param exits mock-required exits ({@link #mockRequiredExits})
     * @param discovered the datastores the link builder discovered, by service ({@code LinkService.datastores})
     */
    public static List<CheckResult> staticChecks(String teamId, SafetyConfig config, boolean configured,
                                                 List<RegisteredService> services, List<Exit> exits,
                                                 Map<String, List<DiscoveredDatastore>> discovered) {
        List<CheckResult> out = new ArrayList<>();
        if (!configured) {
            out.add(new CheckResult(CONFIG_CHECK, Outcome.WARN, teamId, "team " + teamId
                    + " has no safety configuration (PUT /safety): no trace source, exits, mocks or shadow targets to check"));
        }
        out.addAll(guarded(MocksPresentCheck.NAME, () -> SafetyChecks.mocksPresent(exits, config.mocks())));
        out.addAll(guarded(DiscoveredDatastoresCheck.NAME, () -> SafetyChecks.discoveredDatastores(services, discovered)));
        if (!config.shadowTargets().targets().isEmpty()) {
            out.addAll(guarded(ShadowStorageCheck.NAME, () -> SafetyChecks.shadowStorage(services, config.shadowTargets())));
        }
        if (!config.queues().isEmpty()) {
            out.addAll(guarded(MessageQueueCheck.NAME, () -> SafetyChecks.messageQueues(QueueUsage.fromRegistry(services), config.queues())));
        }
        if (!config.middlewareRules().isEmpty()) {
            Map<String, byte[]> sboms = new LinkedHashMap<>();
            services.forEach(s -> sboms.put(s.name(), config.sbomsByService().getOrDefault(s.name(), new byte[0])));
            out.addAll(guarded(MiddlewareVersionCheck.NAME, () -> SafetyChecks.middlewareVersions(sboms, config.middlewareRules())));
        }
        return out;
    }

    /** The configured mock-required exits plus the link builder's exits annotated mock required, by called node. */
    public static List<Exit> mockRequiredExits(SafetyConfig config, List<Exit> annotated) {
        Map<String, Exit> out = new LinkedHashMap<>();
        for (Exit e : config.exits()) {
            out.putIfAbsent(e.toService() + "|" + e.toNode(), e);
        }
        for (Exit e : annotated) {
            if (e.mockRequired()) {
                out.putIfAbsent(e.toService() + "|" + e.toNode(), e);
            }
        }
        return new ArrayList<>(out.values());
    }

    /**
     * Dynamic (trace-based) safety checks of one window of marked traffic.
     *
     * @param teamId the team
     * @param config its configuration
     * @param source the opened trace source, or null when {@code config} has none or it could not be opened
     * @param sourceProblem why {@code source} is null ({@code ""} when no trace source is configured)
     * @param services the team's registered services: their names are the scope, their datastores the shadows
     * @param exits mock-required exits
     * @param fromEpochMs first worker's start, epoch ms
     * @param toEpochMs last worker's end, epoch ms
     * @param markedRequestsSent marked requests the load driver sent in the window
     * @param subject what the window was, e.g. {@code pre-test} (evidence)
     */
    public List<CheckResult> dynamicChecks(String teamId, SafetyConfig config, TraceSource source, String sourceProblem,
                                           List<RegisteredService> services, List<Exit> exits, long fromEpochMs,
                                           long toEpochMs, long markedRequestsSent, String subject) {
        return dynamicChecks(teamId, config, source, sourceProblem, services, exits, fromEpochMs, toEpochMs,
                markedRequestsSent, subject, "");
    }

    /**
     * As {@link #dynamicChecks(String, SafetyConfig, TraceSource, String, List, List, long, long, long, String)}, for
     * the window of run {@code runId}: a service that rejected this run's own marker fails {@code isolation-enforced}.
     */
    public List<CheckResult> dynamicChecks(String teamId, SafetyConfig config, TraceSource source, String sourceProblem,
                                           List<RegisteredService> services, List<Exit> exits, long fromEpochMs,
                                           long toEpochMs, long markedRequestsSent, String subject, String runId) {
        Set<String> scope = new LinkedHashSet<>();
        services.forEach(s -> scope.add(s.name()));
        List<CheckResult> out = new ArrayList<>();
        if (source == null) {
            out.add(sourceProblem.isEmpty()
                    ? new CheckResult(TRACE_SOURCE_CHECK, Outcome.WARN, teamId, "no trace source configured for team "
                            + teamId + " (PUT /safety traceSource): marker propagation, mocked exits, link comparison and"
                            + " shadow writes not checked")
                    : new CheckResult(TRACE_SOURCE_CHECK, Outcome.WARN, teamId, config.traceSource().describe() + ": "
                            + sourceProblem + "; trace checks not run"));
            return out;
        }
        long from = fromEpochMs - WINDOW_SLACK_MS;
        long to = toEpochMs + WINDOW_SLACK_MS;
        List<Span> spans;
        TraceRead read;
        int marked;
        int reads = 0;
        try {
            sleepUntil(toEpochMs + FLUSH_ALLOWANCE_MS);
            long giveUpAt = nowMs.getAsLong() + MAX_MARKED_WAIT_MS;
            while (true) {
                read = source.read(teamId, from, to);
                spans = read.spans();
                reads++;
                marked = (int) spans.stream().filter(s -> MarkerOnSpan.carries(s, Marker.DEFAULT)).count();
                if (marked > 0 || markedRequestsSent == 0 || nowMs.getAsLong() >= giveUpAt) {
                    break;
                }
                sleeper.sleepMs(POLL_INTERVAL_MS);
            }
        } catch (UncheckedIOException e) {
            out.add(new CheckResult(TRACE_SOURCE_CHECK, Outcome.FAIL, subject, "cannot read " + source.describe() + ": "
                    + e.getMessage()));
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.add(new CheckResult(TRACE_SOURCE_CHECK, Outcome.FAIL, subject, "interrupted while reading " + source.describe()));
            return out;
        }
        String readText = spans.size() + " spans (" + marked + " marked) from " + source.describe() + " started in "
                + Instant.ofEpochMilli(from) + " .. " + Instant.ofEpochMilli(to) + " (" + reads + " reads)"
                + (read.whole() ? "" : "; " + unreadableText(read));
        if (marked == 0 && markedRequestsSent > 0) {
            out.add(new CheckResult(TRACE_SOURCE_CHECK, Outcome.FAIL, subject, readText + ": " + markedRequestsSent
                    + " marked requests were sent but no span carries the marker; the marked traffic cannot be verified"));
            return out;
        }
        out.add(read.whole()
                ? new CheckResult(TRACE_SOURCE_CHECK, Outcome.PASS, subject, readText)
                : new CheckResult(TRACE_SOURCE_CHECK, Outcome.FAIL, subject, readText + ": what those parts held is missing"
                        + " evidence, so isolation is not proven for it; the checks below judge the spans that were read"));
        try {
            spansRead.accept(teamId, spans);
        } catch (RuntimeException e) {
            dev.richter.common.AccessDenied.rethrowIfDenied(e);   // a grant the deployment lacks is a defect to see
            LOG.error("the datastores of {}'s {} spans were not recorded: {}", teamId, subject, e.toString());
        }
        ParsedTraces traces = new ParsedTraces(source.describe(), TraceFormat.OTLP_JSON, spans, Map.of(), Map.of(), List.of());
        out.addAll(guarded(MarkerPropagationCheck.NAME, () -> SafetyChecks.markerPropagation(traces, scope, Marker.DEFAULT)));
        out.addAll(guarded(MockedExitsCheck.NAME, () -> SafetyChecks.mockedExits(traces, scope, exits, Marker.DEFAULT, config.exitAddresses())));
        List<Span> batch = spans;
        out.addAll(guarded(IsolationEnforcedCheck.NAME, () -> List.of(IsolationEnforcedCheck.check(batch, scope, Marker.DEFAULT, runId))));
        out.addAll(guarded(GuardedMiddlewareCheck.NAME, () -> GuardedMiddlewareCheck.check(batch, scope, Marker.DEFAULT)));
        out.addAll(guarded(LinkComparisonCheck.NAME, () -> SafetyChecks.linkComparison(traces, Marker.DEFAULT, Dimension.INTERFACE, exits)));
        out.addAll(guarded(ShadowWritesCheck.NAME, () -> SafetyChecks.shadowWrites(traces, scope, services, Marker.DEFAULT)));
        return out;
    }

    /** {@code n parts of the source could not be read: <position: reason>; ...}. */
    static String unreadableText(TraceRead read) {
        int parts = read.unreadableParts();
        return parts + (parts == 1 ? " part" : " parts") + " of the source could not be read: "
                + String.join("; ", read.unreadable());
    }

    /**
     * The results of one check, or one FAIL naming the check and its defect when it throws: a check that cannot
     * read its input proves nothing, and the gate goes on to the other checks.
     */
    static List<CheckResult> guarded(String check, Supplier<List<CheckResult>> run) {
        try {
            return run.get();
        } catch (RuntimeException e) {
            return List.of(new CheckResult(check, Outcome.FAIL, "check", "the check could not complete, so isolation"
                    + " is not proven: " + e));
        }
    }

    private void sleepUntil(long epochMs) throws InterruptedException {
        long wait = epochMs - nowMs.getAsLong();
        if (wait > 0) {
            sleeper.sleepMs(wait);
        }
    }
}
