package dev.richter.agent.isolation;

import dev.richter.sdk.Backports;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The document's shadows of AWS resources other than DynamoDB tables and SQS queues (issue 40 item 5), each kind
 * production → shadow, as {@code shadows[]} entries name them:
 * <ul>
 *   <li>{@code sns-topic}: an SNS topic, by name ({@code orders}, {@code orders.fifo}) or ARN ({@code
 *       arn:aws:sns:<region>:<account>:<name>}); not {@code topic}, which is a Kafka topic;</li>
 *   <li>{@code s3}: an S3 location, a bucket ({@code uploads}) or a key prefix in one ({@code uploads/invoices/}),
 *       also written {@code s3://uploads/invoices/} or {@code arn:aws:s3:::uploads/invoices/}; the shadow is another
 *       bucket or a prefix (in the same bucket or another); a production location inside its shadow is refused (its
 *       keys would read as shadow keys);</li>
 *   <li>{@code event-bus}: an EventBridge event bus, by name ({@code default}, {@code orders}) or ARN ({@code
 *       arn:aws:events:<region>:<account>:event-bus/<name>});</li>
 *   <li>{@code kinesis-stream}: a Kinesis data stream, by name or ARN ({@code
 *       arn:aws:kinesis:<region>:<account>:stream/<name>}).</li>
 * </ul>
 * Names compare exactly (AWS's names are case-sensitive). The name rules are AWS's: SNS {@code CreateTopic}'s (1 to 256
 * of {@code A-Za-z0-9_-}, a FIFO topic's ending {@code .fifo}), S3's bucket naming rules (3 to 63 of {@code a-z0-9.-},
 * starting and ending with a letter or digit), EventBridge {@code CreateEventBus}'s (1 to 256 of {@code
 * A-Za-z0-9._/-}), Kinesis {@code CreateStream}'s (1 to 128 of {@code A-Za-z0-9_.-}). A value: equal to another with
 * the same maps.
 */
public final class AwsShadows {
    /** The {@code kind} of an SNS topic's shadow. */
    public static final String SNS_TOPIC = "sns-topic";
    /** The {@code kind} of an S3 bucket's or key prefix's shadow. */
    public static final String S3 = "s3";
    /** The {@code kind} of an EventBridge bus's shadow. */
    public static final String EVENT_BUS = "event-bus";
    /** The {@code kind} of a Kinesis data stream's shadow. */
    public static final String KINESIS_STREAM = "kinesis-stream";
    /** The kinds, in the order the error of an unknown kind lists them. */
    static final List<String> KINDS = Collections.unmodifiableList(Arrays.asList(SNS_TOPIC, S3, EVENT_BUS,
            KINESIS_STREAM));

    /** None of them. */
    public static final AwsShadows NONE = new AwsShadows(Collections.<String, Map<String, String>>emptyMap());

    private static final String ARN_HEAD = "arn:[a-z0-9-]+:";
    private static final String ARN_REGION_ACCOUNT = ":[a-z0-9-]+:[0-9]{12}:";
    private static final Pattern SNS_NAME = Pattern.compile("[A-Za-z0-9_-]{1,256}(\\.fifo)?");
    private static final Pattern SNS_ARN = Pattern.compile(ARN_HEAD + "sns" + ARN_REGION_ACCOUNT
            + "[A-Za-z0-9_-]{1,256}(\\.fifo)?");
    private static final Pattern BUS_NAME = Pattern.compile("[A-Za-z0-9._/-]{1,256}");
    private static final Pattern BUS_ARN = Pattern.compile(ARN_HEAD + "events" + ARN_REGION_ACCOUNT
            + "event-bus/[A-Za-z0-9._/-]{1,256}");
    private static final Pattern STREAM_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
    private static final Pattern STREAM_ARN = Pattern.compile(ARN_HEAD + "kinesis" + ARN_REGION_ACCOUNT
            + "stream/[A-Za-z0-9_.-]{1,128}");
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    private static final Pattern S3_ARN_HEAD = Pattern.compile(ARN_HEAD + "s3:::");

    private final Map<String, Map<String, String>> byKind;

    /** @param byKind kind → (production → shadow), each as {@link #location} gave it */
    AwsShadows(Map<String, Map<String, String>> byKind) {
        Map<String, Map<String, String>> copy = new LinkedHashMap<>();
        for (String kind : KINDS) {
            Map<String, String> m = byKind.get(kind);
            copy.put(kind, m == null ? Collections.<String, String>emptyMap() : Backports.mapCopy(m));
        }
        this.byKind = Collections.unmodifiableMap(copy);
    }

    /** Production SNS topic (name or ARN) → shadow topic. */
    public Map<String, String> snsTopics() {
        return byKind.get(SNS_TOPIC);
    }

    /** Production S3 location ({@code bucket} or {@code bucket/prefix}) → shadow location, in the same form. */
    public Map<String, String> s3Locations() {
        return byKind.get(S3);
    }

    /** Production EventBridge bus (name or ARN) → shadow bus. */
    public Map<String, String> eventBuses() {
        return byKind.get(EVENT_BUS);
    }

    /** Production Kinesis stream (name or ARN) → shadow stream. */
    public Map<String, String> kinesisStreams() {
        return byKind.get(KINESIS_STREAM);
    }

    /**
     * One {@code production} or {@code shadow} of an entry of one of {@link #KINDS}, checked and in the form it is kept
     * in: S3's {@code bucket} or {@code bucket/prefix} (a {@code s3://} or ARN form unwrapped), the others as written.
     *
     * @param at the field's path, e.g. {@code shadows[2].production}
     * @throws IllegalArgumentException {@code <at>: <what the kind takes>}, e.g. {@code shadows[2].shadow: an S3 bucket
     *                                  (3 to 63 of a-z 0-9 . -) or bucket/key-prefix, ...}
     */
    static String location(String kind, String value, String at) {
        if (kind.equals(SNS_TOPIC)) {
            return checked(value, SNS_NAME, SNS_ARN, at, "an SNS topic name (1 to 256 of A-Z a-z 0-9 _ -, a FIFO"
                    + " topic's ending .fifo) or arn:aws:sns:<region>:<account>:<topic>");
        }
        if (kind.equals(EVENT_BUS)) {
            return checked(value, BUS_NAME, BUS_ARN, at, "an EventBridge bus name (1 to 256 of A-Z a-z 0-9 . _ / -;"
                    + " default, the account's default bus) or arn:aws:events:<region>:<account>:event-bus/<name>");
        }
        if (kind.equals(KINESIS_STREAM)) {
            return checked(value, STREAM_NAME, STREAM_ARN, at, "a Kinesis stream name (1 to 128 of A-Z a-z 0-9 _ . -)"
                    + " or arn:aws:kinesis:<region>:<account>:stream/<name>");
        }
        String location = value;
        if (location.startsWith("s3://")) {
            location = location.substring("s3://".length());
        } else if (S3_ARN_HEAD.matcher(location).lookingAt()) {
            location = location.substring(location.indexOf(":::") + 3);
        }
        int slash = location.indexOf('/');
        String bucket = slash < 0 ? location : location.substring(0, slash);
        if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            throw new IllegalArgumentException(at + ": an S3 bucket (3 to 63 of a-z 0-9 . -, starting and ending with"
                    + " a letter or digit) or bucket/key-prefix, also as s3://bucket/key-prefix or"
                    + " arn:aws:s3:::bucket/key-prefix; was '" + value + "'");
        }
        return slash == location.length() - 1 ? bucket : location;
    }

    private static String checked(String value, Pattern name, Pattern arn, String at, String what) {
        if (!name.matcher(value).matches() && !arn.matcher(value).matches()) {
            throw new IllegalArgumentException(at + ": " + what + "; was '" + value + "'");
        }
        return value;
    }

    /**
     * Whether S3 location {@code inner} lies in {@code outer}: the same bucket, and {@code outer}'s key prefix (none:
     * the whole bucket) starts {@code inner}'s.
     */
    static boolean within(String inner, String outer) {
        return bucket(inner).equals(bucket(outer)) && prefix(inner).startsWith(prefix(outer));
    }

    /** The bucket of an S3 location ({@code uploads/invoices/} → {@code uploads}). */
    static String bucket(String location) {
        int slash = location.indexOf('/');
        return slash < 0 ? location : location.substring(0, slash);
    }

    /** The key prefix of an S3 location ({@code uploads/invoices/} → {@code invoices/}; a bucket → {@code ""}). */
    static String prefix(String location) {
        int slash = location.indexOf('/');
        return slash < 0 ? "" : location.substring(slash + 1);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AwsShadows && byKind.equals(((AwsShadows) o).byKind);
    }

    @Override
    public int hashCode() {
        return Objects.hash(byKind);
    }

    @Override
    public String toString() {
        return byKind.toString();
    }
}
