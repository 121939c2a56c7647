package dev.richter.links;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.AwsClients;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.links.graph.Dimension;
import java.util.HashSet;
import java.util.Map;

/**
 * Lambda entry point of link-builder: decodes a {@link LinkRequest}, calls {@link LinkService} (or
 * {@link LinkRebuild} for {@code rebuild}), returns its record as JSON ({@code entries} and {@code exits} as
 * {@code {"entries": [...]}}, {@code {"exits": [...]}}). A malformed trace document surfaces as a
 * {@link dev.richter.links.trace.TraceFormatException} (message {@code file:line:column: reason}); a bad request,
 * or an unknown or missing action, as an IllegalArgumentException naming the field or the action.
 */
public final class LinkBuilderHandler extends JsonStreamHandler<LinkRequest, Object> {
    private final LinkService service;
    private final LinkRebuild rebuild;

    /** Lambda constructor: container-wide DynamoDB client, tables from the environment. */
    public LinkBuilderHandler() {
        this(new LinkService(AwsClients.dynamoDb(), TableNames.fromEnv().links()), Repositories.fromEnv());
    }

    /** Test constructor: the service, and the registry the rebuild reads trace sources from. */
    public LinkBuilderHandler(LinkService service, Repositories repositories) {
        super(LinkRequest.class);
        this.service = service;
        this.rebuild = new LinkRebuild(service, repositories, System::currentTimeMillis);
    }

    @Override
    protected Object handle(LinkRequest request, Context context) {
        return switch (request) {
            case LinkRequest.IngestRequest r -> service.ingest(r.teamId(), r.name(), r.bytes());
            case LinkRequest.RebuildRequest r -> rebuild.rebuild(r.teamId(), r.lookbackMinutes());
            case LinkRequest.TreeRequest r ->
                    service.tree(r.teamId(), Dimension.of(r.dimension()), r.startNode(), r.depth());
            case LinkRequest.UpstreamRequest r ->
                    service.upstream(r.teamId(), Dimension.of(r.dimension()), r.startNode(), r.depth());
            case LinkRequest.EntriesRequest r -> Map.of("entries", service.entries(r.teamId(), Dimension.of(r.dimension())));
            case LinkRequest.ExitsRequest r -> Map.of("exits", service.exits(r.teamId(), new HashSet<>(r.scopeServices())));
            case LinkRequest.CompareRequest r -> service.compare(r.baseline(), r.candidate(), Dimension.of(r.dimension()));
            case LinkRequest.AnnotateRequest r -> service.annotate(r.teamId(), r.required());
        };
    }
}
