package dev.richter.links;

import dev.richter.common.AccessDenied;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.links.source.TraceSourceSpec;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The periodic rebuild of links (EventBridge Scheduler, {@code {"action": "rebuild"}}): for one team, or every team
 * with a trace source in its safety configuration ({@code safety#config} → {@code traceSource}), ingests the spans of
 * the last {@code lookbackMinutes} through {@link LinkService#rebuild}. A team whose source fails is reported with its
 * error; the others still rebuild.
 */
public final class LinkRebuild {
    /** Window of the rebuild when the event gives none, minutes (the schedule's period). */
    public static final int DEFAULT_LOOKBACK_MINUTES = 60;

    private final LinkService links;
    private final Repositories repositories;
    private final LongSupplier clockMs;

    /**
     * @param links        where spans are ingested
     * @param repositories the registry (teams, their {@code safety#config})
     * @param clockMs      the current time, epoch ms
     */
    public LinkRebuild(LinkService links, Repositories repositories, LongSupplier clockMs) {
        this.links = links;
        this.repositories = repositories;
        this.clockMs = clockMs;
    }

    /**
     * Rebuilds the links of {@code teamId} (every team with services when null or blank) from the last
     * {@code lookbackMinutes} ({@link #DEFAULT_LOOKBACK_MINUTES} when null).
     *
     * @return {@code {fromEpochMs, toEpochMs, teams: {teamId: IngestResult | {error}}}}; teams without a trace source
     *         are left out
     */
    public Map<String, Object> rebuild(String teamId, Integer lookbackMinutes) {
        long now = clockMs.getAsLong();
        long from = now - 60_000L * (lookbackMinutes == null ? DEFAULT_LOOKBACK_MINUTES : lookbackMinutes);
        List<String> teams = teamId == null || teamId.isBlank()
                ? List.copyOf(repositories.teamsWithServices()) : List.of(teamId);
        Map<String, Object> results = new TreeMap<>();
        for (String team : teams) {
            List<String> docs = repositories.latestRegistryDocs(team, Repositories.SAFETY_CONFIG_KEY, 1);
            JsonNode spec = docs.isEmpty() ? null : Json.read(docs.get(0), JsonNode.class).get("traceSource");
            if (spec == null || spec.isNull()) {
                continue;
            }
            try {
                TraceSourceSpec source = Json.MAPPER.convertValue(spec, TraceSourceSpec.class);
                results.put(team, links.rebuild(team, source.open(), from, now));
            } catch (RuntimeException e) {
                AccessDenied.rethrowIfDenied(e);   // the role's defect is every team's: the rebuild fails
                results.put(team, Map.of("error", String.valueOf(e.getMessage())));
            }
        }
        return Map.of("fromEpochMs", from, "toEpochMs", now, "teams", results);
    }
}
