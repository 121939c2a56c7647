package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The isolation's rule for a marked call made with the AWS SDK for Java v2 (issue 40), one named target at a time: a
 * DynamoDB table ({@code kind: dynamodb}), an SQS queue ({@code kind: queue}), an SNS topic, an S3 object, an
 * EventBridge bus or a Kinesis stream ({@link AwsShadows}' kinds) of the document's {@code shadows}. The
 * SDK's helper ({@code dev.richter.agent.awssdk.AwsSdkExits}) finds the targets in the request and asks once per
 * target, or once with {@code ""} when the request names none. In this order:
 * <ol>
 *   <li><b>DynamoDB</b> (service {@code dynamodb}):
 *     <ul>
 *       <li>an item operation ({@link #DYNAMODB_TABLE_OPERATIONS}: reads and writes alike) on a shadow table passes;
 *           on a mapped table it goes to the shadow (a table ARN keeps its form, the table's name replaced); on any
 *           other table it is refused. Reads go to the shadow too, so marked work reads back what it wrote, and
 *           never spends a production table's read capacity; an unmapped table's read is refused, unlike JDBC's
 *           reference reads: give the table a shadow (a copy) for marked work to read it;</li>
 *       <li>an operation naming no table ({@link #DYNAMODB_TABLELESS}: {@code ListTables}, {@code DescribeLimits},
 *           {@code DescribeEndpoints}) passes;</li>
 *       <li>any other (PartiQL statements, whose tables are in SQL text Richter does not read; table, backup, stream
 *           and tag administration) is refused.</li>
 *     </ul></li>
 *   <li><b>SQS</b> (service {@code sqs}): an operation on a queue ({@link #SQS_QUEUE_OPERATIONS}, by its {@code
 *       QueueUrl}: sends, receives, deletes, visibility changes, attributes read) on a shadow queue passes; on a
 *       mapped one it goes to the shadow (production and shadow named by the queue's name, the last segment of its
 *       URL, or by the whole URL); on any other it is refused (a receive consumes production's messages). {@code
 *       GetQueueUrl} and {@code ListQueues} pass; any other operation is refused.</li>
 *   <li><b>SNS, S3, EventBridge, Kinesis</b> ({@code sns}, {@code s3}, {@code eventbridge}, {@code kinesis}): their
 *       writes ({@code Publish}, {@code PutObject} and the other object writes, {@code PutEvents}, {@code
 *       PutRecord(s)}) and S3's object reads go to the shadow of their target; {@link AwsResourcePolicy} says how.</li>
 *   <li><b>Identity</b> ({@code sts}, {@code sso}, {@code ssooidc}): passes; it writes no data (credentials).</li>
 *   <li><b>Any other service</b> (SES, Step Functions, Firehose, ...): Richter has no shadow for it. An operation
 *       named {@code Get*}, {@code List*}, {@code Describe*} or {@code Head*} is a read and passes, as JDBC reads of
 *       reference tables do; any other is refused.</li>
 * </ol>
 * A refusal is an {@link ExitDecision.Refuse} naming the exit ({@code <service> <operation> <target>}) and the rule,
 * or, in {@link IsolationMode#REPORT}, an {@link ExitDecision.WouldRefuse}: the call is sent as it is (mapped targets
 * still go to their shadows). The caller decides unmarked calls and calls before the document loads; this class sees
 * marked ones only. Stateless.
 */
public final class AwsSdkPolicy {
    /** The name of the decided client the SDK's connections are made for ({@code IsolationGuard.decidedClient}). */
    public static final String CLIENT = "aws-sdk";

    /** DynamoDB operations on items of the tables they name: shadowed, or refused when a table has no shadow. */
    public static final Set<String> DYNAMODB_TABLE_OPERATIONS = set("PutItem", "UpdateItem", "DeleteItem", "GetItem",
            "Query", "Scan", "BatchWriteItem", "BatchGetItem", "TransactWriteItems", "TransactGetItems",
            "DescribeTable");
    /** DynamoDB operations that name no table and change nothing: passed. */
    public static final Set<String> DYNAMODB_TABLELESS = set("ListTables", "DescribeLimits", "DescribeEndpoints");
    /** SQS operations on the queue their {@code QueueUrl} names: shadowed, or refused when it has no shadow. */
    public static final Set<String> SQS_QUEUE_OPERATIONS = set("SendMessage", "SendMessageBatch", "ReceiveMessage",
            "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
            "GetQueueAttributes");
    /** SQS operations that name no queue by URL and change nothing: passed. */
    public static final Set<String> SQS_QUEUELESS = set("GetQueueUrl", "ListQueues");
    /** Services that hand out credentials and write no data: passed. */
    public static final Set<String> IDENTITY_SERVICES = set("sts", "sso", "ssooidc");

    private AwsSdkPolicy() {}

    /**
     * @param service   the SDK's service, as in its model package {@code software.amazon.awssdk.services.<service>},
     *                  e.g. {@code dynamodb}, {@code sqs}, {@code s3}
     * @param operation the operation's name as the SDK names it, e.g. {@code PutItem}
     * @param target    one table name (or table ARN) of a DynamoDB request, the {@code QueueUrl} of an SQS request, a
     *                  topic, {@code bucket/key}, bus or stream ({@link AwsResourcePolicy}); {@code ""} when the
     *                  request names none
     * @param shadows   the loaded document's shadows
     * @param mode      the loaded document's mode
     * @return untouched (with the target as {@code shadowTarget} when it is a shadow already), the shadow target to
     *     send instead, or a refusal naming the target and the rule
     */
    public static ShadowDecision decide(String service, String operation, String target, Shadows shadows,
                                        IsolationMode mode) {
        String exit = service + " " + operation + (target.isEmpty() ? "" : " " + target);
        if (service.equals("dynamodb")) {
            if (DYNAMODB_TABLE_OPERATIONS.contains(operation)) {
                return target.isEmpty() ? refuse(exit, "a marked DynamoDB " + operation + " whose table Richter cannot"
                        + " read", mode) : dynamoDbTable(exit, operation, target, shadows.dynamoDbTables(), mode);
            }
            if (DYNAMODB_TABLELESS.contains(operation) && target.isEmpty()) {
                return ShadowDecision.UNTOUCHED;
            }
            return refuse(exit, "a marked DynamoDB " + operation + ": Richter shadows DynamoDB's item operations only ("
                    + names(DYNAMODB_TABLE_OPERATIONS) + "; PartiQL statements are not read)", mode);
        }
        if (service.equals("sqs")) {
            if (SQS_QUEUE_OPERATIONS.contains(operation)) {
                return target.isEmpty() ? refuse(exit, "a marked SQS " + operation + " naming no queue URL", mode)
                        : queue(exit, operation, target, shadows.queues(), mode);
            }
            if (SQS_QUEUELESS.contains(operation)) {
                return ShadowDecision.UNTOUCHED;
            }
            return refuse(exit, "a marked SQS " + operation + ": Richter shadows the messages of mapped queues only ("
                    + names(SQS_QUEUE_OPERATIONS) + ")", mode);
        }
        if (AwsResourcePolicy.SERVICES.contains(service)) {
            return AwsResourcePolicy.decide(service, operation, target, shadows.aws(), mode);
        }
        if (IDENTITY_SERVICES.contains(service) || isRead(operation)) {
            return ShadowDecision.UNTOUCHED;
        }
        return refuse(exit, "a marked " + service + " " + operation + " through the AWS SDK: Richter has no shadow for "
                + service + " (it shadows DynamoDB tables, SQS queues, SNS topics, S3 objects, EventBridge buses and"
                + " Kinesis streams), so only its reads (Get*, List*, Describe*, Head*) pass", mode);
    }

    /** Whether an operation of a service without a shadow rule is a read by its name. */
    static boolean isRead(String operation) {
        return startsWithWord(operation, "Get") || startsWithWord(operation, "List")
                || startsWithWord(operation, "Describe") || startsWithWord(operation, "Head");
    }

    /** {@code GetObject} starts with the word {@code Get}; {@code Getaway} does not. */
    private static boolean startsWithWord(String operation, String word) {
        return operation.startsWith(word) && (operation.length() == word.length()
                || Character.isUpperCase(operation.charAt(word.length())));
    }

    private static ShadowDecision dynamoDbTable(String exit, String operation, String table, Map<String, String> map,
                                                IsolationMode mode) {
        // a table may be named by its ARN: arn:aws:dynamodb:<region>:<account>:table/<name>
        int at = table.startsWith("arn:") ? table.indexOf(":table/") : -1;
        String name = at < 0 ? table : table.substring(at + ":table/".length());
        if (name.indexOf('/') >= 0) {
            name = name.substring(0, name.indexOf('/'));
        }
        if (map.containsValue(name)) {
            return new ShadowDecision(Optional.empty(), table, ExitDecision.PASS);
        }
        String shadow = map.get(name);
        if (shadow != null) {
            String rewritten = at < 0 ? shadow : table.substring(0, at + ":table/".length()) + shadow
                    + table.substring(at + ":table/".length() + name.length());
            return ShadowDecision.shadow(rewritten, shadow);
        }
        return refuse(exit, "a marked DynamoDB " + operation + " on table '" + name + "', which has no shadow table"
                + " (kind dynamodb)", mode);
    }

    private static ShadowDecision queue(String exit, String operation, String url, Map<String, String> map,
                                        IsolationMode mode) {
        String name = lastSegment(url);
        for (String shadow : map.values()) {
            if (shadow.equals(url) || (!shadow.contains("/") && shadow.equals(name))) {
                return new ShadowDecision(Optional.empty(), shadow, ExitDecision.PASS);
            }
        }
        String shadow = map.containsKey(url) ? map.get(url) : map.get(name);
        if (shadow != null) {
            String rewritten = shadow.contains("://") ? shadow
                    : url.substring(0, url.length() - name.length()) + lastSegment(shadow);
            return ShadowDecision.shadow(rewritten, shadow);
        }
        return refuse(exit, "a marked SQS " + operation + " on queue '" + name + "', which has no shadow queue"
                + " (kind queue)", mode);
    }

    /** The queue's name: the URL's last path segment ({@code https://sqs.<region>.amazonaws.com/<account>/<name>}). */
    static String lastSegment(String url) {
        String u = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return u.substring(u.lastIndexOf('/') + 1);
    }

    static ShadowDecision refuse(String exit, String reason, IsolationMode mode) {
        return mode == IsolationMode.ENFORCE ? ShadowDecision.refuse(exit, reason)
                : new ShadowDecision(Optional.empty(), "", new ExitDecision.WouldRefuse(exit, reason));
    }

    static Set<String> set(String... names) {
        return Collections.unmodifiableSet(new HashSet<>(Arrays.asList(names)));
    }

    /** The operations, sorted, comma-separated: {@code "DeleteItem, GetItem, ..."}. */
    static String names(Set<String> operations) {
        java.util.List<String> out = new java.util.ArrayList<>(operations);
        Collections.sort(out);
        return String.join(", ", out);
    }
}
