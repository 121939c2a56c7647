package dev.richter.agent.isolation;

import static dev.richter.agent.isolation.AwsSdkPolicy.names;
import static dev.richter.agent.isolation.AwsSdkPolicy.refuse;
import static dev.richter.agent.isolation.AwsSdkPolicy.set;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@link AwsSdkPolicy}'s rule for the AWS services whose writes have shadows of the kinds of {@link AwsShadows} (issue
 * 40 item 5): SNS, S3, EventBridge and Kinesis, one named target at a time as {@code AwsSdkExits} finds them in the
 * request (the SDK's model members of 2.57.8, named below). For each service, the operations Richter understands:
 * <ul>
 *   <li><b>SNS</b> ({@code sns}, {@code kind: sns-topic}): {@link #SNS_PUBLISH}, by {@code TopicArn} or {@code
 *       TargetArn}; a {@code Publish} naming neither (an SMS to a {@code PhoneNumber}) is refused.</li>
 *   <li><b>S3</b> ({@code s3}, {@code kind: s3}): the object writes {@link #S3_OBJECT_WRITES} and the object reads
 *       {@link #S3_OBJECT_READS}, by {@code Bucket} and {@code Key} ({@code DestinationBucket} and {@code
 *       DestinationKey} of a copy; each key of {@code DeleteObjects}), the target given as {@code bucket/key}; a
 *       copy's source ({@code SourceBucket}, {@code SourceKey}) is a read, asked as operation {@code <op> source}, and
 *       one named only by the legacy {@code CopySource} (target {@code ""}) is refused.</li>
 *   <li><b>EventBridge</b> ({@code eventbridge}, {@code kind: event-bus}): {@code PutEvents}, by each entry's {@code
 *       EventBusName}, an entry naming none asked as {@code default} (the bus EventBridge puts it on).</li>
 *   <li><b>Kinesis</b> ({@code kinesis}, {@code kind: kinesis-stream}): {@link #KINESIS_PUT}, by {@code StreamName}
 *       or {@code StreamARN}.</li>
 * </ul>
 * An understood operation's target that is a shadow (or in a shadow location) passes; a mapped one goes to its shadow
 * (SNS topics, buses and streams compare by name, or by the whole ARN when both sides are ARNs; the shadow keeps the
 * form the request named the target in: an ARN with its name replaced, or the shadow's name; an S3 key goes to the
 * longest production location that holds it, its production prefix replaced by the shadow's); an unmapped one is
 * refused, but an S3 object read (or a copy's source) of an unmapped location passes as a reference read. An
 * operation these services have that is not understood is decided as for a service with no shadow: a read by its name
 * ({@code Get*}, {@code List*}, {@code Describe*}, {@code Head*}) passes, any other is refused, so a marked {@code
 * ListObjectsV2} lists production's bucket. Stateless.
 */
final class AwsResourcePolicy {
    /** The SDK's service names this class decides (the model package of each). */
    static final Set<String> SERVICES = set("sns", "s3", "eventbridge", "kinesis");
    /** SNS operations sending to the topic (or endpoint) they name. */
    static final Set<String> SNS_PUBLISH = set("Publish", "PublishBatch");
    /** S3 operations writing the object they name (a multipart upload's steps included). */
    static final Set<String> S3_OBJECT_WRITES = set("PutObject", "CopyObject", "DeleteObject", "DeleteObjects",
            "CreateMultipartUpload", "UploadPart", "UploadPartCopy", "CompleteMultipartUpload", "AbortMultipartUpload");
    /** S3 operations reading the object (or the upload) they name. */
    static final Set<String> S3_OBJECT_READS = set("GetObject", "HeadObject", "ListParts");
    /** S3 operations that read a source object besides writing their own. */
    static final Set<String> S3_COPIES = set("CopyObject", "UploadPartCopy");
    /** The operation suffix of a copy's source: {@code CopyObject source}. */
    static final String SOURCE = " source";
    /** EventBridge operations putting events on the buses their entries name. */
    static final Set<String> EVENTBRIDGE_PUT = set("PutEvents");
    /** Kinesis operations writing records to the stream they name. */
    static final Set<String> KINESIS_PUT = set("PutRecord", "PutRecords");

    private AwsResourcePolicy() {}

    /**
     * @param service   one of {@link #SERVICES}
     * @param operation the SDK's operation name, or {@code <operation> source} for a copy's source
     * @param target    see the class comment; {@code ""} when the request names none
     * @return as {@link AwsSdkPolicy#decide}
     */
    static ShadowDecision decide(String service, String operation, String target, AwsShadows shadows,
                                 IsolationMode mode) {
        String exit = service + " " + operation + (target.isEmpty() ? "" : " " + target);
        if (service.equals("s3")) {
            boolean source = operation.endsWith(SOURCE) && S3_COPIES.contains(operation.substring(0,
                    operation.length() - SOURCE.length()));
            boolean write = S3_OBJECT_WRITES.contains(operation);
            if (write || source || S3_OBJECT_READS.contains(operation)) {
                return target.indexOf('/') <= 0
                        ? refuse(exit, "a marked S3 " + operation + " naming no bucket and key Richter can read", mode)
                        : s3(exit, operation, target, shadows.s3Locations(), write, mode);
            }
            return notUnderstood(exit, operation, "S3", "object operations (" + names(S3_OBJECT_WRITES) + ", "
                    + names(S3_OBJECT_READS) + ")", AwsShadows.S3, mode);
        }
        if (service.equals("sns")) {
            return SNS_PUBLISH.contains(operation) ? named(exit, operation, target, shadows.snsTopics(), "", "SNS",
                    "topic", AwsShadows.SNS_TOPIC, mode) : notUnderstood(exit, operation, "SNS", names(SNS_PUBLISH),
                    AwsShadows.SNS_TOPIC, mode);
        }
        if (service.equals("eventbridge")) {
            return EVENTBRIDGE_PUT.contains(operation) ? named(exit, operation, target, shadows.eventBuses(),
                    "event-bus/", "EventBridge", "bus", AwsShadows.EVENT_BUS, mode)
                    : notUnderstood(exit, operation, "EventBridge", names(EVENTBRIDGE_PUT), AwsShadows.EVENT_BUS, mode);
        }
        return KINESIS_PUT.contains(operation) ? named(exit, operation, target, shadows.kinesisStreams(), "stream/",
                "Kinesis", "stream", AwsShadows.KINESIS_STREAM, mode) : notUnderstood(exit, operation, "Kinesis",
                names(KINESIS_PUT), AwsShadows.KINESIS_STREAM, mode);
    }

    /** An SNS topic, EventBridge bus or Kinesis stream, named by name or ARN. */
    private static ShadowDecision named(String exit, String operation, String ref, Map<String, String> map,
                                        String arnType, String label, String noun, String kind, IsolationMode mode) {
        if (ref.isEmpty()) {
            return refuse(exit, "a marked " + label + " " + operation + " naming no " + noun + " (kind " + kind + ")",
                    mode);
        }
        for (String shadow : map.values()) {
            if (same(ref, shadow, arnType)) {
                return new ShadowDecision(Optional.<String>empty(), shadow, ExitDecision.PASS);
            }
        }
        for (Map.Entry<String, String> e : map.entrySet()) {
            if (same(ref, e.getKey(), arnType)) {
                String shadow = e.getValue();
                String rewritten = !isArn(ref) ? name(shadow, arnType) : isArn(shadow) ? shadow
                        : ref.substring(0, ref.length() - name(ref, arnType).length()) + shadow;
                return ShadowDecision.shadow(rewritten, shadow);
            }
        }
        return refuse(exit, "a marked " + label + " " + operation + " to " + noun + " '" + name(ref, arnType)
                + "', which has no shadow " + noun + " (kind " + kind + ")", mode);
    }

    /** Two references to one resource: equal ARNs when both are ARNs, else equal names. */
    static boolean same(String a, String b, String arnType) {
        return isArn(a) && isArn(b) ? a.equals(b) : name(a, arnType).equals(name(b, arnType));
    }

    private static boolean isArn(String ref) {
        return ref.startsWith("arn:");
    }

    /**
     * The resource's name: a name as it is; an ARN's resource part (after its fifth {@code :}) without {@code
     * arnType} ({@code arn:aws:kinesis:eu-west-1:123456789012:stream/clicks}, {@code stream/} → {@code clicks}).
     */
    static String name(String ref, String arnType) {
        if (!isArn(ref)) {
            return ref;
        }
        String[] parts = ref.split(":", 6);
        String resource = parts.length == 6 ? parts[5] : ref;
        return resource.startsWith(arnType) ? resource.substring(arnType.length()) : resource;
    }

    /** An S3 object {@code bucket/key}: in a shadow location, in a mapped one (longest first), or in neither. */
    private static ShadowDecision s3(String exit, String operation, String object, Map<String, String> map,
                                     boolean write, IsolationMode mode) {
        for (String shadow : map.values()) {
            if (AwsShadows.within(object, shadow)) {
                return new ShadowDecision(Optional.<String>empty(), shadow, ExitDecision.PASS);
            }
        }
        String best = null;
        for (String production : map.keySet()) {
            if (AwsShadows.within(object, production)
                    && (best == null || AwsShadows.prefix(production).length() > AwsShadows.prefix(best).length())) {
                best = production;
            }
        }
        if (best != null) {
            String shadow = map.get(best);
            String key = AwsShadows.prefix(object).substring(AwsShadows.prefix(best).length());
            return ShadowDecision.shadow(AwsShadows.bucket(shadow) + "/" + AwsShadows.prefix(shadow) + key, shadow);
        }
        return write ? refuse(exit, "a marked S3 " + operation + " of '" + object + "', which is in no location with"
                + " a shadow (kind s3)", mode) : ShadowDecision.UNTOUCHED;
    }

    private static ShadowDecision notUnderstood(String exit, String operation, String label, String understood,
                                                String kind, IsolationMode mode) {
        return AwsSdkPolicy.isRead(operation) ? ShadowDecision.UNTOUCHED : refuse(exit, "a marked " + label + " "
                + operation + ": Richter shadows " + label + "'s " + understood + " only (kind " + kind + "); its"
                + " other operations but reads (Get*, List*, Describe*, Head*) are refused", mode);
    }
}
