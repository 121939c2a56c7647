package dev.richter.checks;

import dev.richter.common.AccessDenied;
import dev.richter.checks.safety.GuardedMiddlewareCheck;
import dev.richter.checks.safety.ShadowPreCheckEvidence;
import dev.richter.checks.safety.TargetOwnedCheck;
import dev.richter.common.Repositories;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Counters;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.Exit;
import dev.richter.links.LinkService;
import dev.richter.links.source.TraceRead;
import dev.richter.links.source.TraceSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Loads what {@link SafetyGate} needs for one team from the registry and the links table, and runs it:
 * used by the run gates ({@link ChecksHandler}) and the nightly check ({@link NightlyCheck}).
 */
final class SafetyInputs {
    private final Repositories repositories;
    private final LinkService links;
    private final SafetyGate gate;

    SafetyInputs(Repositories repositories, LinkService links, SafetyGate gate) {
        this.repositories = repositories;
        this.links = links;
        this.gate = gate;
    }

    /** A team's configuration as stored; {@code configured} false when it has none. */
    record Loaded(SafetyConfig config, boolean configured, String problem) {}

    Loaded config(String teamId) {
        List<String> docs = repositories.latestRegistryDocs(teamId, SafetyConfig.ITEM_KEY, 1);
        if (docs.isEmpty()) {
            return new Loaded(SafetyConfig.NONE, false, "");
        }
        try {
            return new Loaded(SafetyConfig.parse(docs.get(0)), true, "");
        } catch (IllegalArgumentException e) {
            return new Loaded(SafetyConfig.NONE, true, e.getMessage());
        }
    }

    /** Static safety checks of the team's scope. */
    List<CheckResult> staticChecks(String teamId, List<RegisteredService> services) {
        Loaded loaded = config(teamId);
        List<CheckResult> out = new ArrayList<>();
        if (!loaded.problem().isEmpty()) {
            out.add(new CheckResult(SafetyGate.CONFIG_CHECK, CheckResult.Outcome.FAIL, teamId,
                    "stored safety configuration is unreadable: " + loaded.problem()));
        }
        out.addAll(SafetyGate.staticChecks(teamId, loaded.config(), loaded.configured(), services,
                exits(teamId, loaded.config(), scope(services)), links.datastores(teamId)));
        out.addAll(SafetyGate.guarded(GuardedMiddlewareCheck.NAME,
                () -> GuardedMiddlewareCheck.checkRecorded(links.middleware(teamId), scope(services))));
        out.addAll(shadowPreChecks(teamId, loaded, services));
        return out;
    }

    /** How far back the static gate looks for the agent extension's shadow pre-checks, ms. */
    static final long PRECHECK_LOOKBACK_MS = 24 * 3_600_000L;

    /**
     * {@link ShadowPreCheckEvidence} over the last {@link #PRECHECK_LOOKBACK_MS} of the team's trace source, when a
     * scope service declares a shadow table and a trace source is configured; a source that cannot be read is a WARN.
     */
    private List<CheckResult> shadowPreChecks(String teamId, Loaded loaded, List<RegisteredService> services) {
        boolean tables = services.stream().anyMatch(s -> s.datastores().stream().anyMatch(d -> d.kind().equals("table")));
        if (!tables || !loaded.problem().isEmpty() || !loaded.config().hasTraceSource()) {
            return List.of();
        }
        long now = System.currentTimeMillis();
        try {
            TraceSource source = loaded.config().traceSource().open();
            TraceRead read = source.read(teamId, now - PRECHECK_LOOKBACK_MS, now);
            List<CheckResult> out = new ArrayList<>(ShadowPreCheckEvidence.check(read.spans(), scope(services),
                    "the last 24 h of " + source.describe()));
            if (!read.whole()) {
                out.add(new CheckResult(ShadowPreCheckEvidence.NAME, CheckResult.Outcome.WARN, "shadow tables",
                        "the pre-checks were read from part of the last 24 h of " + source.describe() + ": "
                                + SafetyGate.unreadableText(read)));
            }
            return out;
        } catch (RuntimeException e) {
            AccessDenied.rethrowIfDenied(e);   // a trace source the role may not read fails the checks, not a WARN
            return List.of(new CheckResult(ShadowPreCheckEvidence.NAME, CheckResult.Outcome.WARN, "shadow tables",
                    "cannot read the trace source for the shadow pre-checks: " + e.getMessage()));
        }
    }

    /**
     * Trace-based checks of the window the {@code results} cover (first start to last end).
     *
     * @param results the stage's worker results; nothing is checked when empty (the worker checks fail then)
     * @param subject e.g. {@code pre-test}, {@code nightly replay}
     */
    List<CheckResult> dynamicChecks(String teamId, List<RegisteredService> services, List<WorkerResult> results,
                                    String subject) {
        if (results.isEmpty()) {
            return List.of();
        }
        Loaded loaded = config(teamId);
        SafetyConfig config = loaded.config();
        TraceSource source = null;
        String problem = loaded.problem();
        if (problem.isEmpty() && config.hasTraceSource()) {
            try {
                source = config.traceSource().open();
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                problem = e.getMessage();
            }
        }
        long from = results.stream().mapToLong(WorkerResult::startedAtMs).min().orElse(0);
        long to = results.stream().mapToLong(WorkerResult::endedAtMs).max().orElse(0);
        long marked = results.stream().map(WorkerResult::counters).reduce(Counters.ZERO, Counters::plus).marked();
        Set<String> scope = scope(services);
        List<CheckResult> out = new ArrayList<>(gate.dynamicChecks(teamId, config, source, problem, services,
                exits(teamId, config, scope), from, to, marked, subject, results.get(0).runId()));
        out.addAll(targetOwned(teamId, services));
        return out;
    }

    private static final java.net.http.HttpClient OWNERSHIP_HTTP = java.net.http.HttpClient.newBuilder()
            .connectTimeout(java.time.Duration.ofSeconds(2)).followRedirects(java.net.http.HttpClient.Redirect.NEVER).build();

    /** {@link TargetOwnedCheck} of the run's services, on the team's newest marker key and the deployment's networks. */
    private List<CheckResult> targetOwned(String teamId, List<RegisteredService> services) {
        List<String> keys = repositories.markerKeys(teamId);
        return TargetOwnedCheck.check(teamId, services,
                // a team with no key has registered no service since keys exist: no token can match
                name -> keys.isEmpty() ? "\u0000no key" : dev.richter.sdk.MarkerProof.ownershipToken(keys.get(0), teamId, name),
                name -> repositories.isolationLoadedAtMs(teamId, name),
                TargetOwnedCheck.fetcher(OWNERSHIP_HTTP, dev.richter.common.net.AllowedNetworks.fromEnv()),
                System.currentTimeMillis());
    }

    private List<Exit> exits(String teamId, SafetyConfig config, Set<String> scope) {
        return SafetyGate.mockRequiredExits(config, links.exits(teamId, scope));
    }

    private static Set<String> scope(List<RegisteredService> services) {
        Set<String> out = new LinkedHashSet<>();
        services.forEach(s -> out.add(s.name()));
        return out;
    }
}
