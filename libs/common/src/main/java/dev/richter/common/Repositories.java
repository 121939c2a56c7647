package dev.richter.common;

import dev.richter.common.model.Plan;
import dev.richter.common.model.EvidenceSources;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Run;
import dev.richter.common.secrets.KmsSecretSealer;
import dev.richter.common.secrets.SecretSealer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * DynamoDB access to plans, registered services and runs. Plans and services are stored as one
 * JSON document attribute ({@code doc}) beside their keys; runs as plain attributes because
 * several writers update parts of them (current step, abort flag, outcome). No transactions
 * (the local DynamoDB has none): each write is one conditional item write.
 */
public final class Repositories {
    /**
     * Registry item key of a team's safety configuration ({@code PUT /safety}): written by the API, read by the checks,
     * the link rebuild and the report.
     */
    public static final String SAFETY_CONFIG_KEY = "safety#config";

    private final DynamoDbClient dynamoDb;
    private final TableNames tables;
    private final SecretSealer secrets;

    /**
     * Uses the given client and table names; secrets are sealed with the stack's KMS key
     * ({@link KmsSecretSealer#fromEnv()}), built when a secret is first touched: a function that touches none needs
     * neither the key nor the KMS client.
     */
    public Repositories(DynamoDbClient dynamoDb, TableNames tables) {
        this(dynamoDb, tables, SecretSealer.lazy(() -> KmsSecretSealer.fromEnv()));
    }

    /** Uses the given client, table names and sealer of the teams' secrets (tests: common's {@code MemorySecretSealer}). */
    public Repositories(DynamoDbClient dynamoDb, TableNames tables, SecretSealer secrets) {
        this.dynamoDb = dynamoDb;
        this.tables = tables;
        this.secrets = secrets;
    }

    /** Repositories on the container's shared client and the environment's table names. */
    public static Repositories fromEnv() {
        return new Repositories(AwsClients.dynamoDb(), TableNames.fromEnv());
    }

    public DynamoDbClient dynamoDb() {
        return dynamoDb;
    }

    public TableNames tables() {
        return tables;
    }

    /** The sealer of the teams' secrets (marker keys, webhook secrets). */
    public SecretSealer secrets() {
        return secrets;
    }

    // ------------------------------------------------------------------ plans

    /** Stores a new plan; throws {@link ConditionalCheckFailedException} if the id exists. */
    public void putPlan(Plan plan) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(tables.plans())
                .item(Map.of("planId", s(plan.planId()), "teamId", s(plan.teamId()),
                        "createdAtMs", n(plan.createdAtMs()), "doc", s(Json.write(plan))))
                .conditionExpression("attribute_not_exists(planId)").build());
    }

    /** The plan with this id if it belongs to {@code teamId}. */
    public Optional<Plan> getPlan(String teamId, String planId) {
        return getPlan(planId).filter(p -> p.teamId().equals(teamId));
    }

    /** The plan with this id, whatever its team (for the state machine's functions, which act for the run's team). */
    public Optional<Plan> getPlan(String planId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.plans())
                .key(Map.of("planId", s(planId))).consistentRead(true).build()).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Json.read(item.get("doc").s(), Plan.class));
    }

    /** The team's most recently created plan (GSI {@code byTeam}). */
    public Optional<Plan> latestPlan(String teamId) {
        var resp = dynamoDb.query(QueryRequest.builder().tableName(tables.plans()).indexName("byTeam")
                .keyConditionExpression("teamId = :t").expressionAttributeValues(Map.of(":t", s(teamId)))
                .scanIndexForward(false).limit(1).build());
        return resp.items().stream().findFirst().map(i -> Json.read(i.get("doc").s(), Plan.class));
    }

    // ------------------------------------------------------------------ services

    /** Every team that registered at least one service (a scan: nightly scale, not request scale). */
    public SortedSet<String> teamsWithServices() {
        SortedSet<String> teams = new TreeSet<>();
        dynamoDb.scanPaginator(ScanRequest.builder()
                        .tableName(tables.registry()).projectionExpression("teamId, itemKey").build())
                .items().forEach(i -> {
                    if (i.get("itemKey").s().startsWith("service#")) {
                        teams.add(i.get("teamId").s());
                    }
                });
        return teams;
    }

    /** Stores a registry document under {@code itemKey} (e.g. {@code nightly#2026-11-30}). */
    public void putRegistryDoc(String teamId, String itemKey, Object doc) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(tables.registry())
                .item(Map.of("teamId", s(teamId), "itemKey", s(itemKey), "doc", s(Json.write(doc)))).build());
    }

    /** The newest registry documents whose key starts with {@code prefix}, newest first, at most {@code limit}. */
    public List<String> latestRegistryDocs(String teamId, String prefix, int limit) {
        var resp = dynamoDb.query(QueryRequest.builder().tableName(tables.registry())
                .keyConditionExpression("teamId = :t AND begins_with(itemKey, :p)")
                .expressionAttributeValues(Map.of(":t", s(teamId), ":p", s(prefix)))
                .scanIndexForward(false).limit(limit).consistentRead(true).build());
        return resp.items().stream().map(i -> i.get("doc").s()).toList();
    }

    /**
     * Registry item key of a team's marker keys, the keys that sign its markers' proofs
     * ({@code dev.richter.sdk.MarkerProof}), newest first. Its {@code doc} is {@code {"sealed": "<base64>"}}: the
     * document {@code {"keys": ["<base64url>", ...]}} sealed for the team with purpose {@link SecretSealer#MARKER_KEYS}
     * (docs/aws.md "Secrets"). An item written before sealing holds that document in plain text; it is still read, and
     * {@link #ensureMarkerKeys} seals it.
     */
    public static final String MARKER_KEYS_KEY = "marker#keys";

    /**
     * The team's marker keys, newest first; empty when it has none yet (a consistent read). Opens the sealed document
     * ({@code kms:Decrypt}); a legacy plain item is read as it is (this read never writes).
     *
     * @throws SecretSealer.SecretNotOpenedException when the stored document is not sealed for this team's marker keys
     */
    public List<String> markerKeys(String teamId) {
        return markerKeysItem(teamId).map(MarkerKeysDoc::keys).orElse(List.of());
    }

    /**
     * The team's marker keys, never empty: creating its first (32 random bytes, {@code MarkerProof.newKey}) when it
     * has none (or an item without keys), and sealing a legacy plain item. Both writes are conditional puts (creation: the item is absent; sealing: its
     * {@code doc} is unchanged), so callers racing agree on the one that landed.
     *
     * @throws SecretSealer.SecretNotOpenedException as {@link #markerKeys}
     */
    public List<String> ensureMarkerKeys(String teamId) {
        Optional<MarkerKeysDoc> stored = markerKeysItem(teamId);
        if (stored.isPresent() && stored.get().sealed() && !stored.get().keys().isEmpty()) {
            return stored.get().keys();
        }
        List<String> keys = stored.map(MarkerKeysDoc::keys).filter(k -> !k.isEmpty())
                .orElseGet(() -> List.of(dev.richter.sdk.MarkerProof.newKey()));
        String sealed = secrets.seal(teamId, SecretSealer.MARKER_KEYS, Json.write(Map.of("keys", keys)));
        var put = PutItemRequest.builder().tableName(tables.registry())
                .item(Map.of("teamId", s(teamId), "itemKey", s(MARKER_KEYS_KEY), "doc", s(Json.write(Map.of("sealed", sealed)))));
        if (stored.isEmpty()) {
            put.conditionExpression("attribute_not_exists(itemKey)");
        } else {
            put.conditionExpression("#d = :old").expressionAttributeNames(Map.of("#d", "doc"))
                    .expressionAttributeValues(Map.of(":old", s(stored.get().rawDoc())));
        }
        try {
            dynamoDb.putItem(put.build());
        } catch (ConditionalCheckFailedException raced) {
            // another caller created or sealed it first: read theirs
            return markerKeys(teamId);
        }
        return keys;
    }

    /**
     * A stored marker keys item.
     *
     * @param keys   the keys, newest first
     * @param sealed whether the item was sealed (false: a legacy plain item)
     * @param rawDoc the stored {@code doc} text, for the conditional put that seals it
     */
    private record MarkerKeysDoc(List<String> keys, boolean sealed, String rawDoc) {}

    private Optional<MarkerKeysDoc> markerKeysItem(String teamId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.registry())
                .key(Map.of("teamId", s(teamId), "itemKey", s(MARKER_KEYS_KEY))).consistentRead(true).build()).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        String raw = item.get("doc").s();
        com.fasterxml.jackson.databind.JsonNode doc = Json.read(raw, com.fasterxml.jackson.databind.JsonNode.class);
        boolean sealed = doc.path("sealed").isTextual();
        if (sealed) {
            doc = Json.read(secrets.open(teamId, SecretSealer.MARKER_KEYS, doc.get("sealed").asText()),
                    com.fasterxml.jackson.databind.JsonNode.class);
        }
        List<String> keys = new ArrayList<>();
        doc.path("keys").forEach(k -> keys.add(k.asText()));
        return Optional.of(new MarkerKeysDoc(List.copyOf(keys), sealed, raw));
    }

    /**
     * Stores or replaces a registered service (item key {@code service#<name>}), and creates the team's marker key when
     * it has none ({@link #ensureMarkerKeys}): every team with a service can sign its markers.
     */
    public void putService(RegisteredService service) {
        ensureMarkerKeys(service.teamId());
        dynamoDb.putItem(PutItemRequest.builder().tableName(tables.registry())
                .item(Map.of("teamId", s(service.teamId()), "itemKey", s("service#" + service.name()),
                        "doc", s(Json.write(service))))
                .build());
    }

    /**
     * Registry partition of address ownership: one item per network address ({@code itemKey} = {@code <host>:<port>},
     * {@code TargetAddress.authority()}), with {@code owner}, the team whose registered services load it. The leading
     * {@code #} keeps it apart from every team's partition: a team id is never used with an item key of that form.
     */
    public static final String ADDRESS_OWNERS = "#address-owners";

    /**
     * Claims {@code authority} ({@code <host>:<port>}) for {@code teamId}, unless another team owns it: a conditional
     * put ({@code attribute_not_exists(itemKey) OR owner = :team}), so of two teams racing for one address exactly one
     * gets it.
     *
     * @return true when the team owns the address now (claimed here, or already its own); false when another team does
     */
    public boolean claimAddress(String teamId, String authority) {
        try {
            dynamoDb.putItem(PutItemRequest.builder().tableName(tables.registry())
                    .item(Map.of("teamId", s(ADDRESS_OWNERS), "itemKey", s(authority), "owner", s(teamId)))
                    .conditionExpression("attribute_not_exists(itemKey) OR #o = :team")
                    .expressionAttributeNames(Map.of("#o", "owner"))
                    .expressionAttributeValues(Map.of(":team", s(teamId))).build());
            return true;
        } catch (ConditionalCheckFailedException ownedByAnother) {
            return false;
        }
    }

    /** The team that owns {@code authority} ({@code <host>:<port>}), if any ({@link #claimAddress}). */
    public Optional<String> addressOwner(String authority) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.registry())
                .key(Map.of("teamId", s(ADDRESS_OWNERS), "itemKey", s(authority))).consistentRead(true).build()).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item.get("owner").s());
    }

    /**
     * Gives up {@code teamId}'s ownership of {@code authority}: a delete conditional on the owner, so it never frees
     * another team's address. Nothing happens when the team does not own it.
     */
    public void releaseAddress(String teamId, String authority) {
        try {
            dynamoDb.deleteItem(DeleteItemRequest.builder().tableName(tables.registry())
                    .key(Map.of("teamId", s(ADDRESS_OWNERS), "itemKey", s(authority)))
                    .conditionExpression("#o = :team").expressionAttributeNames(Map.of("#o", "owner"))
                    .expressionAttributeValues(Map.of(":team", s(teamId))).build());
        } catch (ConditionalCheckFailedException notOurs) {
            // another team's, or nobody's: nothing to give up
        }
    }

    /** Registry item key prefix of when a service's extension last loaded the team's isolation document. */
    public static final String ISOLATION_LOAD_PREFIX = "isolation-load#";
    /** How often {@link #recordIsolationLoad} writes for one service at most, ms: the extensions refresh every few s. */
    static final long ISOLATION_LOAD_WRITE_EVERY_MS = 60_000;
    /** When this container last recorded each team's service ({@code <team>\n<service>} → epoch ms). */
    private final java.util.concurrent.ConcurrentMap<String, Long> isolationLoadsRecorded =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Records that an extension of the team's service {@code service} loaded the team's isolation document at
     * {@code atMs} (epoch ms): item {@code isolation-load#<service>} with {@code atMs}, written at most once per
     * minute per service (an update conditional on the stored time being older). A write whose condition fails is
     * still charged, so this container also skips the write when it recorded the service less than a minute ago: a
     * service costs at most one write a minute per warm API container, whatever its number of JVMs (300 JVMs
     * refreshing every 30 s through 10 containers: 10 writes a minute, where a write per fetch would be 600).
     */
    public void recordIsolationLoad(String teamId, String service, long atMs) {
        String key = teamId + "\n" + service;
        Long last = isolationLoadsRecorded.get(key);
        if (last != null && atMs - last < ISOLATION_LOAD_WRITE_EVERY_MS) {
            return;
        }
        isolationLoadsRecorded.put(key, atMs);
        try {
            dynamoDb.updateItem(UpdateItemRequest.builder().tableName(tables.registry())
                    .key(Map.of("teamId", s(teamId), "itemKey", s(ISOLATION_LOAD_PREFIX + service)))
                    .updateExpression("SET atMs = :at")
                    .conditionExpression("attribute_not_exists(atMs) OR atMs < :before")
                    .expressionAttributeValues(Map.of(":at", n(atMs), ":before", n(atMs - ISOLATION_LOAD_WRITE_EVERY_MS)))
                    .build());
        } catch (ConditionalCheckFailedException recent) {
            // recorded less than a minute ago
        }
    }

    /** When an extension of the team's {@code service} last loaded its isolation document, epoch ms, if ever. */
    public Optional<Long> isolationLoadedAtMs(String teamId, String service) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.registry())
                .key(Map.of("teamId", s(teamId), "itemKey", s(ISOLATION_LOAD_PREFIX + service))).consistentRead(true)
                .build()).item();
        return item == null || !item.containsKey("atMs") ? Optional.empty() : Optional.of(Long.parseLong(item.get("atMs").n()));
    }

    /** The team's registered service with this name. */
    public Optional<RegisteredService> getService(String teamId, String name) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.registry())
                .key(Map.of("teamId", s(teamId), "itemKey", s("service#" + name))).consistentRead(true).build()).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Json.read(item.get("doc").s(), RegisteredService.class));
    }

    /** All services the team registered, by name. */
    public List<RegisteredService> listServices(String teamId) {
        List<RegisteredService> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(tables.registry())
                        .keyConditionExpression("teamId = :t AND begins_with(itemKey, :p)")
                        .expressionAttributeValues(Map.of(":t", s(teamId), ":p", s("service#"))).build())
                .items().forEach(i -> out.add(Json.read(i.get("doc").s(), RegisteredService.class)));
        return out;
    }

    /** Registry item key of the team's {@link EvidenceSources}. */
    public static final String EVIDENCE_SOURCES_KEY = "evidence#sources";

    /** Stores (replaces) the team's evidence sources (item key {@value #EVIDENCE_SOURCES_KEY}). */
    public void putEvidenceSources(EvidenceSources sources) {
        putRegistryDoc(sources.teamId(), EVIDENCE_SOURCES_KEY, sources);
    }

    /** Every team's evidence sources (a scan of the registry: alarm-event scale, not request scale). */
    public List<EvidenceSources> allEvidenceSources() {
        List<EvidenceSources> out = new ArrayList<>();
        dynamoDb.scanPaginator(ScanRequest.builder().tableName(tables.registry())
                        .filterExpression("itemKey = :k").expressionAttributeValues(Map.of(":k", s(EVIDENCE_SOURCES_KEY))).build())
                .items().forEach(i -> out.add(Json.read(i.get("doc").s(), EvidenceSources.class)));
        return out;
    }

    /** The team's evidence sources; {@link EvidenceSources#none} when it registered none. */
    public EvidenceSources evidenceSources(String teamId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.registry())
                .key(Map.of("teamId", s(teamId), "itemKey", s(EVIDENCE_SOURCES_KEY))).consistentRead(true).build()).item();
        if (item == null || item.isEmpty()) {
            return EvidenceSources.none(teamId);
        }
        return Json.read(item.get("doc").s(), EvidenceSources.class);
    }

    // ------------------------------------------------------------------ runs

    /** Creates a run item in status {@code STARTING}; throws {@link ConditionalCheckFailedException} if it exists. */
    public void createRun(Run run) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(tables.runs()).item(runItem(run))
                .conditionExpression("attribute_not_exists(runId)").build());
    }

    /** The run with this id, whatever its team. */
    public Optional<Run> getRun(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.runs())
                .key(Map.of("runId", s(runId))).consistentRead(true).build()).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Run(str(item, "runId"), str(item, "planId"), str(item, "teamId"), str(item, "status"),
                str(item, "outcome"), str(item, "stage"), (int) num(item, "stepIndex", -1), num(item, "createdAtMs", 0),
                item.containsKey("abortRequested") && Boolean.TRUE.equals(item.get("abortRequested").bool()),
                str(item, "abortReason"), str(item, "executionArn")));
    }

    /**
     * The services a run leased: its item's {@code leasedServices} (comma-separated, {@code RunLeases}); empty for an
     * unknown run or one that leased none.
     */
    public List<String> leasedServices(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.runs())
                .key(Map.of("runId", s(runId))).projectionExpression("leasedServices").consistentRead(true).build()).item();
        String leased = item == null || !item.containsKey("leasedServices") ? "" : item.get("leasedServices").s();
        return leased == null || leased.isEmpty() ? List.of() : List.of(leased.split(","));
    }

    /**
     * The plan version a run started with: its item's {@code planVersion}; 1 for an unknown run or one stored before
     * plans had versions.
     */
    public long planVersion(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables.runs())
                .key(Map.of("runId", s(runId))).projectionExpression("planVersion").consistentRead(true).build()).item();
        return item == null ? 1 : num(item, "planVersion", 1);
    }

    /** The run with this id if it belongs to {@code teamId}. */
    public Optional<Run> getRun(String teamId, String runId) {
        return getRun(runId).filter(r -> r.teamId().equals(teamId));
    }

    /**
     * Sets attributes of an existing run (e.g. {@code status}, {@code stage}, {@code stepIndex}, {@code outcome}).
     * Values are strings, numbers or booleans. Throws {@link ConditionalCheckFailedException} for an unknown run.
     */
    public void updateRun(String runId, Map<String, Object> attributes) {
        updateRun(runId, attributes, "attribute_exists(runId)", Map.of());
    }

    /**
     * Sets attributes of a run only while its {@code status} is {@code expectedStatus} (one conditional write: of two
     * callers moving a run out of that status, exactly one succeeds).
     *
     * @return false when the run is absent or in another status (nothing written)
     */
    public boolean updateRunIfStatus(String runId, String expectedStatus, Map<String, Object> attributes) {
        try {
            updateRun(runId, attributes, "#status = :expected", Map.of(":expected", s(expectedStatus)));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private void updateRun(String runId, Map<String, Object> attributes, String condition,
                           Map<String, AttributeValue> conditionValues) {
        StringBuilder expr = new StringBuilder("SET ");
        Map<String, String> names = new HashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        int i = 0;
        for (var e : attributes.entrySet()) {
            if (i > 0) {
                expr.append(", ");
            }
            expr.append("#a").append(i).append(" = :v").append(i);
            names.put("#a" + i, e.getKey());
            values.put(":v" + i, attr(e.getValue()));
            i++;
        }
        values.putAll(conditionValues);
        if (!conditionValues.isEmpty()) {
            names.put("#status", "status");
        }
        dynamoDb.updateItem(UpdateItemRequest.builder().tableName(tables.runs()).key(Map.of("runId", s(runId)))
                .conditionExpression(condition).updateExpression(expr.toString())
                .expressionAttributeNames(names).expressionAttributeValues(values).build());
    }

    private static Map<String, AttributeValue> runItem(Run run) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("runId", s(run.runId()));
        item.put("planId", s(run.planId()));
        item.put("teamId", s(run.teamId()));
        item.put("status", s(run.status()));
        item.put("outcome", s(run.outcome()));
        item.put("stage", s(run.stage()));
        item.put("stepIndex", n(run.stepIndex()));
        item.put("createdAtMs", n(run.createdAtMs()));
        item.put("abortRequested", AttributeValue.fromBool(run.abortRequested()));
        if (!run.abortReason().isEmpty()) {
            item.put("abortReason", s(run.abortReason())); // absent until set: RunFlags keeps the first reason
        }
        item.put("executionArn", s(run.executionArn()));
        return item;
    }

    private static AttributeValue attr(Object v) {
        if (v instanceof Boolean b) {
            return AttributeValue.fromBool(b);
        }
        if (v instanceof Number num) {
            return AttributeValue.fromN(num.toString());
        }
        return s(String.valueOf(v));
    }

    static AttributeValue s(String v) {
        return AttributeValue.fromS(v == null ? "" : v);
    }

    static AttributeValue n(long v) {
        return AttributeValue.fromN(Long.toString(v));
    }

    private static String str(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null || v.s() == null ? "" : v.s();
    }

    private static long num(Map<String, AttributeValue> item, String name, long fallback) {
        AttributeValue v = item.get(name);
        return v == null || v.n() == null ? fallback : Long.parseLong(v.n());
    }
}
