package dev.richter.runs;

import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.TargetAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * One run per target: a run holds a lease on each service it touches (its scenarios' services and its core modules)
 * and on each network address they load, from its start until its end, so a second run touching any of them is
 * refused while the first runs.
 *
 * <p>Two kinds of lease, both named in a run's {@code leasedServices}:
 * <ul>
 *   <li>a <b>service</b> lease, named by the service ({@code order}), keyed {@code <teamId>#service#<name>}: the team's
 *       own registry entry is in use (a service or plan being changed or deleted is refused while it is held);</li>
 *   <li>a <b>target</b> lease, named {@code target:<host>:<port>} ({@link #targetLease}), keyed
 *       {@code target#<host>:<port>} for every team at once: the address a registered {@code baseUrl} loads, normalised
 *       by {@link TargetAddress}. Two services, of one team or of two, that name the same socket
 *       ({@code http://127.0.0.1:8080} and {@code http://127.0.0.1:8080/v2}) cannot be loaded at once. A service name
 *       never contains {@code :}, so the two kinds never share a name.</li>
 * </ul>
 *
 * <p>Storage: the leases table ({@code TableNames.leases()}), one item per lease, with {@code runId}, {@code planId},
 * {@code teamId}, {@code acquiredAtMs} and {@code expiresAt} (epoch seconds, also the table's TTL attribute). A lease
 * is taken with a conditional put that succeeds only when no live lease exists
 * ({@code attribute_not_exists(leaseKey) OR expiresAt < :now}) and released with a conditional delete on the holder's
 * {@code runId}. The holder's team is stored so that a refusal can be worded for the caller: another team is told the
 * target is in use, never which run holds it ({@link Lease#sameTeam}).
 *
 * <p>All or nothing, without transactions: the local DynamoDB (dynalite) has no {@code TransactWriteItems}, so the
 * leases of a run are taken one by one in name order and, when one is held, the ones already taken are deleted again
 * before the {@link LeaseHeldException} is thrown. Between two puts another run may see a half-taken set and be
 * refused too (both callers then get a 409 and may retry); it can never see two runs both holding a lease. On AWS
 * a single {@code TransactWriteItems} of the same conditional puts (up to 100 items) would make the set atomic; the
 * one-by-one form is kept so that both stacks run the same code.
 *
 * <p>Expiry is the safety net for a run whose release never ran (an execution stopped from the console, a timed-out
 * execution): {@link #expiresAtEpochS} gives the lease the plan's whole planned duration plus generous margins. The
 * state machine releases the leases on every path it controls (after the report, and when the report fails).
 *
 * <p>The same table keeps the {@code Idempotency-Key}s of run starts ({@code <teamId>#idempotency#<planId>#<key>} →
 * {@code runId}, kept {@link #IDEMPOTENCY_TTL_S} seconds).
 */
public final class RunLeases {
    /** Time a lease is kept beyond the plan's summed step durations, seconds: checks, data construction, report. */
    public static final long LEASE_MARGIN_S = 30 * 60;
    /** Time added per step for worker launch lead and drain, seconds. */
    public static final long PER_STEP_MARGIN_S = 60;
    /** How long an {@code Idempotency-Key} names its run, seconds (24 h). */
    public static final long IDEMPOTENCY_TTL_S = 24 * 3600;

    /** The name prefix of a target lease ({@link #targetLease}). */
    public static final String TARGET_PREFIX = "target:";

    /**
     * A live lease.
     *
     * @param service         the lease's name: a service, or {@code target:<host>:<port>}
     * @param runId           the run holding it
     * @param planId          that run's plan
     * @param teamId          that run's team; empty for a lease stored without one
     * @param expiresAtEpochS when it lapses by itself, epoch seconds
     */
    public record Lease(String service, String runId, String planId, String teamId, long expiresAtEpochS) {
        /** True when {@code callerTeam} holds it: only then may the run and plan be named to the caller. */
        public boolean sameTeam(String callerTeam) {
            return teamId.equals(callerTeam);
        }

        /** True for a target lease ({@code target:<host>:<port>}). */
        public boolean isTarget() {
            return service.startsWith(TARGET_PREFIX);
        }
    }

    /** A service another run holds; {@link #held()} names it and the run. */
    public static final class LeaseHeldException extends RuntimeException {
        private final Lease held;

        public LeaseHeldException(Lease held) {
            super("'" + held.service() + "' is in use by run " + held.runId() + " (plan " + held.planId() + ", team "
                    + held.teamId() + ")");
            this.held = held;
        }

        public Lease held() {
            return held;
        }
    }

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final Clock clock;

    /**
     * @param dynamoDb DynamoDB client
     * @param table    the leases table
     * @param clock    the time leases are compared with
     */
    public RunLeases(DynamoDbClient dynamoDb, String table, Clock clock) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.clock = clock;
    }

    /** The name of the target lease on {@code address}: {@code target:<host>:<port>}. */
    public static String targetLease(TargetAddress address) {
        return TARGET_PREFIX + address.authority();
    }

    /**
     * The leases a run of {@code plan} takes: {@link #targets(Plan)} and the target lease of each of
     * {@code services}' {@code baseUrl}, each once, in name order.
     *
     * @param services the plan's registered services ({@code PlanValidator#services})
     * @throws IllegalArgumentException when a {@code baseUrl} is not a loadable URL ({@link TargetAddress#of})
     */
    public static List<String> leases(Plan plan, Collection<RegisteredService> services) {
        TreeSet<String> names = new TreeSet<>(targets(plan));
        services.forEach(s -> names.add(targetLease(TargetAddress.of(s.baseUrl()))));
        return List.copyOf(names);
    }

    /** Every service a run of {@code plan} touches (scenario services and core modules), in name order. */
    public static List<String> targets(Plan plan) {
        TreeSet<String> names = new TreeSet<>();
        plan.scenarios().forEach(s -> names.add(s.service()));
        names.addAll(plan.coreModules());
        return List.copyOf(names);
    }

    /**
     * When a lease for a run of {@code plan} started at {@code nowMs} lapses, epoch seconds: now + the warm-up (when
     * on), pre-test and formal durations (the confirm slot's bound included, {@link Plan#formalSlots()}) + {@value #PER_STEP_MARGIN_S} s per step + {@value #LEASE_MARGIN_S} s.
     */
    public static long expiresAtEpochS(Plan plan, long nowMs) {
        long seconds = plan.preTest().durationS() + PER_STEP_MARGIN_S;
        for (Plan.StepSpec rung : plan.warmUpSteps()) {
            seconds += rung.durationS() + PER_STEP_MARGIN_S;
        }
        for (Plan.StepSpec step : plan.formalSlots()) {
            seconds += step.durationS() + PER_STEP_MARGIN_S;
        }
        return nowMs / 1000 + seconds + LEASE_MARGIN_S;
    }

    /**
     * Takes every one of the leases {@code services} (service names and {@code target:} names) for {@code runId},
     * all or none.
     *
     * @throws LeaseHeldException naming the first lease (in name order) another live run holds; no lease of this
     *                            call is left behind
     */
    public void acquire(String teamId, String runId, String planId, Collection<String> services, long expiresAtEpochS) {
        List<String> taken = new ArrayList<>();
        try {
            for (String service : new TreeSet<>(services)) {
                take(teamId, service, runId, planId, expiresAtEpochS);
                taken.add(service);
            }
        } catch (RuntimeException e) {
            release(teamId, runId, taken);
            throw e;
        }
    }

    private void take(String teamId, String service, String runId, String planId, long expiresAtEpochS) {
        for (int attempt = 0; ; attempt++) {
            long nowS = clock.millis() / 1000;
            try {
                dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                                "leaseKey", AttributeValue.fromS(leaseKey(teamId, service)),
                                "runId", AttributeValue.fromS(runId), "planId", AttributeValue.fromS(planId),
                                "teamId", AttributeValue.fromS(teamId),
                                "acquiredAtMs", AttributeValue.fromN(Long.toString(clock.millis())),
                                "expiresAt", AttributeValue.fromN(Long.toString(expiresAtEpochS))))
                        .conditionExpression("attribute_not_exists(leaseKey) OR expiresAt < :now")
                        .expressionAttributeValues(Map.of(":now", AttributeValue.fromN(Long.toString(nowS)))).build());
                return;
            } catch (ConditionalCheckFailedException held) {
                Optional<Lease> holder = holder(teamId, service);
                if (holder.isPresent()) {
                    throw new LeaseHeldException(holder.get());
                }
                if (attempt >= 2) { // released or lapsed between the put and the read, three times over: give up
                    throw new LeaseHeldException(new Lease(service, "(a run that just ended)", "", "", nowS));
                }
            }
        }
    }

    /**
     * Releases {@code runId}'s leases on {@code services}; a lease another run holds (ours lapsed and was taken) is
     * left alone. Idempotent.
     *
     * @return the services whose lease this call deleted
     */
    public List<String> release(String teamId, String runId, Collection<String> services) {
        List<String> released = new ArrayList<>();
        for (String service : services) {
            try {
                dynamoDb.deleteItem(DeleteItemRequest.builder().tableName(table)
                        .key(Map.of("leaseKey", AttributeValue.fromS(leaseKey(teamId, service))))
                        .conditionExpression("runId = :r").expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId)))
                        .build());
                released.add(service);
            } catch (ConditionalCheckFailedException notOurs) {
                // absent, or held by another run
            }
        }
        return released;
    }

    /** The live (unexpired) lease on the team's {@code service}, or on a target ({@code target:<host>:<port>}). */
    public Optional<Lease> holder(String teamId, String service) {
        Map<String, AttributeValue> item = get(leaseKey(teamId, service));
        if (item == null || Long.parseLong(item.get("expiresAt").n()) < clock.millis() / 1000) {
            return Optional.empty();
        }
        String holderTeam = item.containsKey("teamId") ? item.get("teamId").s() : "";
        return Optional.of(new Lease(service, item.get("runId").s(), item.get("planId").s(), holderTeam,
                Long.parseLong(item.get("expiresAt").n())));
    }

    /**
     * Binds an {@code Idempotency-Key} of {@code POST /plans/{planId}/runs} to {@code runId}, unless the key is bound.
     *
     * @return empty when this call bound it; else the run id it names
     */
    public Optional<String> bindIdempotencyKey(String teamId, String planId, String key, String runId) {
        String k = idempotencyKey(teamId, planId, key);
        long nowS = clock.millis() / 1000;
        try {
            dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                            "leaseKey", AttributeValue.fromS(k), "runId", AttributeValue.fromS(runId),
                            "planId", AttributeValue.fromS(planId),
                            "expiresAt", AttributeValue.fromN(Long.toString(nowS + IDEMPOTENCY_TTL_S))))
                    .conditionExpression("attribute_not_exists(leaseKey) OR expiresAt < :now")
                    .expressionAttributeValues(Map.of(":now", AttributeValue.fromN(Long.toString(nowS)))).build());
            return Optional.empty();
        } catch (ConditionalCheckFailedException bound) {
            Map<String, AttributeValue> item = get(k);
            return Optional.of(item == null ? runId : item.get("runId").s());
        }
    }

    /** Unbinds an {@code Idempotency-Key} bound to {@code runId} (the start failed: a retry may start a run). */
    public void unbindIdempotencyKey(String teamId, String planId, String key, String runId) {
        try {
            dynamoDb.deleteItem(DeleteItemRequest.builder().tableName(table)
                    .key(Map.of("leaseKey", AttributeValue.fromS(idempotencyKey(teamId, planId, key))))
                    .conditionExpression("runId = :r").expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId)))
                    .build());
        } catch (ConditionalCheckFailedException notOurs) {
            // unbound already, or bound to another run
        }
    }

    private Map<String, AttributeValue> get(String key) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(table)
                .key(Map.of("leaseKey", AttributeValue.fromS(key))).consistentRead(true).build()).item();
        return item == null || item.isEmpty() ? null : new LinkedHashMap<>(item);
    }

    /** {@code target#<host>:<port>} for a target lease (every team's), {@code <teamId>#service#<name>} otherwise. */
    static String leaseKey(String teamId, String name) {
        return name.startsWith(TARGET_PREFIX) ? "target#" + name.substring(TARGET_PREFIX.length())
                : teamId + "#service#" + name;
    }

    static String idempotencyKey(String teamId, String planId, String key) {
        return teamId + "#idempotency#" + planId + "#" + key;
    }
}
