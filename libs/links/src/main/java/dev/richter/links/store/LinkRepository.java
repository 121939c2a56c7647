package dev.richter.links.store;

import dev.richter.links.datastore.DiscoveredDatastore;
import dev.richter.links.middleware.MiddlewareUse;
import dev.richter.links.graph.ClosurePair;
import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.ExtractedLinks;
import dev.richter.links.graph.InMemoryClosureView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The links table in DynamoDB (layout in {@link LinkKeys}). Uses only Query, PutItem and
 * BatchWriteItem (no transactions, no PartiQL: the local dynalite stack lacks them). Every write
 * puts a whole item computed by {@link dev.richter.links.graph.ClosureTable}, so replaying a batch
 * writes the same items: retries are idempotent.
 */
public final class LinkRepository {
    static final String REVERSE_INDEX = "reverse";
    private static final int BATCH = 25;
    private static final int MAX_ATTEMPTS = 10;

    private final DynamoDbClient ddb;
    private final String table;

    /**
     * @param ddb DynamoDB client (built once per container)
     * @param table physical table name ({@code TableNames.fromEnv().links()})
     */
    public LinkRepository(DynamoDbClient ddb, String table) {
        this.ddb = ddb;
        this.table = table;
    }

    /**
     * Loads the rows an insertion batch can read: the ancestors of every source (reverse index),
     * then all descendants of those ancestors, of the sources and of the targets. The Queries run
     * concurrently, at most {@value #MAX_CONCURRENT_QUERIES} at a time (a bulkhead toward the table).
     *
     * @return a view holding exactly those rows
     */
    public InMemoryClosureView loadWorkingSet(String teamId, Dimension dimension, Set<String> sources,
                                              Set<String> targets) {
        InMemoryClosureView view = new InMemoryClosureView();
        Set<String> forward = new HashSet<>(sources);
        forward.addAll(targets);
        for (List<ClosurePair> rows : parallel(sources, u -> ancestors(teamId, dimension, u, Integer.MAX_VALUE))) {
            for (ClosurePair p : rows) {
                view.put(p);
                forward.add(p.ancestor());
            }
        }
        for (List<ClosurePair> rows : parallel(forward, a -> descendants(teamId, dimension, a, Integer.MAX_VALUE))) {
            rows.forEach(view::put);
        }
        return view;
    }

    static final int MAX_CONCURRENT_QUERIES = 16;

    private static <T> List<T> parallel(Collection<String> keys, Function<String, T> task) {
        if (keys.size() <= 1) {
            return keys.stream().map(task).toList();
        }
        Semaphore bulkhead = new Semaphore(MAX_CONCURRENT_QUERIES);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<T>> futures = new ArrayList<>(keys.size());
            for (String k : keys) {
                futures.add(pool.submit(() -> {
                    bulkhead.acquire();
                    try {
                        return task.apply(k);
                    } finally {
                        bulkhead.release();
                    }
                }));
            }
            List<T> out = new ArrayList<>(futures.size());
            for (var f : futures) {
                out.add(f.get());
            }
            return out;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading closure rows", e);
        }
    }

    /** Rows {@code (node, d)} with depth ≤ {@code maxDepth}. */
    public List<ClosurePair> descendants(String teamId, Dimension dimension, String node, int maxDepth) {
        List<ClosurePair> out = new ArrayList<>();
        queryForward(teamId, dimension, node, maxDepth, out::add);
        return out;
    }

    /** Rows {@code (a, node)} with depth ≤ {@code maxDepth}, through the reverse index. */
    public List<ClosurePair> ancestors(String teamId, Dimension dimension, String node, int maxDepth) {
        List<ClosurePair> out = new ArrayList<>();
        queryReverse(teamId, dimension, node, maxDepth, out::add);
        return out;
    }

    /** Writes closure rows (deduplicated by key, last wins); returns items written. */
    public int writePairs(String teamId, Dimension dimension, Collection<ClosurePair> pairs) {
        Map<String, Map<String, AttributeValue>> items = new LinkedHashMap<>();
        for (ClosurePair p : pairs) {
            Map<String, AttributeValue> item = new HashMap<>(16);
            item.put("pk", s(LinkKeys.node(teamId, dimension, p.ancestor())));
            item.put("sk", s(p.descendant()));
            item.put("rpk", s(LinkKeys.node(teamId, dimension, p.descendant())));
            item.put("rsk", s(p.ancestor()));
            item.put("teamId", s(teamId));
            item.put("dimension", s(dimension.wireName()));
            item.put("ancestor", s(p.ancestor()));
            item.put("descendant", s(p.descendant()));
            item.put("depth", n(p.depth()));
            item.put("pathCount", n(p.pathCount()));
            item.put("callCount", n(p.callCount()));
            item.put("lastSeenEpochMs", n(p.lastSeenEpochMs()));
            item.put("via", s(p.via()));
            items.put(p.ancestor() + '\u001f' + p.descendant(), item);
        }
        return batchPut(items.values());
    }

    /** Writes direct-edge listing items; returns items written. */
    public int writeEdges(String teamId, Dimension dimension, Collection<StoredEdge> edges) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (StoredEdge e : edges) {
            Map<String, AttributeValue> item = new HashMap<>(12);
            item.put("pk", s(LinkKeys.edges(teamId, dimension)));
            item.put("sk", s(LinkKeys.edgeSort(e.from(), e.to())));
            item.put("from", s(e.from()));
            item.put("to", s(e.to()));
            item.put("fromService", s(e.fromService()));
            item.put("toService", s(e.toService()));
            item.put("callCount", n(e.callCount()));
            item.put("lastSeenEpochMs", n(e.lastSeenEpochMs()));
            items.add(item);
        }
        return batchPut(items);
    }

    /**
     * Records entries (root SERVER/CONSUMER nodes) with their raw-path samples; returns items written. An entry's stored
     * samples are kept and this batch's new ones appended, up to {@link ExtractedLinks#MAX_ENTRY_SAMPLES}: one Query of
     * the entries partition first (hundreds of small items at most: one page or two). Two ingests racing on one entry may lose one's new samples;
     * samples illustrate an entry and decide nothing.
     *
     * @param samples entry → raw paths of this batch ({@link ExtractedLinks#entrySamples()}); entries absent have none
     */
    public int writeEntries(String teamId, Dimension dimension, Collection<String> nodes,
                            Map<String, List<String>> samples, long seenEpochMs) {
        Map<String, List<String>> stored = entrySamples(teamId, dimension);
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (String node : nodes) {
            Map<String, AttributeValue> item = new HashMap<>(8);
            item.put("pk", s(LinkKeys.entries(teamId, dimension)));
            item.put("sk", s(node));
            item.put("node", s(node));
            item.put("lastSeenEpochMs", n(seenEpochMs));
            List<String> merged = new ArrayList<>(stored.getOrDefault(node, List.of()));
            for (String path : samples.getOrDefault(node, List.of())) {
                if (merged.size() < ExtractedLinks.MAX_ENTRY_SAMPLES && !merged.contains(path)) {
                    merged.add(path);
                }
            }
            if (!merged.isEmpty()) {
                item.put("samples", AttributeValue.fromL(merged.stream().map(LinkRepository::s).toList()));
            }
            items.add(item);
        }
        return batchPut(items);
    }

    /** Entry → its stored raw-path samples, for the entries that have any, in a team scope of one dimension. */
    public Map<String, List<String>> entrySamples(String teamId, Dimension dimension) {
        Map<String, List<String>> out = new TreeMap<>();
        query(QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", s(LinkKeys.entries(teamId, dimension)))), item -> {
            AttributeValue v = item.get("samples");
            if (v != null && v.hasL() && !v.l().isEmpty()) {
                out.put(str(item, "node"), v.l().stream().map(AttributeValue::s).toList());
            }
        });
        return out;
    }

    /** All direct edges of a team scope in one dimension. */
    public List<StoredEdge> edges(String teamId, Dimension dimension) {
        List<StoredEdge> out = new ArrayList<>();
        query(QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", s(LinkKeys.edges(teamId, dimension)))), item ->
                out.add(new StoredEdge(str(item, "from"), str(item, "to"), str(item, "fromService"),
                        str(item, "toService"), num(item, "callCount"), num(item, "lastSeenEpochMs"))));
        return out;
    }

    /** Entry nodes of a team scope in one dimension, sorted. */
    public List<String> entries(String teamId, Dimension dimension) {
        List<String> out = new ArrayList<>();
        query(QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", s(LinkKeys.entries(teamId, dimension)))),
                item -> out.add(str(item, "node")));
        return out;
    }

    /**
     * Writes discovered datastores (one small item each, replacing the one of the same {@link DiscoveredDatastore#key()});
     * returns items written. Callers bound how many a service has ({@code LinkService.MAX_DATASTORES_PER_SERVICE}).
     */
    public int writeDatastores(String teamId, Collection<DiscoveredDatastore> datastores) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (DiscoveredDatastore d : datastores) {
            Map<String, AttributeValue> item = new HashMap<>(12);
            item.put("pk", s(LinkKeys.datastores(teamId)));
            item.put("sk", s(d.key()));
            item.put("service", s(d.service()));
            item.put("kind", s(d.kind()));
            item.put("name", s(d.name()));
            item.put("writes", AttributeValue.fromBool(d.writes()));
            item.put("lastSeenMs", n(d.lastSeenMs()));
            if (!d.system().isEmpty()) { // empty strings are avoided: older emulators reject them
                item.put("system", s(d.system()));
            }
            if (!d.namespace().isEmpty()) {
                item.put("namespace", s(d.namespace()));
            }
            items.add(item);
        }
        return batchPut(items);
    }

    /** Every datastore discovered for the team's services, ordered by service, kind, namespace and name. */
    public List<DiscoveredDatastore> datastores(String teamId) {
        List<DiscoveredDatastore> out = new ArrayList<>();
        query(QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", s(LinkKeys.datastores(teamId)))), item ->
                out.add(new DiscoveredDatastore(str(item, "service"), str(item, "kind"), str(item, "name"),
                        str(item, "system"), str(item, "namespace"), bool(item, "writes"), num(item, "lastSeenMs"))));
        return out;
    }

    /**
     * Writes middleware uses (one small item each, replacing the one of the same {@link MiddlewareUse#key()}); returns
     * items written. Callers bound how many a service has ({@code LinkService.MAX_MIDDLEWARE_PER_SERVICE}).
     */
    public int writeMiddleware(String teamId, Collection<MiddlewareUse> uses) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (MiddlewareUse u : uses) {
            Map<String, AttributeValue> item = new HashMap<>(16);
            item.put("pk", s(LinkKeys.middleware(teamId)));
            item.put("sk", s(u.key()));
            item.put("service", s(u.service()));
            item.put("library", s(u.library()));
            item.put("role", s(u.role()));
            item.put("guarded", AttributeValue.fromBool(u.guarded()));
            item.put("calls", n(u.calls()));
            item.put("markedCalls", n(u.markedCalls()));
            item.put("markedCallsIsolated", n(u.markedCallsIsolated()));
            item.put("lastSeenMs", n(u.lastSeenMs()));
            // empty strings are avoided: older emulators reject them
            for (Map.Entry<String, String> e : Map.of("versions", u.versions(), "scopeName", u.scopeName(),
                    "scopeVersion", u.scopeVersion(), "system", u.system()).entrySet()) {
                if (!e.getValue().isEmpty()) {
                    item.put(e.getKey(), s(e.getValue()));
                }
            }
            items.add(item);
        }
        return batchPut(items);
    }

    /** Every middleware use recorded for the team's services, ordered by service, library and scope. */
    public List<MiddlewareUse> middleware(String teamId) {
        List<MiddlewareUse> out = new ArrayList<>();
        query(QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", s(LinkKeys.middleware(teamId)))), item ->
                out.add(new MiddlewareUse(str(item, "service"), str(item, "library"), str(item, "versions"),
                        str(item, "role"), str(item, "scopeName"), str(item, "scopeVersion"), str(item, "system"),
                        bool(item, "guarded"), num(item, "calls"), num(item, "markedCalls"),
                        num(item, "markedCallsIsolated"), num(item, "lastSeenMs"))));
        return out;
    }

    /** Stores (replaces) an annotation. */
    public void putAnnotation(String teamId, NodeAnnotation a) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of("pk", s(LinkKeys.annotations(teamId)),
                "sk", s(a.subject()), "subject", s(a.subject()),
                "coreDependency", AttributeValue.fromBool(a.coreDependency()),
                "mockRequired", AttributeValue.fromBool(a.mockRequired()),
                "annotatedAtEpochMs", n(a.annotatedAtEpochMs())));
        if (!a.note().isEmpty()) { // empty strings are avoided: older emulators reject them
            item.put("note", s(a.note()));
        }
        if (!a.annotatedBy().isEmpty()) {
            item.put("annotatedBy", s(a.annotatedBy()));
        }
        batchPut(List.of(item));
    }

    /** All annotations of a team, keyed by subject. */
    public Map<String, NodeAnnotation> annotations(String teamId) {
        Map<String, NodeAnnotation> out = new HashMap<>();
        query(QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", s(LinkKeys.annotations(teamId)))), item -> {
                    NodeAnnotation a = new NodeAnnotation(str(item, "subject"), bool(item, "coreDependency"),
                            bool(item, "mockRequired"), str(item, "note"), str(item, "annotatedBy"),
                            num(item, "annotatedAtEpochMs"));
                    out.put(a.subject(), a);
                });
        return out;
    }

    private void queryForward(String teamId, Dimension dimension, String node, int maxDepth,
                              Consumer<ClosurePair> sink) {
        QueryRequest.Builder q = QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk");
        depthFilter(q, Map.of(":pk", s(LinkKeys.node(teamId, dimension, node))), maxDepth);
        query(q, item -> sink.accept(pair(item)));
    }

    private void queryReverse(String teamId, Dimension dimension, String node, int maxDepth,
                              Consumer<ClosurePair> sink) {
        QueryRequest.Builder q = QueryRequest.builder().tableName(table).indexName(REVERSE_INDEX)
                .keyConditionExpression("rpk = :pk");
        depthFilter(q, Map.of(":pk", s(LinkKeys.node(teamId, dimension, node))), maxDepth);
        query(q, item -> sink.accept(pair(item)));
    }

    private static void depthFilter(QueryRequest.Builder q, Map<String, AttributeValue> values, int maxDepth) {
        if (maxDepth == Integer.MAX_VALUE) {
            q.expressionAttributeValues(values);
            return;
        }
        Map<String, AttributeValue> v = new HashMap<>(values);
        v.put(":d", n(maxDepth));
        q.filterExpression("#d <= :d").expressionAttributeNames(Map.of("#d", "depth")).expressionAttributeValues(v);
    }

    private void query(QueryRequest.Builder q, Consumer<Map<String, AttributeValue>> sink) {
        Map<String, AttributeValue> start = null;
        do {
            QueryResponse r = ddb.query(q.exclusiveStartKey(start).build());
            r.items().forEach(sink);
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
        } while (start != null);
    }

    /**
     * BatchWriteItem in chunks of 25; unprocessed items are retried with exponential backoff and
     * full jitter (base 50 ms, cap 5 s, 10 attempts), then an IllegalStateException.
     */
    private int batchPut(Collection<Map<String, AttributeValue>> items) {
        List<WriteRequest> all = new ArrayList<>(items.size());
        for (Map<String, AttributeValue> item : items) {
            all.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
        }
        for (int i = 0; i < all.size(); i += BATCH) {
            List<WriteRequest> chunk = all.subList(i, Math.min(all.size(), i + BATCH));
            for (int attempt = 1; !chunk.isEmpty(); attempt++) {
                if (attempt > MAX_ATTEMPTS) {
                    throw new IllegalStateException("links table: " + chunk.size()
                            + " items still unprocessed after " + MAX_ATTEMPTS + " attempts");
                }
                if (attempt > 1) {
                    sleepBackoff(attempt);
                }
                Map<String, List<WriteRequest>> request = Map.of(table, chunk);
                BatchWriteItemResponse r = ddb.batchWriteItem(b -> b.requestItems(request));
                List<WriteRequest> left = r.unprocessedItems().get(table);
                chunk = left == null ? List.of() : left;
            }
        }
        return all.size();
    }

    private static void sleepBackoff(int attempt) {
        long capMs = Math.min(5_000L, 50L << Math.min(attempt - 1, 10));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(capMs + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying a batch write", e);
        }
    }

    private static ClosurePair pair(Map<String, AttributeValue> item) {
        return new ClosurePair(str(item, "ancestor"), str(item, "descendant"), (int) num(item, "depth"),
                num(item, "pathCount"), num(item, "callCount"), num(item, "lastSeenEpochMs"), str(item, "via"));
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    private static AttributeValue n(long v) {
        return AttributeValue.fromN(Long.toString(v));
    }

    private static String str(Map<String, AttributeValue> item, String key) {
        AttributeValue v = item.get(key);
        return v == null || v.s() == null ? "" : v.s();
    }

    private static long num(Map<String, AttributeValue> item, String key) {
        AttributeValue v = item.get(key);
        return v == null || v.n() == null ? 0 : Long.parseLong(v.n());
    }

    private static boolean bool(Map<String, AttributeValue> item, String key) {
        AttributeValue v = item.get(key);
        return v != null && Boolean.TRUE.equals(v.bool());
    }
}
