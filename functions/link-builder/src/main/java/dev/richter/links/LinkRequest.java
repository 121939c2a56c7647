package dev.richter.links;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.links.store.NodeAnnotation;
import java.util.List;

/**
 * The link-builder Lambda's event. Which fields matter depends on {@code action}:
 * <ul>
 *   <li>{@code ingest}: teamId, fileName, and the document inline — {@code document} (any JSON
 *       trace document) or {@code documentText} (the raw text: keeps line/column positions exact,
 *       and carries CSV);</li>
 *   <li>{@code tree}, {@code upstream}: teamId, dimension ({@code service}|{@code interface}),
 *       node, maxDepth (default 10);</li>
 *   <li>{@code entries}: teamId, dimension;</li>
 *   <li>{@code exits}: teamId, scopeServices;</li>
 *   <li>{@code compare}: baselineTeamId, candidateTeamId, dimension;</li>
 *   <li>{@code annotate}: teamId, annotation.</li>
 * </ul>
 * Example events: {@code events/link-builder/*.json}.
 */
public record LinkRequest(
        String action,
        String teamId,
        String fileName,
        JsonNode document,
        String documentText,
        String dimension,
        String node,
        Integer maxDepth,
        List<String> scopeServices,
        String baselineTeamId,
        String candidateTeamId,
        NodeAnnotation annotation,
        Integer lookbackMinutes) {}
