package dev.richter.links;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.RunScoped;
import dev.richter.links.store.NodeAnnotation;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The link-builder Lambda's event, one record per {@code action} (the field Jackson types it by); other fields are
 * ignored. Example events: {@code events/link-builder/*.json}; the hourly rebuild's is in {@code template.yaml}.
 * A required field that is absent fails with an {@link IllegalArgumentException} naming it when the action reads it.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "action")
@JsonSubTypes({
        @JsonSubTypes.Type(value = LinkRequest.IngestRequest.class, name = "ingest"),
        @JsonSubTypes.Type(value = LinkRequest.RebuildRequest.class, name = "rebuild"),
        @JsonSubTypes.Type(value = LinkRequest.TreeRequest.class, name = "tree"),
        @JsonSubTypes.Type(value = LinkRequest.UpstreamRequest.class, name = "upstream"),
        @JsonSubTypes.Type(value = LinkRequest.EntriesRequest.class, name = "entries"),
        @JsonSubTypes.Type(value = LinkRequest.ExitsRequest.class, name = "exits"),
        @JsonSubTypes.Type(value = LinkRequest.CompareRequest.class, name = "compare"),
        @JsonSubTypes.Type(value = LinkRequest.AnnotateRequest.class, name = "annotate")})
public sealed interface LinkRequest extends RunScoped {
    /** Depth of a tree or upstream walk when the event gives none ({@link LinkService#DEFAULT_TREE_DEPTH}). */
    int DEFAULT_TREE_DEPTH = LinkService.DEFAULT_TREE_DEPTH;

    /**
     * {@code ingest}: one trace document into the team's links ({@link LinkService#ingest}).
     *
     * @param fileName     the document's name in error positions; {@code document} when absent
     * @param document     the document as inline JSON (any JSON trace document), or null
     * @param documentText the document's raw text (keeps line/column positions exact, and carries CSV), or null
     */
    record IngestRequest(String teamId, String fileName, JsonNode document, String documentText) implements LinkRequest {
        /** The name errors cite. */
        public String name() {
            return fileName == null || fileName.isBlank() ? "document" : fileName;
        }

        /**
         * The document's bytes: {@code documentText} as UTF-8, else {@code document} re-serialized compactly (positions
         * in errors then refer to the compact form).
         *
         * @throws IllegalArgumentException when the event has neither
         */
        public byte[] bytes() {
            if (documentText != null) {
                return documentText.getBytes(StandardCharsets.UTF_8);
            }
            if (document == null || document.isNull()) {
                throw new IllegalArgumentException("document or documentText is required for ingest");
            }
            return Json.write(document).getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * {@code rebuild}: the periodic rebuild from the teams' trace sources ({@link LinkRebuild}).
     *
     * @param teamId          the one team to rebuild; every team with a trace source when absent or blank
     * @param lookbackMinutes how far back spans are read, minutes; {@link LinkRebuild#DEFAULT_LOOKBACK_MINUTES} when
     *                        absent
     */
    record RebuildRequest(String teamId, Integer lookbackMinutes) implements LinkRequest {}

    /** A walk of the graph from one node: {@code dimension} ({@code service}|{@code interface}), node, maxDepth. */
    sealed interface NodeWalk extends LinkRequest permits TreeRequest, UpstreamRequest {
        String dimension();

        String node();

        Integer maxDepth();

        /** The start node; throws {@link IllegalArgumentException} when absent. */
        default String startNode() {
            if (node() == null || node().isBlank()) {
                throw new IllegalArgumentException("node is required");
            }
            return node();
        }

        /** {@code maxDepth}, {@link #DEFAULT_TREE_DEPTH} when absent; throws {@link IllegalArgumentException} below 1. */
        default int depth() {
            int d = maxDepth() == null ? DEFAULT_TREE_DEPTH : maxDepth();
            if (d < 1) {
                throw new IllegalArgumentException("maxDepth must be >= 1, got " + d);
            }
            return d;
        }
    }

    /** {@code tree}: the dependency tree below a node ({@link LinkService#tree}). */
    record TreeRequest(String teamId, String dimension, String node, Integer maxDepth) implements NodeWalk {}

    /** {@code upstream}: the callers above a node ({@link LinkService#upstream}). */
    record UpstreamRequest(String teamId, String dimension, String node, Integer maxDepth) implements NodeWalk {}

    /** {@code entries}: the entry nodes of a dimension ({@link LinkService#entries}). */
    record EntriesRequest(String teamId, String dimension) implements LinkRequest {}

    /** {@code exits}: the edges leaving {@code scopeServices} ({@link LinkService#exits}); none when absent. */
    record ExitsRequest(String teamId, List<String> scopeServices) implements LinkRequest {
        public ExitsRequest {
            scopeServices = scopeServices == null ? List.of() : List.copyOf(scopeServices);
        }
    }

    /** {@code compare}: two link sets, e.g. real against marked ({@link LinkService#compare}); both ids required. */
    record CompareRequest(String baselineTeamId, String candidateTeamId, String dimension) implements LinkRequest {
        /** {@code baselineTeamId}; throws {@link IllegalArgumentException} when absent. */
        public String baseline() {
            return required(baselineTeamId, "baselineTeamId");
        }

        /** {@code candidateTeamId}; throws {@link IllegalArgumentException} when absent. */
        public String candidate() {
            return required(candidateTeamId, "candidateTeamId");
        }
    }

    /** {@code annotate}: a note on a node ({@link LinkService#annotate}); {@code annotation} required. */
    record AnnotateRequest(String teamId, NodeAnnotation annotation) implements LinkRequest {
        /** The annotation; throws {@link IllegalArgumentException} when absent. */
        public NodeAnnotation required() {
            if (annotation == null) {
                throw new IllegalArgumentException("annotation is required");
            }
            return annotation;
        }
    }

    private static String required(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
        return value;
    }
}
