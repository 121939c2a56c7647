package dev.richter.links;

import dev.richter.links.datastore.DatastoreDiscovery;
import dev.richter.links.datastore.DiscoveredDatastore;
import dev.richter.links.middleware.MiddlewareInventory;
import dev.richter.links.middleware.MiddlewareUse;
import dev.richter.common.model.Marker;
import dev.richter.links.graph.ClosurePair;
import dev.richter.links.graph.ClosureTable;
import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.Edge;
import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.EdgeInsertion;
import dev.richter.links.graph.EdgeStats;
import dev.richter.links.graph.ExtractedLinks;
import dev.richter.links.graph.InMemoryClosureView;
import dev.richter.links.store.LinkRepository;
import dev.richter.links.store.NodeAnnotation;
import dev.richter.links.store.StoredEdge;
import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.source.TraceRead;
import dev.richter.links.source.TraceSource;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.TraceDocuments;
import dev.richter.links.trace.TraceFormat;
import dev.richter.links.trace.TraceFormatException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Link governance: builds each team's call graph from traces, keeps its closure table
 * current, and answers tree, upstream, exits and comparison questions. plan-api calls it
 * in-process; {@link LinkBuilderHandler} exposes it as a Lambda.
 *
 * <p>A team scope is any string: plan-api uses the team id for real traffic and e.g.
 * {@code teamA#marked} for load-test traffic, then {@link #compare}s the two.
 */
public final class LinkService {
    /** Default closure depth cap: call chains deeper than this are not stored. */
    public static final int DEFAULT_MAX_CLOSURE_DEPTH = 32;
    /** Depth of a tree or upstream walk, edges, when the caller asks for none (the Lambda's event, the HTTP API). */
    public static final int DEFAULT_TREE_DEPTH = 10;
    /**
     * Discovered datastores kept per service (one item of at most a few hundred bytes each, names ≤ {@value
     * DatastoreDiscovery#MAX_NAME_CHARS} characters): beyond it new ones are dropped, counted in {@link
     * IngestResult#datastoresDropped()}, while the ones stored keep their last-seen times current.
     */
    public static final int MAX_DATASTORES_PER_SERVICE = 100;
    /**
     * Middleware uses kept per service (one item of a few hundred bytes each; the table {@link
     * dev.richter.links.middleware.GuardedMiddleware} has 42 rows): beyond it new ones are dropped, while the ones
     * stored keep their counts and last-seen times current.
     */
    public static final int MAX_MIDDLEWARE_PER_SERVICE = 100;

    private final LinkRepository repository;
    private final int maxClosureDepth;
    private final Clock clock;

    /** Production wiring: the links table through {@code ddb}, default depth cap, system clock. */
    public LinkService(DynamoDbClient ddb, String linksTable) {
        this(new LinkRepository(ddb, linksTable), DEFAULT_MAX_CLOSURE_DEPTH, Clock.systemUTC());
    }

    /**
     * @param repository the links table
     * @param maxClosureDepth closure rows deeper than this are not stored (≥ 1)
     * @param clock source of last-seen times
     */
    public LinkService(LinkRepository repository, int maxClosureDepth, Clock clock) {
        this.repository = repository;
        this.maxClosureDepth = maxClosureDepth;
        this.clock = clock;
    }

    /**
     * Ingests one trace document into the team's link set, both dimensions.
     *
     * <p>The document is parsed and its edges extracted entirely before anything is written, so
     * a rejected document stores nothing. Writes are whole-item puts in batches (see
     * {@link LinkRepository}); a failure mid-write leaves rows that a re-ingest rewrites.
     *
     * @param teamId team scope, non-blank
     * @param fileName name for errors and results
     * @param document raw bytes of any {@link TraceFormat}
     * @return counts of spans, skips by reason, edges added and items written
     * @throws TraceFormatException when the document is malformed or not traces (with file, line, column)
     * @throws IllegalArgumentException when {@code teamId} is blank
     */
    public IngestResult ingest(String teamId, String fileName, byte[] document) {
        requireTeam(teamId);
        return ingest(teamId, TraceDocuments.parse(fileName, document));
    }

    /**
     * Reads the team's spans of {@code [fromEpochMs, toEpochMs]} from a trace source and ingests
     * them (the periodic rebuild). Nothing is written when the source has no span. Parts of the source it could not
     * read are counted as skipped, reason {@code unreadable}, and the rest is ingested.
     *
     * @return the ingest result, named after the source and window
     * @throws java.io.UncheckedIOException or the SDK's exceptions when the source cannot be read
     */
    public IngestResult rebuild(String teamId, TraceSource source, long fromEpochMs, long toEpochMs) {
        requireTeam(teamId);
        TraceRead read = source.read(teamId, fromEpochMs, toEpochMs);
        String name = source.describe() + " " + Instant.ofEpochMilli(fromEpochMs) + ".." + Instant.ofEpochMilli(toEpochMs);
        Map<String, Integer> skipped = read.whole() ? Map.of() : Map.of("unreadable", read.unreadable().size());
        return ingest(teamId, new ParsedTraces(name, TraceFormat.TRACE_SOURCE, read.spans(), skipped, Map.of(), List.of()));
    }

    /** Ingests already parsed spans (see {@link #ingest(String, String, byte[])} for the write semantics). */
    public IngestResult ingest(String teamId, ParsedTraces parsed) {
        requireTeam(teamId);
        String fileName = parsed.fileName();
        ExtractedLinks links = EdgeExtractor.extract(parsed.spans(), parsed.dependencies());
        long now = clock.millis();
        int edgesAdded = 0;
        int closureItems = 0;
        int items = 0;
        Map<Dimension, Map<String, ClosurePair>> pairsByDim = new LinkedHashMap<>();
        Map<Dimension, List<StoredEdge>> edgesByDim = new LinkedHashMap<>();
        for (Dimension dim : Dimension.values()) {
            SortedMap<Edge, EdgeStats> edges = links.edges(dim);
            if (edges.isEmpty()) {
                continue;
            }
            Set<String> sources = new HashSet<>();
            Set<String> targets = new HashSet<>();
            edges.keySet().forEach(e -> {
                sources.add(e.from());
                targets.add(e.to());
            });
            InMemoryClosureView view = repository.loadWorkingSet(teamId, dim, sources, targets);
            ClosureTable table = new ClosureTable(view, maxClosureDepth);
            Map<String, ClosurePair> written = new LinkedHashMap<>();
            List<StoredEdge> stored = new ArrayList<>();
            for (Map.Entry<Edge, EdgeStats> e : edges.entrySet()) {
                EdgeInsertion ins = table.addEdge(e.getKey().from(), e.getKey().to(), e.getValue().calls(), now);
                if (ins.newEdge()) {
                    edgesAdded++;
                }
                for (ClosurePair p : ins.written()) {
                    written.put(p.ancestor() + '\u001f' + p.descendant(), p);
                }
                ClosurePair direct = view.descendantsOf(e.getKey().from()).get(e.getKey().to());
                stored.add(new StoredEdge(e.getKey().from(), e.getKey().to(), e.getValue().fromService(),
                        e.getValue().toService(), direct == null ? e.getValue().calls() : direct.callCount(), now));
            }
            pairsByDim.put(dim, written);
            edgesByDim.put(dim, stored);
        }
        for (Dimension dim : pairsByDim.keySet()) {
            int n = repository.writePairs(teamId, dim, pairsByDim.get(dim).values());
            closureItems += n;
            items += n + repository.writeEdges(teamId, dim, edgesByDim.get(dim));
        }
        for (Dimension dim : Dimension.values()) {
            if (!links.entries(dim).isEmpty()) {
                items += repository.writeEntries(teamId, dim, links.entries(dim),
                        dim == Dimension.INTERFACE ? links.entrySamples() : Map.of(), now);
            }
        }
        DatastoreWrite datastores = recordDatastores(teamId, parsed.spans());
        items += datastores.written();
        items += recordMiddleware(teamId, parsed.spans());
        Map<String, Integer> repaired = new TreeMap<>(parsed.repairedByReason());
        links.repairedByReason().forEach((k, v) -> repaired.merge(k, v, Integer::sum));
        return new IngestResult(fileName, parsed.format(), parsed.spans().size(), parsed.spansSkipped(),
                new TreeMap<>(parsed.skippedByReason()), repaired, links.serviceEdges().size(),
                links.interfaceEdges().size(), edgesAdded, closureItems, items,
                List.copyOf(new TreeSet<>(links.serviceEntries())), List.copyOf(new TreeSet<>(links.interfaceEntries())),
                datastores.seen(), datastores.dropped());
    }

    /**
     * What {@link #recordDatastores} did.
     *
     * @param seen    distinct datastores the spans showed
     * @param dropped new ones not kept: their service already had {@link #MAX_DATASTORES_PER_SERVICE}
     * @param written items written (the new and the changed)
     */
    public record DatastoreWrite(int seen, int dropped, int written) {}

    /**
     * Merges the datastores the spans touch ({@link DatastoreDiscovery}, refused writes included) into the team's stored
     * ones (writes or-ed, latest sighting kept), at most {@link #MAX_DATASTORES_PER_SERVICE} per service; writes only
     * what changed. Every ingest does it, and so does every run's dynamic gate on the spans it read, so a run's own
     * traffic teaches the next run's {@code discovered-datastores} check.
     *
     * @return the datastores seen, dropped over the cap, and items written
     */
    public DatastoreWrite recordDatastores(String teamId, List<Span> spans) {
        List<DiscoveredDatastore> seen = DatastoreDiscovery.discover(spans);
        if (seen.isEmpty()) {
            return new DatastoreWrite(0, 0, 0);
        }
        Map<String, DiscoveredDatastore> stored = new LinkedHashMap<>();
        Map<String, Integer> perService = new HashMap<>();
        for (DiscoveredDatastore d : repository.datastores(teamId)) {
            stored.put(d.key(), d);
            perService.merge(d.service(), 1, Integer::sum);
        }
        List<DiscoveredDatastore> changed = new ArrayList<>();
        int dropped = 0;
        for (DiscoveredDatastore d : seen) {
            DiscoveredDatastore old = stored.get(d.key());
            if (old == null) {
                if (perService.getOrDefault(d.service(), 0) >= MAX_DATASTORES_PER_SERVICE) {
                    dropped++;
                    continue;
                }
                perService.merge(d.service(), 1, Integer::sum);
                changed.add(d);
            } else if (!old.merge(d).equals(old)) {
                changed.add(old.merge(d));
            }
        }
        return new DatastoreWrite(seen.size(), dropped, repository.writeDatastores(teamId, changed));
    }

    /**
     * Merges the clients, stores and servers the spans show ({@link MiddlewareInventory}, marked traffic by {@link
     * Marker#DEFAULT}, any service's proof counting for a callee: the scope is the run's, not known here) into the
     * team's stored ones (counts summed, latest sighting kept), at most {@link #MAX_MIDDLEWARE_PER_SERVICE} per service;
     * returns the items written.
     */
    private int recordMiddleware(String teamId, List<Span> spans) {
        List<MiddlewareUse> seen = MiddlewareInventory.of(spans, Marker.DEFAULT, service -> true);
        if (seen.isEmpty()) {
            return 0;
        }
        Map<String, MiddlewareUse> stored = new LinkedHashMap<>();
        Map<String, Integer> perService = new HashMap<>();
        for (MiddlewareUse u : repository.middleware(teamId)) {
            stored.put(u.key(), u);
            perService.merge(u.service(), 1, Integer::sum);
        }
        List<MiddlewareUse> changed = new ArrayList<>();
        for (MiddlewareUse u : seen) {
            MiddlewareUse old = stored.get(u.key());
            if (old != null) {
                changed.add(old.merge(u));
            } else if (perService.getOrDefault(u.service(), 0) < MAX_MIDDLEWARE_PER_SERVICE) {
                perService.merge(u.service(), 1, Integer::sum);
                changed.add(u);
            }
        }
        return repository.writeMiddleware(teamId, changed);
    }

    /**
     * The clients, stores and servers the team's traces showed each service using (stored by every ingest), by service
     * name, each list ordered by library and scope.
     */
    public Map<String, List<MiddlewareUse>> middleware(String teamId) {
        requireTeam(teamId);
        Map<String, List<MiddlewareUse>> out = new TreeMap<>();
        for (MiddlewareUse u : repository.middleware(teamId)) {
            out.computeIfAbsent(u.service(), k -> new ArrayList<>()).add(u);
        }
        return out;
    }

    /**
     * The datastores the team's traces showed each service touching (stored by every ingest), by service name, each
     * list ordered by kind, namespace and name.
     */
    public Map<String, List<DiscoveredDatastore>> datastores(String teamId) {
        requireTeam(teamId);
        Map<String, List<DiscoveredDatastore>> out = new TreeMap<>();
        for (DiscoveredDatastore d : repository.datastores(teamId)) {
            out.computeIfAbsent(d.service(), k -> new ArrayList<>()).add(d);
        }
        return out;
    }

    /**
     * The nodes {@code node} calls, directly or not, up to {@code maxDepth} edges away, as a
     * shortest-path tree (each node's {@code parent}). One DynamoDB Query.
     */
    public LinkTree tree(String teamId, Dimension dimension, String node, int maxDepth) {
        requireTeam(teamId);
        List<ClosurePair> rows = repository.descendants(teamId, dimension, node, maxDepth);
        return toTree(teamId, dimension, node, "downstream", maxDepth, rows, true);
    }

    /** The nodes that call {@code node}, directly or not, up to {@code maxDepth} edges away (reverse index). */
    public LinkTree upstream(String teamId, Dimension dimension, String node, int maxDepth) {
        requireTeam(teamId);
        List<ClosurePair> rows = repository.ancestors(teamId, dimension, node, maxDepth);
        return toTree(teamId, dimension, node, "upstream", maxDepth, rows, false);
    }

    private static LinkTree toTree(String teamId, Dimension dimension, String root, String direction, int maxDepth,
                                   List<ClosurePair> rows, boolean downstream) {
        int rootCycle = 0;
        List<LinkTree.TreeNode> nodes = new ArrayList<>();
        for (ClosurePair p : rows) {
            String other = downstream ? p.descendant() : p.ancestor();
            if (other.equals(root)) {
                rootCycle = p.depth();
                continue;
            }
            nodes.add(new LinkTree.TreeNode(other, p.depth(), downstream ? p.via() : "", p.pathCount(),
                    p.callCount(), p.lastSeenEpochMs()));
        }
        nodes.sort(Comparator.comparingInt(LinkTree.TreeNode::depth).thenComparing(LinkTree.TreeNode::node));
        return new LinkTree(teamId, dimension, root, direction, maxDepth, rootCycle, List.copyOf(nodes));
    }

    /** Entry nodes recorded for the team scope in {@code dimension}, sorted. */
    public List<String> entries(String teamId, Dimension dimension) {
        requireTeam(teamId);
        List<String> out = new ArrayList<>(repository.entries(teamId, dimension));
        out.sort(null);
        return out;
    }

    /**
     * Raw request paths seen at the team's entries of {@code dimension}: entry → up to
     * {@link dev.richter.links.graph.ExtractedLinks#MAX_ENTRY_SAMPLES} paths in first-seen order, sorted by entry. A
     * gateway's entry grouped by the route below it keeps the paths it was called with here. Service entries have
     * none.
     *
     * @throws IllegalArgumentException when {@code teamId} is blank
     */
    public Map<String, List<String>> entrySamples(String teamId, Dimension dimension) {
        requireTeam(teamId);
        return dimension == Dimension.INTERFACE ? repository.entrySamples(teamId, dimension) : Map.of();
    }

    /**
     * Whether {@code node} is in the team's graph of {@code dimension}: one of its entries, or the caller or callee of
     * a stored edge. At most three DynamoDB Queries (entries, one row below, one row above).
     *
     * @param teamId team scope, non-blank
     * @param node   a node id ({@link Dimension}), e.g. {@code order POST /orders} or {@code order}
     * @return false for a node of another team's graph, or of no graph
     * @throws IllegalArgumentException when {@code teamId} is blank
     */
    public boolean hasNode(String teamId, Dimension dimension, String node) {
        requireTeam(teamId);
        return repository.entries(teamId, dimension).contains(node)
                || !repository.descendants(teamId, dimension, node, 1).isEmpty()
                || !repository.ancestors(teamId, dimension, node, 1).isEmpty();
    }

    /**
     * The team's direct edges of {@code dimension} whose caller and callee are both in {@code nodes} (e.g. a
     * {@link LinkTree}'s root and nodes: the tree's edges, back edges of cycles included), each with the calls
     * observed over every ingest; ordered by caller, then callee. One DynamoDB Query of the team's edges.
     *
     * @throws IllegalArgumentException when {@code teamId} is blank
     */
    public List<StoredEdge> edgesAmong(String teamId, Dimension dimension, Set<String> nodes) {
        requireTeam(teamId);
        return repository.edges(teamId, dimension).stream()
                .filter(e -> nodes.contains(e.from()) && nodes.contains(e.to()))
                .sorted(Comparator.comparing(StoredEdge::from).thenComparing(StoredEdge::to))
                .toList();
    }

    /**
     * The {@link #exits} of {@code scopeServices} below {@code entry}: those whose calling node is {@code entry} or a
     * node it reaches (closure rows of any depth). In the {@code interface} dimension, an exit known only by its
     * services (a dependency list's service edge) counts when its calling service is the service of a node reached;
     * in the {@code service} dimension, an exit counts when its calling service is reached. Same order as
     * {@link #exits}.
     *
     * @param entry a node of {@code dimension}; a node the team's graph lacks has no exits
     * @throws IllegalArgumentException when {@code teamId} is blank
     */
    public List<Exit> exitsBelow(String teamId, Dimension dimension, String entry, Set<String> scopeServices) {
        requireTeam(teamId);
        Set<String> reached = new HashSet<>();
        reached.add(entry);
        repository.descendants(teamId, dimension, entry, Integer.MAX_VALUE).forEach(p -> reached.add(p.descendant()));
        List<StoredEdge> interfaceEdges = repository.edges(teamId, Dimension.INTERFACE);
        Set<String> reachedServices = new HashSet<>();
        if (dimension == Dimension.SERVICE) {
            reachedServices.addAll(reached);
        } else {
            for (StoredEdge e : interfaceEdges) {
                if (reached.contains(e.from())) {
                    reachedServices.add(e.fromService());
                }
                if (reached.contains(e.to())) {
                    reachedServices.add(e.toService());
                }
            }
        }
        return exits(teamId, scopeServices, interfaceEdges).stream()
                .filter(x -> (dimension == Dimension.SERVICE || x.fromNode().equals(x.fromService()))
                        ? reachedServices.contains(x.fromService()) : reached.contains(x.fromNode()))
                .toList();
    }

    /**
     * Calls leaving {@code scopeServices}: interface edges whose caller's service is in scope and
     * callee's is not, plus service edges with no interface detail (dependency lists). Each exit
     * carries the annotation on its called node (or, failing that, its called service).
     */
    public List<Exit> exits(String teamId, Set<String> scopeServices) {
        requireTeam(teamId);
        return exits(teamId, scopeServices, repository.edges(teamId, Dimension.INTERFACE));
    }

    private List<Exit> exits(String teamId, Set<String> scopeServices, List<StoredEdge> interfaceEdges) {
        Map<String, NodeAnnotation> notes = repository.annotations(teamId);
        List<Exit> out = new ArrayList<>();
        Set<String> covered = new HashSet<>();
        for (StoredEdge e : interfaceEdges) {
            if (scopeServices.contains(e.fromService()) && !scopeServices.contains(e.toService())) {
                out.add(exit(e, notes));
                covered.add(e.fromService() + '\u001f' + e.toService());
            }
        }
        for (StoredEdge e : repository.edges(teamId, Dimension.SERVICE)) {
            if (scopeServices.contains(e.from()) && !scopeServices.contains(e.to())
                    && !covered.contains(e.from() + '\u001f' + e.to())) {
                out.add(exit(e, notes));
            }
        }
        out.sort(Comparator.comparing(Exit::fromNode).thenComparing(Exit::toNode));
        return out;
    }

    private static Exit exit(StoredEdge e, Map<String, NodeAnnotation> notes) {
        NodeAnnotation a = notes.getOrDefault(e.to(), notes.get(e.toService()));
        return new Exit(e.fromService(), e.from(), e.toService(), e.to(), e.callCount(), e.lastSeenEpochMs(),
                a != null && a.mockRequired(), a != null && a.coreDependency(), a == null ? "" : a.annotatedBy());
    }

    /**
     * Compares two link sets: edges only in {@code baselineTeamId} (missing), only in
     * {@code candidateTeamId} (extra), and for every entry both scopes share, nodes below it whose
     * shortest depth differs.
     */
    public LinkComparison compare(String baselineTeamId, String candidateTeamId, Dimension dimension) {
        requireTeam(baselineTeamId);
        requireTeam(candidateTeamId);
        Set<Edge> base = edgeSet(baselineTeamId, dimension);
        Set<Edge> cand = edgeSet(candidateTeamId, dimension);
        List<Edge> missing = base.stream().filter(e -> !cand.contains(e)).sorted().toList();
        List<Edge> extra = cand.stream().filter(e -> !base.contains(e)).sorted().toList();
        Set<String> entries = new TreeSet<>(repository.entries(baselineTeamId, dimension));
        entries.retainAll(new HashSet<>(repository.entries(candidateTeamId, dimension)));
        List<LinkComparison.DepthChange> changed = new ArrayList<>();
        for (String entry : entries) {
            Map<String, Integer> b = depths(baselineTeamId, dimension, entry);
            Map<String, Integer> c = depths(candidateTeamId, dimension, entry);
            b.forEach((node, depth) -> {
                Integer other = c.get(node);
                if (other != null && !other.equals(depth)) {
                    changed.add(new LinkComparison.DepthChange(entry, node, depth, other));
                }
            });
        }
        return new LinkComparison(dimension, baselineTeamId, candidateTeamId, missing, extra, List.copyOf(changed));
    }

    /** Stores an annotation on a node or exit target; it survives re-ingests (never overwritten by them). */
    public NodeAnnotation annotate(String teamId, NodeAnnotation annotation) {
        requireTeam(teamId);
        if (annotation.subject() == null || annotation.subject().isBlank()) {
            throw new IllegalArgumentException("annotation.subject is required");
        }
        repository.putAnnotation(teamId, annotation);
        return annotation;
    }

    /** The team's annotation on {@code subject} (a node or service id), if it has one. */
    public Optional<NodeAnnotation> annotation(String teamId, String subject) {
        requireTeam(teamId);
        return Optional.ofNullable(repository.annotations(teamId).get(subject));
    }

    /**
     * Sets or clears the "mock required" mark on {@code subject} (the called node of an exit: the mark applies to
     * every exit into it), keeping the rest of its annotation (core dependency, note) when it has one; stamped with
     * {@code annotatedBy} and the clock's time. A cleared mark is stored as {@code mockRequired=false}, so it also
     * overrides a mark on the subject's service ({@link #exits} reads the node's annotation first).
     *
     * @param subject     a node id, non-blank
     * @param annotatedBy who sets it (the caller's identity)
     * @return the annotation stored
     * @throws IllegalArgumentException when {@code teamId} or {@code subject} is blank
     */
    public NodeAnnotation markMockRequired(String teamId, String subject, boolean mockRequired, String annotatedBy) {
        NodeAnnotation old = annotation(teamId, subject).orElse(null);
        return annotate(teamId, new NodeAnnotation(subject, old != null && old.coreDependency(), mockRequired,
                old == null ? "" : old.note(), annotatedBy, clock.millis()));
    }

    private Set<Edge> edgeSet(String teamId, Dimension dimension) {
        Set<Edge> out = new HashSet<>();
        repository.edges(teamId, dimension).forEach(e -> out.add(new Edge(e.from(), e.to())));
        return out;
    }

    private Map<String, Integer> depths(String teamId, Dimension dimension, String entry) {
        Map<String, Integer> out = new TreeMap<>();
        repository.descendants(teamId, dimension, entry, Integer.MAX_VALUE)
                .forEach(p -> out.put(p.descendant(), p.depth()));
        return out;
    }

    private static void requireTeam(String teamId) {
        if (teamId == null || teamId.isBlank()) {
            throw new IllegalArgumentException("teamId is required");
        }
    }
}
