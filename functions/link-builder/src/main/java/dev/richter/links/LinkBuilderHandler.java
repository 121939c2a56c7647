package dev.richter.links;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.links.graph.Dimension;
import dev.richter.links.source.TraceSourceSpec;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lambda entry point of link-builder: reads a {@link LinkRequest}, calls {@link LinkService},
 * returns its record as JSON. A malformed trace document surfaces as a
 * {@link dev.richter.links.trace.TraceFormatException} (message {@code file:line:column: reason});
 * a bad request as an IllegalArgumentException naming the field.
 */
public final class LinkBuilderHandler extends JsonStreamHandler<LinkRequest, Object> {
    private static final int DEFAULT_TREE_DEPTH = 10;

    /** Window of the scheduled rebuild when the event gives none, minutes (the schedule's period). */
    public static final int DEFAULT_LOOKBACK_MINUTES = 60;

    private final LinkService service;
    private final Repositories repositories;

    /** Lambda constructor: container-wide DynamoDB client, tables from the environment. */
    public LinkBuilderHandler() {
        this(new LinkService(AwsClients.dynamoDb(), TableNames.fromEnv().links()), Repositories.fromEnv());
    }

    /** Test constructor. */
    public LinkBuilderHandler(LinkService service, Repositories repositories) {
        super(LinkRequest.class);
        this.service = service;
        this.repositories = repositories;
    }

    /**
     * The periodic rebuild (EventBridge Scheduler, {@code {"action": "rebuild"}}): for the given team,
     * or every team with a trace source in its safety configuration ({@code safety#config} →
     * {@code traceSource}), ingests the spans of the last {@code lookbackMinutes}. A team whose source
     * fails is reported with its error; the others still rebuild.
     */
    private Map<String, Object> rebuild(LinkRequest in) {
        long now = System.currentTimeMillis();
        long from = now - 60_000L * (in.lookbackMinutes() == null ? DEFAULT_LOOKBACK_MINUTES : in.lookbackMinutes());
        List<String> teams = in.teamId() == null || in.teamId().isBlank()
                ? List.copyOf(repositories.teamsWithServices()) : List.of(in.teamId());
        Map<String, Object> results = new TreeMap<>();
        for (String team : teams) {
            List<String> docs = repositories.latestRegistryDocs(team, "safety#config", 1);
            JsonNode spec = docs.isEmpty() ? null : Json.read(docs.get(0),
                    JsonNode.class).get("traceSource");
            if (spec == null || spec.isNull()) {
                continue;
            }
            try {
                TraceSourceSpec source = Json.MAPPER.convertValue(spec, TraceSourceSpec.class);
                results.put(team, service.rebuild(team, source.open(), from, now));
            } catch (RuntimeException e) {
                results.put(team, Map.of("error", String.valueOf(e.getMessage())));
            }
        }
        return Map.of("fromEpochMs", from, "toEpochMs", now, "teams", results);
    }

    @Override
    protected Object handle(LinkRequest in, Context context) throws Exception {
        String action = in.action() == null ? "" : in.action();
        return switch (action) {
            case "ingest" -> service.ingest(in.teamId(), name(in), document(in));
            case "tree" -> service.tree(in.teamId(), Dimension.of(in.dimension()), required(in.node(), "node"), depth(in));
            case "upstream" ->
                    service.upstream(in.teamId(), Dimension.of(in.dimension()), required(in.node(), "node"), depth(in));
            case "entries" -> Map.of("entries", service.entries(in.teamId(), Dimension.of(in.dimension())));
            case "exits" -> Map.of("exits", service.exits(in.teamId(),
                    new HashSet<>(in.scopeServices() == null ? List.of() : in.scopeServices())));
            case "compare" -> service.compare(required(in.baselineTeamId(), "baselineTeamId"),
                    required(in.candidateTeamId(), "candidateTeamId"), Dimension.of(in.dimension()));
            case "rebuild" -> rebuild(in);
            case "annotate" -> {
                if (in.annotation() == null) {
                    throw new IllegalArgumentException("annotation is required");
                }
                yield service.annotate(in.teamId(), in.annotation());
            }
            default -> throw new IllegalArgumentException(
                    "action must be one of ingest, rebuild, tree, upstream, entries, exits, compare, annotate; got '" + action + "'");
        };
    }

    private static String name(LinkRequest in) {
        return in.fileName() == null || in.fileName().isBlank() ? "document" : in.fileName();
    }

    private static byte[] document(LinkRequest in) {
        if (in.documentText() != null) {
            return in.documentText().getBytes(StandardCharsets.UTF_8);
        }
        if (in.document() == null || in.document().isNull()) {
            throw new IllegalArgumentException("document or documentText is required for ingest");
        }
        // re-serialized inline JSON: positions in errors refer to the compact form
        return Json.write(in.document()).getBytes(StandardCharsets.UTF_8);
    }

    private static int depth(LinkRequest in) {
        int d = in.maxDepth() == null ? DEFAULT_TREE_DEPTH : in.maxDepth();
        if (d < 1) {
            throw new IllegalArgumentException("maxDepth must be >= 1, got " + d);
        }
        return d;
    }

    private static String required(String v, String field) {
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
        return v;
    }
}
