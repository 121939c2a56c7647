package dev.richter.agent.awssdk;

import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.utils.http.SdkHttpUtils;
import software.amazon.awssdk.utils.builder.SdkBuilder;
import software.amazon.awssdk.utils.builder.ToCopyableBuilder;

/**
 * The objects an S3 request of the AWS SDK for Java v2 names, for {@link AwsSdkExits}, read and rewritten through the
 * SDK's generic model API by the members of the S3 model (2.57.8): {@code Bucket} and {@code Key} (every object
 * operation), {@code DestinationBucket} and {@code DestinationKey} ({@code CopyObject}, {@code UploadPartCopy}), a
 * copy's source, and {@code DeleteObjects}' {@code Bucket} with each {@code Delete.Objects[].Key}. A copy's source is
 * {@code SourceBucket} and {@code SourceKey}, or the {@code CopySource} text the S3 client makes of them before it
 * calls the handler ({@code CustomRequestTransformerUtils.modifyCopyObjectRequest}: {@code
 * <bucket>/<key>[?versionId=<id>]}, each part URL-encoded but its slashes: {@code
 * SdkHttpUtils.urlEncodeIgnoreSlashes}),
 * or that an application set itself; a source named by an access point ARN is not read (asked as {@code ""}, so
 * refused). An object is asked and renamed as {@code bucket/key} (a bucket name has no {@code /}). Injected with
 * {@link AwsSdkExits}; no lambdas.
 */
final class S3Objects {
    /** The SDK's name of the service ({@code software.amazon.awssdk.services.s3}). */
    static final String SERVICE = "s3";
    /** The bucket and key members naming the object an operation writes or reads. */
    private static final String[][] OBJECT = {{"Bucket", "Key"}, {"DestinationBucket", "DestinationKey"}};
    /** The members naming a copy's source object. */
    private static final String[] SOURCE = {"SourceBucket", "SourceKey"};
    /** The member the S3 client names a copy's source in, as the header {@code x-amz-copy-source} carries it. */
    private static final String COPY_SOURCE = "CopySource";

    private S3Objects() {}

    /**
     * What to ask the guard, each {@code {operation, target}}: the object written or read ({@code bucket/key}), each
     * key of a {@code DeleteObjects}, a copy's source as operation {@code <operation> source} ({@code ""} when its
     * {@code CopySource} cannot be read), and a request naming a bucket but no object as its bucket alone.
     */
    static List<String[]> asks(String operation, Object request) {
        List<String[]> asks = new ArrayList<String[]>();
        if (!(request instanceof SdkPojo)) {
            return asks;
        }
        SdkPojo pojo = (SdkPojo) request;
        String bucket = null;
        for (String[] pair : OBJECT) {
            Object b = value(pojo, pair[0]);
            Object k = value(pojo, pair[1]);
            if (b instanceof String && k instanceof String) {
                asks.add(new String[] {operation, b + "/" + k});
            } else if (b instanceof String) {
                bucket = (String) b;
            }
        }
        Object delete = value(pojo, "Delete");
        if (bucket != null && delete != null) {
            for (Object key : deletedKeys(delete)) {
                asks.add(new String[] {operation, bucket + "/" + key});
            }
        } else if (bucket != null && asks.isEmpty()) {
            asks.add(new String[] {operation, bucket});
        }
        Object sourceBucket = value(pojo, SOURCE[0]);
        Object sourceKey = value(pojo, SOURCE[1]);
        Object copySource = value(pojo, COPY_SOURCE);
        if (sourceBucket instanceof String && sourceKey instanceof String) {
            asks.add(new String[] {operation + " source", sourceBucket + "/" + sourceKey});
        } else if (copySource != null) {
            String[] parsed = copySource(String.valueOf(copySource));
            asks.add(new String[] {operation + " source", parsed == null ? "" : parsed[0]});
        }
        return asks;
    }

    /**
     * A {@code CopySource} text read: {@code {bucket/key, "?versionId=..." or ""}}, the bucket and key URL-decoded (a
     * {@code +} kept); {@code null} for one naming no bucket and key, or an access point ARN.
     */
    static String[] copySource(String text) {
        String s = text.startsWith("/") ? text.substring(1) : text;
        int query = s.indexOf('?');
        String suffix = query < 0 ? "" : s.substring(query);
        String path = query < 0 ? s : s.substring(0, query);
        int slash = path.indexOf('/');
        if (slash <= 0 || slash == path.length() - 1 || path.startsWith("arn:")) {
            return null;
        }
        try {
            return new String[] {decode(path.substring(0, slash)) + "/" + decode(path.substring(slash + 1)), suffix};
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String decode(String part) {
        try {
            return URLDecoder.decode(part.replace("+", "%2B"), "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code request} rebuilt with every object named in {@code renames} ({@code bucket/key} → {@code bucket/key})
     * replaced; a {@code DeleteObjects}' keys each, and its bucket by theirs.
     *
     * @throws IllegalArgumentException when a {@code DeleteObjects}' keys go to more than one bucket (one request
     *                                  names one bucket), so that the call is refused
     */
    static Object rewrite(Object request, Map<String, String> renames) {
        if (!(request instanceof SdkPojo) || !(request instanceof ToCopyableBuilder)) {
            return request;
        }
        SdkPojo pojo = (SdkPojo) request;
        Object builder = ((ToCopyableBuilder<?, ?>) request).toBuilder();
        for (String[] pair : OBJECT) {
            renamePair(pojo, builder, pair, renames);
        }
        renamePair(pojo, builder, SOURCE, renames);
        Object copySource = value(pojo, COPY_SOURCE);
        String[] parsed = copySource == null ? null : copySource(String.valueOf(copySource));
        String source = parsed == null ? null : renames.get(parsed[0]);
        if (source != null) {
            int slash = source.indexOf('/');
            set(builder, pojo, COPY_SOURCE, SdkHttpUtils.urlEncodeIgnoreSlashes(source.substring(0, slash)) + "/"
                    + SdkHttpUtils.urlEncodeIgnoreSlashes(source.substring(slash + 1)) + parsed[1]);
        }
        Object delete = value(pojo, "Delete");
        Object bucket = value(pojo, "Bucket");
        if (delete instanceof SdkPojo && bucket instanceof String) {
            String toBucket = null;
            List<Object> objects = new ArrayList<Object>();
            for (Object identifier : list(value((SdkPojo) delete, "Objects"))) {
                Object key = identifier instanceof SdkPojo ? value((SdkPojo) identifier, "Key") : null;
                String to = renames.get(bucket + "/" + key);
                String objectBucket = to == null ? (String) bucket : to.substring(0, to.indexOf('/'));
                if (toBucket != null && !toBucket.equals(objectBucket)) {
                    throw new IllegalArgumentException("a DeleteObjects whose keys are in more than one bucket once"
                            + " shadowed (" + toBucket + ", " + objectBucket + ")");
                }
                toBucket = objectBucket;
                objects.add(to == null ? identifier : with(identifier, "Key", to.substring(to.indexOf('/') + 1)));
            }
            set(builder, pojo, "Delete", with(delete, "Objects", objects));
            if (toBucket != null) {
                set(builder, pojo, "Bucket", toBucket);
            }
        }
        return ((SdkBuilder<?, ?>) builder).build();
    }

    private static void renamePair(SdkPojo pojo, Object builder, String[] pair, Map<String, String> renames) {
        Object b = value(pojo, pair[0]);
        Object k = value(pojo, pair[1]);
        String to = b instanceof String && k instanceof String ? renames.get(b + "/" + k) : null;
        if (to != null) {
            set(builder, pojo, pair[0], to.substring(0, to.indexOf('/')));
            set(builder, pojo, pair[1], to.substring(to.indexOf('/') + 1));
        }
    }

    private static List<Object> deletedKeys(Object delete) {
        List<Object> keys = new ArrayList<Object>();
        if (delete instanceof SdkPojo) {
            for (Object identifier : list(value((SdkPojo) delete, "Objects"))) {
                keys.add(identifier instanceof SdkPojo ? value((SdkPojo) identifier, "Key") : null);
            }
        }
        return keys;
    }

    private static List<?> list(Object v) {
        return v instanceof List ? (List<?>) v : new ArrayList<Object>();
    }

    /** The value of {@code pojo}'s member {@code member}; {@code null} when it has none or it is not set. */
    static Object value(SdkPojo pojo, String member) {
        SdkField<?> f = field(pojo, member);
        return f == null ? null : f.getValueOrDefault(pojo);
    }

    /** {@code pojo} rebuilt with {@code member} set to {@code value}. */
    private static Object with(Object pojo, String member, Object value) {
        Object builder = ((ToCopyableBuilder<?, ?>) pojo).toBuilder();
        set(builder, (SdkPojo) pojo, member, value);
        return ((SdkBuilder<?, ?>) builder).build();
    }

    private static void set(Object builder, SdkPojo pojo, String member, Object value) {
        SdkField<?> f = field(pojo, member);
        if (f == null) {
            throw new IllegalArgumentException("no member " + member + " in " + pojo.getClass().getName());
        }
        f.set(builder, value);
    }

    private static SdkField<?> field(SdkPojo pojo, String member) {
        for (SdkField<?> f : pojo.sdkFields()) {
            if (f.memberName().equals(member)) {
                return f;
            }
        }
        return null;
    }
}
