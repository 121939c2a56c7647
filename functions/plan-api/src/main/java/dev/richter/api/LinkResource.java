package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Repositories;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.Exit;
import dev.richter.links.LinkService;
import dev.richter.links.LinkTree;
import dev.richter.links.graph.Dimension;
import dev.richter.links.store.NodeAnnotation;
import dev.richter.runs.InputProblem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code /links}: link governance over the team's call graph (DESIGN.md §1 step 2), read from the links table that
 * {@code POST /traces} and the link builder's hourly rebuild write ({@link LinkService}, in-process as for ingest):
 * the entries, the tree below a node, the exits below an entry and their "mock required" mark. Every read and write
 * is in the caller's team's partition of the links table, so another team's node is a 404, never a 403.
 *
 * <p>Nodes, edges and exits are the library's records as they are ({@link LinkTree.TreeNode},
 * {@link dev.richter.links.store.StoredEdge}, {@link Exit}), their fields named as in openapi.json's {@code LinkTree}
 * and {@code LinkExit}. Query parameters are checked before anything is read: a bad one is a 400 {@code ValidationFailed} naming
 * {@code query.<name>} and the rule, every bad parameter of the request in one answer.
 */
final class LinkResource {
    /** The deepest {@code maxDepth} of {@code GET /links/tree}: closure rows deeper than this are not stored. */
    static final int MAX_TREE_DEPTH = LinkService.DEFAULT_MAX_CLOSURE_DEPTH;

    private final LinkService links;
    private final Repositories repositories;
    private final AuditLog audit;
    private final InputValidator validator;

    LinkResource(LinkService links, Repositories repositories, AuditLog audit, InputValidator validator) {
        this.links = links;
        this.repositories = repositories;
        this.audit = audit;
        this.validator = validator;
    }

    /**
     * {@code GET /links/entries[?dimension=service|interface]}: 200 {@code {dimension, entries: [node, ...], samples:
     * {node: [path, ...]}}}, the nodes where the team's traced links start (root SERVER or CONSUMER spans), sorted;
     * empty before any trace. {@code samples} holds, per interface entry, up to five raw request paths it was called
     * with ({@code /api/customer/owners/1} for {@code gateway GET /api/customer/owners/{ownerId}}).
     * {@code dimension} defaults to {@code interface} ({@code order POST /orders}); {@code service} gives service
     * names.
     *
     * @throws ApiException 400 at {@code query.dimension} for another value
     */
    ApiResponse entries(ApiRequest req) {
        List<InputProblem> problems = new ArrayList<>();
        Dimension dimension = dimension(req, problems);
        failOn(problems);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("dimension", dimension.wireName());
        body.put("entries", links.entries(req.teamId(), dimension));
        body.put("samples", links.entrySamples(req.teamId(), dimension));
        return ApiResponse.json(200, body);
    }

    /**
     * {@code GET /links/tree?node=<node>[&dimension=service|interface][&maxDepth=N]}: 200 {@code {dimension, root,
     * maxDepth, rootCycleDepth, nodes: [{node, depth, parent, pathCount, callCount, lastSeenEpochMs}], edges: [{from,
     * to, fromService, toService, callCount, lastSeenEpochMs}]}}: every node {@code node} calls, directly or not, at
     * most {@code maxDepth} edges away (default {@value LinkService#DEFAULT_TREE_DEPTH}, at most
     * {@value #MAX_TREE_DEPTH}) with its shortest depth and the node before it on a shortest path ({@code parent}),
     * by depth then name; and every direct edge between two of those nodes (root included) with the calls observed
     * on it over every ingest, by caller then callee. A leaf of the graph answers no nodes and no edges.
     *
     * @throws ApiException 400 at {@code query.node} (missing), {@code query.dimension}, {@code query.maxDepth};
     *                      404 when the team's graph of the dimension has no such node (another team's included)
     */
    ApiResponse tree(ApiRequest req) {
        List<InputProblem> problems = new ArrayList<>();
        String node = required(req, "node", problems);
        Dimension dimension = dimension(req, problems);
        int maxDepth = maxDepth(req, problems);
        failOn(problems);
        LinkTree tree = links.tree(req.teamId(), dimension, node, maxDepth);
        if (tree.nodes().isEmpty() && tree.rootCycleDepth() == 0 && !links.hasNode(req.teamId(), dimension, node)) {
            throw notInLinks(dimension, node);
        }
        Set<String> members = new HashSet<>();
        members.add(node);
        tree.nodes().forEach(n -> members.add(n.node()));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("dimension", dimension.wireName());
        body.put("root", tree.root());
        body.put("maxDepth", tree.maxDepth());
        body.put("rootCycleDepth", tree.rootCycleDepth());
        body.put("nodes", tree.nodes());
        body.put("edges", links.edgesAmong(req.teamId(), dimension, members));
        return ApiResponse.json(200, body);
    }

    /**
     * {@code GET /links/exits?entry=<node>}: 200 {@code {entry, dimension, scope, exits: [Exit]}}: the calls that
     * leave the test scope below {@code entry} ({@link LinkService#exitsBelow}), each with its calls and its "mock
     * required" mark ({@code mockRequired}, {@code annotatedBy}), ordered by calling then called node. The scope is
     * the team's registered services ({@code POST /services}), listed in {@code scope}: with none registered nothing
     * is in scope, so no call leaves it and {@code exits} is empty. The entry's dimension is found, not given: an
     * interface node ({@code order POST /orders}) if the team's interface graph has it, else a service node.
     *
     * @throws ApiException 400 at {@code query.entry} when missing; 404 when neither graph of the team has it
     */
    ApiResponse exits(ApiRequest req) {
        List<InputProblem> problems = new ArrayList<>();
        String entry = required(req, "entry", problems);
        failOn(problems);
        Dimension dimension = links.hasNode(req.teamId(), Dimension.INTERFACE, entry) ? Dimension.INTERFACE
                : links.hasNode(req.teamId(), Dimension.SERVICE, entry) ? Dimension.SERVICE : null;
        if (dimension == null) {
            throw new ApiException(404, "NotFound", "entry '" + entry + "' not found in the team's links (GET /links/entries"
                    + " lists them; POST /traces builds them)");
        }
        Set<String> scope = scope(req.teamId());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("entry", entry);
        body.put("dimension", dimension.wireName());
        body.put("scope", List.copyOf(scope));
        body.put("exits", links.exitsBelow(req.teamId(), dimension, entry, scope));
        return ApiResponse.json(200, body);
    }

    /**
     * {@code PUT /links/exits/mock} {@code {from, to, mockRequired}} ({@code ExitMockMark} in openapi.json): sets
     * ({@code true}) or clears ({@code false}) the "mock required" mark of the exit {@code from -> to} (an exit's
     * {@code fromNode} and {@code toNode} as {@code GET /links/exits} answers them). The mark is kept on the called
     * node ({@link LinkService#markMockRequired}), so it holds for every exit into {@code to}, survives re-ingests,
     * and is what the {@code mock-present} and {@code mocked-exit} checks read. Audited ({@code MarkExitMock}, target
     * {@code from -> to}) with the node's annotation before and after. 200 with the exit as {@code GET /links/exits}
     * now answers it.
     *
     * @throws ApiException 400 {@code InvalidJson} / {@code ValidationFailed} with {@code $.from}, {@code $.to},
     *                      {@code $.mockRequired} paths; 404 when no exit of the team's scope goes from {@code from}
     *                      to {@code to} (nothing is written then)
     */
    ApiResponse markMock(ApiRequest req) {
        JsonNode doc = validator.parse("ExitMockMark", req.body());
        String from = doc.get("from").asText();
        String to = doc.get("to").asText();
        boolean mockRequired = doc.get("mockRequired").asBoolean();
        Optional<Exit> found = links.exits(req.teamId(), scope(req.teamId())).stream()
                .filter(e -> e.fromNode().equals(from) && e.toNode().equals(to)).findFirst();
        if (found.isEmpty()) {
            throw new ApiException(404, "NotFound", "exit '" + from + " -> " + to + "' not found among the team's exits"
                    + " (GET /links/exits?entry=<node> lists them)");
        }
        NodeAnnotation before = links.annotation(req.teamId(), to).orElse(null);
        NodeAnnotation after = links.markMockRequired(req.teamId(), to, mockRequired, req.caller());
        audit.record(req.teamId(), req.caller(), "MarkExitMock", from + " -> " + to, before, after);
        Exit e = found.get();
        return ApiResponse.json(200, new Exit(e.fromService(), e.fromNode(), e.toService(), e.toNode(), e.callCount(),
                e.lastSeenEpochMs(), after.mockRequired(), after.coreDependency(), after.annotatedBy()));
    }

    /** The team's registered service names, by name (the registry's order): the test scope. */
    private Set<String> scope(String teamId) {
        Set<String> out = new LinkedHashSet<>();
        for (RegisteredService s : repositories.listServices(teamId)) {
            out.add(s.name());
        }
        return out;
    }

    private static ApiException notInLinks(Dimension dimension, String node) {
        return new ApiException(404, "NotFound", "node '" + node + "' not found in the team's " + dimension.wireName()
                + " links (GET /links/entries?dimension=" + dimension.wireName() + " lists the entries)");
    }

    private static String required(ApiRequest req, String name, List<InputProblem> problems) {
        String v = req.query().get(name);
        if (v == null || v.isBlank()) {
            problems.add(new InputProblem("query." + name, "required: a node of the team's links, e.g. 'order POST /orders'"
                    + " (GET /links/entries lists the entries)"));
            return "";
        }
        return v;
    }

    private static Dimension dimension(ApiRequest req, List<InputProblem> problems) {
        String v = req.query().get("dimension");
        if (v == null || v.isEmpty()) {
            return Dimension.INTERFACE;
        }
        try {
            return Dimension.of(v);
        } catch (IllegalArgumentException e) {
            problems.add(new InputProblem("query.dimension", "must be service or interface, got '" + v + "'"));
            return Dimension.INTERFACE;
        }
    }

    private static int maxDepth(ApiRequest req, List<InputProblem> problems) {
        String v = req.query().get("maxDepth");
        if (v == null || v.isEmpty()) {
            return LinkService.DEFAULT_TREE_DEPTH;
        }
        try {
            int d = Integer.parseInt(v);
            if (d >= 1 && d <= MAX_TREE_DEPTH) {
                return d;
            }
        } catch (NumberFormatException e) {
            // below
        }
        problems.add(new InputProblem("query.maxDepth", "must be an integer from 1 to " + MAX_TREE_DEPTH
                + " (edges; closure rows deeper than " + MAX_TREE_DEPTH + " are not stored), got '" + v + "'"));
        return LinkService.DEFAULT_TREE_DEPTH;
    }

    private static void failOn(List<InputProblem> problems) {
        if (!problems.isEmpty()) {
            throw ApiException.validationFailed(problems);
        }
    }
}
