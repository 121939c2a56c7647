package dev.richter.agent.awssdk;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.client.handler.ClientExecutionParams;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.utils.builder.SdkBuilder;
import software.amazon.awssdk.utils.builder.ToCopyableBuilder;

/**
 * The isolation at the AWS SDK for Java v2's client handler ({@code BaseSyncClientHandler.execute} and {@code
 * BaseAsyncClientHandler.execute}, which every generated client of every service calls with its operation's name and
 * request; tested with 2.57.8): a marked call's targets are decided by the guard ({@code decideAwsSdk}: DynamoDB
 * tables, SQS queue URLs), the request is rebuilt with each mapped target replaced by its shadow, and the call then
 * runs in a context naming the decided client {@code aws-sdk}, so that the SDK's own HTTP client (whichever it is) and
 * its connections pass the HTTP guards and the network catch-all; a refused call is never started and fails with the
 * SDK's own {@link SdkClientException} naming the target and the rule. Unmarked calls are not looked at. The request is
 * read and rebuilt through the SDK's generic model API ({@link SdkPojo#sdkFields()}, {@link SdkField#set}), so no
 * service module is named here. Injected by the agent as a helper next to the SDK's {@code sdk-core}; no lambdas.
 */
public final class AwsSdkExits {
    /** The package prefix of every service's model: {@code software.amazon.awssdk.services.<service>.model}. */
    static final String SERVICES = "software.amazon.awssdk.services.";
    /** Members of a DynamoDB or SQS request, or of a structure in it, that name one table or queue. */
    static final Set<String> TARGET_MEMBERS = set("TableName", "QueueUrl");
    /** The DynamoDB member whose map keys are table names ({@code BatchWriteItem}, {@code BatchGetItem}). */
    static final String TABLE_KEYED = "RequestItems";
    /** Members holding structures that name tables ({@code TransactWriteItems}, {@code TransactGetItems}). */
    static final Set<String> NESTED = set("TransactItems", "Put", "Update", "Delete", "ConditionCheck", "Get");
    /** How deep a request's structures are walked: the request, a transaction item, its action. */
    private static final int MAX_DEPTH = 3;

    private AwsSdkExits() {}

    /**
     * Decides a call about to be executed; replaces {@code params}' input with its shadow form when a target is mapped.
     *
     * @param params the handler's argument: the operation's name and request
     * @return {@code null}: run the call as it is (unmarked); a {@code MarkerScope} (the bridge's): run it, then close
     *     the scope; an {@link SdkClientException}: fail the call with it, not started
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    public static Object beforeExecute(ClientExecutionParams<?, ?> params) {
        IsolationGuard guard = IsolationBridge.guard();
        if (params == null || !guard.marked()) {
            return null;
        }
        String service = "";
        String operation = "";
        try {
            SdkRequest input = params.getInput();
            service = service(input);
            operation = params.getOperationName() == null ? "" : params.getOperationName();
            List<String> targets = targets(input);
            if (targets.isEmpty()) {
                targets = Collections.singletonList("");
            }
            Map<String, String> renames = new LinkedHashMap<>();
            List<String> shadowTargets = new ArrayList<>();
            ExitDecision verdict = ExitDecision.PASS;
            for (String target : targets) {
                ShadowDecision d = guard.decideAwsSdk(service, operation, target);
                if (d.refused()) {
                    guard.record(d);
                    return SdkClientException.create(d.refusal());
                }
                if (d.rewritten().isPresent() && !d.rewritten().get().equals(target)) {
                    renames.put(target, d.rewritten().get());
                }
                if (!d.shadowTarget().isEmpty() && !shadowTargets.contains(d.shadowTarget())) {
                    shadowTargets.add(d.shadowTarget());
                }
                if (verdict instanceof ExitDecision.Pass) {
                    verdict = d.verdict();
                }
            }
            if (!renames.isEmpty() && input != null) {
                ((ClientExecutionParams) params).withInput((SdkRequest) rewrite(input, renames, 0));
            }
            guard.record(new ShadowDecision(Optional.<String>empty(), String.join(",", shadowTargets), verdict));
            return guard.decidedClient("aws-sdk");
        } catch (RuntimeException | LinkageError e) {
            ShadowDecision refusal = ShadowDecision.refuse(service + " " + operation,
                    "isolation failed to decide (" + e + ")");
            guard.record(refusal);
            return SdkClientException.create(refusal.refusal());
        }
    }

    /** A future failed with {@code refusal}: what a refused call of an async client answers. */
    public static CompletableFuture<Object> failed(Throwable refusal) {
        CompletableFuture<Object> future = new CompletableFuture<Object>();
        future.completeExceptionally(refusal);
        return future;
    }

    /**
     * The service of a request, from its model package ({@code software.amazon.awssdk.services.dynamodb.model.
     * PutItemRequest} → {@code dynamodb}); {@code ""} for a request of no generated service.
     */
    static String service(SdkRequest request) {
        if (request == null) {
            return "";
        }
        String name = request.getClass().getName();
        if (!name.startsWith(SERVICES)) {
            return "";
        }
        int end = name.indexOf('.', SERVICES.length());
        return end < 0 ? "" : name.substring(SERVICES.length(), end);
    }

    /**
     * The tables or queues a request names, each once, in order: every {@link #TARGET_MEMBERS} text, the keys of
     * {@link #TABLE_KEYED}, in the request and the structures of {@link #NESTED} (a transaction's items).
     */
    static List<String> targets(SdkRequest request) {
        List<String> out = new ArrayList<>();
        collect(request, out, 0);
        return out;
    }

    private static void collect(Object pojo, List<String> out, int depth) {
        if (!(pojo instanceof SdkPojo) || depth >= MAX_DEPTH) {
            return;
        }
        for (SdkField<?> f : ((SdkPojo) pojo).sdkFields()) {
            String member = f.memberName();
            if (TARGET_MEMBERS.contains(member)) {
                Object v = f.getValueOrDefault(pojo);
                if (v instanceof String && !out.contains(v)) {
                    out.add((String) v);
                }
            } else if (TABLE_KEYED.equals(member)) {
                Object v = f.getValueOrDefault(pojo);
                if (v instanceof Map) {
                    for (Object key : ((Map<?, ?>) v).keySet()) {
                        if (key instanceof String && !out.contains(key)) {
                            out.add((String) key);
                        }
                    }
                }
            } else if (NESTED.contains(member)) {
                Object v = f.getValueOrDefault(pojo);
                if (v instanceof List) {
                    for (Object item : (List<?>) v) {
                        collect(item, out, depth + 1);
                    }
                } else {
                    collect(v, out, depth + 1);
                }
            }
        }
    }

    /**
     * {@code pojo} rebuilt ({@code toBuilder()}, {@link SdkField#set}, {@code build()}) with every target named in
     * {@code renames} replaced, where {@link #targets} found it; the same object when nothing in it changed.
     */
    static Object rewrite(Object pojo, Map<String, String> renames, int depth) {
        if (!(pojo instanceof SdkPojo) || !(pojo instanceof ToCopyableBuilder) || depth >= MAX_DEPTH) {
            return pojo;
        }
        Object builder = null;
        for (SdkField<?> f : ((SdkPojo) pojo).sdkFields()) {
            String member = f.memberName();
            Object v = f.getValueOrDefault(pojo);
            Object changed = v;
            if (TARGET_MEMBERS.contains(member) && v instanceof String && renames.containsKey(v)) {
                changed = renames.get(v);
            } else if (TABLE_KEYED.equals(member) && v instanceof Map) {
                changed = renamedKeys((Map<?, ?>) v, renames);
            } else if (NESTED.contains(member) && v instanceof List) {
                changed = rewrittenItems((List<?>) v, renames, depth);
            } else if (NESTED.contains(member)) {
                changed = rewrite(v, renames, depth + 1);
            }
            if (changed != v) {
                if (builder == null) {
                    builder = ((ToCopyableBuilder<?, ?>) pojo).toBuilder();
                }
                f.set(builder, changed);
            }
        }
        return builder == null ? pojo : ((SdkBuilder<?, ?>) builder).build();
    }

    /** {@code map} with its keys renamed, in order; the same map when no key is. */
    private static Object renamedKeys(Map<?, ?> map, Map<String, String> renames) {
        boolean any = false;
        Map<Object, Object> out = new LinkedHashMap<Object, Object>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String to = e.getKey() instanceof String ? renames.get(e.getKey()) : null;
            any |= to != null;
            out.put(to != null ? to : e.getKey(), e.getValue());
        }
        return any ? out : map;
    }

    /** {@code items} each rewritten; the same list when none changed. */
    private static Object rewrittenItems(List<?> items, Map<String, String> renames, int depth) {
        boolean any = false;
        List<Object> out = new ArrayList<Object>(items.size());
        for (Object item : items) {
            Object rewritten = rewrite(item, renames, depth + 1);
            any |= rewritten != item;
            out.add(rewritten);
        }
        return any ? out : items;
    }

    private static Set<String> set(String... names) {
        return Collections.unmodifiableSet(new HashSet<String>(Arrays.asList(names)));
    }
}
