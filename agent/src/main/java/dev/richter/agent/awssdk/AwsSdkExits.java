package dev.richter.agent.awssdk;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
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
 * tables, SQS queue URLs, SNS topics, S3 objects ({@link S3Objects}), EventBridge buses, Kinesis streams), the request
 * is rebuilt with each mapped target replaced by its shadow, and the call then
 * runs in a context naming the decided client {@code aws-sdk}, so that the SDK's own HTTP client (whichever it is) and
 * its connections pass the HTTP guards and the network catch-all; a refused call is never started and fails with the
 * SDK's own {@link SdkClientException} naming the target and the rule. Unmarked calls are not looked at. The request is
 * read and rebuilt through the SDK's generic model API ({@link SdkPojo#sdkFields()}, {@link SdkField#set}), so no
 * service module is named here. Injected by the agent as a helper next to the SDK's {@code sdk-core}; no lambdas.
 */
public final class AwsSdkExits {
    /** The package prefix of every service's model: {@code software.amazon.awssdk.services.<service>.model}. */
    static final String SERVICES = "software.amazon.awssdk.services.";
    /**
     * Per service, the members of a request, or of a structure in it, that name one target: DynamoDB's {@code
     * TableName}, SQS's {@code QueueUrl}, SNS's {@code TopicArn} and {@code TargetArn}, EventBridge's {@code
     * EventBusName}, Kinesis's {@code StreamName} and {@code StreamARN}.
     */
    static final Map<String, Set<String>> TARGET_MEMBERS = members("dynamodb", set("TableName"), "sqs", set("QueueUrl"),
            "sns", set("TopicArn", "TargetArn"), "eventbridge", set("EventBusName"),
            "kinesis", set("StreamName", "StreamARN"));
    /** The DynamoDB member whose map keys are table names ({@code BatchWriteItem}, {@code BatchGetItem}). */
    static final String TABLE_KEYED = "RequestItems";
    /**
     * Per service, the members holding structures that name targets: DynamoDB's transaction items ({@code
     * TransactWriteItems}, {@code TransactGetItems}), EventBridge's {@code PutEvents} entries.
     */
    static final Map<String, Set<String>> NESTED = members("dynamodb", set("TransactItems", "Put", "Update", "Delete",
            "ConditionCheck", "Get"), "eventbridge", set("Entries"));
    /** The bus an EventBridge entry naming none goes to: asked, and rewritten, as this name. */
    static final String DEFAULT_BUS = "default";
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
            List<String[]> asks = asks(service, operation, input);
            Map<String, String> renames = new LinkedHashMap<>();
            List<String> shadowTargets = new ArrayList<>();
            ExitDecision verdict = ExitDecision.PASS;
            for (String[] ask : asks) {
                String target = ask[1];
                ShadowDecision d = guard.decideAwsSdk(service, ask[0], target);
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
                Object rewritten = service.equals(S3Objects.SERVICE) ? S3Objects.rewrite(input, renames)
                        : rewrite(service, input, renames, 0);
                ((ClientExecutionParams) params).withInput((SdkRequest) rewritten);
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
     * What to ask the guard about a request, each {@code {operation, target}} once, in order: S3's objects ({@link
     * S3Objects#asks}), else every target {@link #targets} finds, with the call's operation; one {@code {operation,
     * ""}} when it names none.
     */
    static List<String[]> asks(String service, String operation, SdkRequest request) {
        List<String[]> asks = new ArrayList<>();
        if (service.equals(S3Objects.SERVICE)) {
            asks.addAll(S3Objects.asks(operation, request));
        } else {
            for (String target : targets(service, request)) {
                asks.add(new String[] {operation, target});
            }
        }
        if (asks.isEmpty()) {
            asks.add(new String[] {operation, ""});
        }
        return asks;
    }

    /**
     * The targets a request of {@code service} names, each once, in order: every {@link #TARGET_MEMBERS} text (an
     * EventBridge entry's absent bus as {@link #DEFAULT_BUS}), the keys of {@link #TABLE_KEYED}, in the request and
     * the structures of {@link #NESTED}.
     */
    static List<String> targets(String service, SdkRequest request) {
        List<String> out = new ArrayList<>();
        collect(service, request, out, 0);
        return out;
    }

    private static void collect(String service, Object pojo, List<String> out, int depth) {
        if (!(pojo instanceof SdkPojo) || depth >= MAX_DEPTH) {
            return;
        }
        for (SdkField<?> f : ((SdkPojo) pojo).sdkFields()) {
            String member = f.memberName();
            if (isTargetMember(service, member)) {
                Object v = target(service, member, f.getValueOrDefault(pojo));
                if (v instanceof String && !out.contains(v)) {
                    out.add((String) v);
                }
            } else if (TABLE_KEYED.equals(member) && service.equals("dynamodb")) {
                Object v = f.getValueOrDefault(pojo);
                if (v instanceof Map) {
                    for (Object key : ((Map<?, ?>) v).keySet()) {
                        if (key instanceof String && !out.contains(key)) {
                            out.add((String) key);
                        }
                    }
                }
            } else if (isNested(service, member)) {
                Object v = f.getValueOrDefault(pojo);
                if (v instanceof List) {
                    for (Object item : (List<?>) v) {
                        collect(service, item, out, depth + 1);
                    }
                } else {
                    collect(service, v, out, depth + 1);
                }
            }
        }
    }

    private static boolean isTargetMember(String service, String member) {
        Set<String> members = TARGET_MEMBERS.get(service);
        return members != null && members.contains(member);
    }

    private static boolean isNested(String service, String member) {
        Set<String> members = NESTED.get(service);
        return members != null && members.contains(member);
    }

    /** A target member's value as asked: an EventBridge entry's absent {@code EventBusName} is {@link #DEFAULT_BUS}. */
    private static Object target(String service, String member, Object value) {
        return value == null && service.equals("eventbridge") && member.equals("EventBusName") ? DEFAULT_BUS : value;
    }

    /**
     * {@code pojo} rebuilt ({@code toBuilder()}, {@link SdkField#set}, {@code build()}) with every target named in
     * {@code renames} replaced, where {@link #targets} found it; the same object when nothing in it changed.
     */
    static Object rewrite(String service, Object pojo, Map<String, String> renames, int depth) {
        if (!(pojo instanceof SdkPojo) || !(pojo instanceof ToCopyableBuilder) || depth >= MAX_DEPTH) {
            return pojo;
        }
        Object builder = null;
        for (SdkField<?> f : ((SdkPojo) pojo).sdkFields()) {
            String member = f.memberName();
            Object v = f.getValueOrDefault(pojo);
            Object asked = isTargetMember(service, member) ? target(service, member, v) : v;
            Object changed = v;
            if (isTargetMember(service, member) && asked instanceof String && renames.containsKey(asked)) {
                changed = renames.get(asked);
            } else if (TABLE_KEYED.equals(member) && service.equals("dynamodb") && v instanceof Map) {
                changed = renamedKeys((Map<?, ?>) v, renames);
            } else if (isNested(service, member) && v instanceof List) {
                changed = rewrittenItems(service, (List<?>) v, renames, depth);
            } else if (isNested(service, member)) {
                changed = rewrite(service, v, renames, depth + 1);
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
    private static Object rewrittenItems(String service, List<?> items, Map<String, String> renames, int depth) {
        boolean any = false;
        List<Object> out = new ArrayList<Object>(items.size());
        for (Object item : items) {
            Object rewritten = rewrite(service, item, renames, depth + 1);
            any |= rewritten != item;
            out.add(rewritten);
        }
        return any ? out : items;
    }

    static Set<String> set(String... names) {
        return Collections.unmodifiableSet(new HashSet<String>(Arrays.asList(names)));
    }

    /** {@code service, members, service, members, ...} as a map. */
    private static Map<String, Set<String>> members(Object... pairs) {
        Map<String, Set<String>> out = new HashMap<String, Set<String>>();
        for (int i = 0; i < pairs.length; i += 2) {
            @SuppressWarnings("unchecked")
            Set<String> members = (Set<String>) pairs[i + 1];
            out.put((String) pairs[i], members);
        }
        return Collections.unmodifiableMap(out);
    }
}
