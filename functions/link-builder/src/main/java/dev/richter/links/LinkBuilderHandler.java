package dev.richter.links;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.AwsClients;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.TableNames;
import dev.richter.links.graph.Dimension;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * Lambda entry point of link-builder: reads a {@link LinkRequest}, calls {@link LinkService},
 * returns its record as JSON. A malformed trace document surfaces as a
 * {@link dev.richter.links.trace.TraceFormatException} (message {@code file:line:column: reason});
 * a bad request as an IllegalArgumentException naming the field.
 */
public final class LinkBuilderHandler extends JsonStreamHandler<LinkRequest, Object> {
    private static final int DEFAULT_TREE_DEPTH = 10;

    private final LinkService service;

    /** Lambda constructor: container-wide DynamoDB client, table from {@code LINKS_TABLE}. */
    public LinkBuilderHandler() {
        this(new LinkService(AwsClients.dynamoDb(), TableNames.fromEnv().links()));
    }

    /** Test constructor. */
    public LinkBuilderHandler(LinkService service) {
        super(LinkRequest.class);
        this.service = service;
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
            case "annotate" -> {
                if (in.annotation() == null) {
                    throw new IllegalArgumentException("annotation is required");
                }
                yield service.annotate(in.teamId(), in.annotation());
            }
            default -> throw new IllegalArgumentException(
                    "action must be one of ingest, tree, upstream, entries, exits, compare, annotate; got '" + action + "'");
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
