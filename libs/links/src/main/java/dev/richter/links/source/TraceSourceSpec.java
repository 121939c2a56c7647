package dev.richter.links.source;

import dev.richter.common.AwsClients;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.xray.XRayClient;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A team's configured trace source ({@code traceSource} in its safety configuration), e.g.
 * {@code {"kind": "directory", "path": "/var/richter/spans"}}.
 *
 * @param kind {@value #DIRECTORY} or {@value #XRAY}; {@value #S3} is accepted by the API but not
 *     implemented yet ({@link #open()} says so)
 * @param path directory path (kind {@value #DIRECTORY}); {@code ""} otherwise
 * @param bucket S3 bucket (kind {@value #S3}); {@code ""} otherwise
 * @param prefix S3 key prefix (kind {@value #S3}); {@code ""} otherwise
 */
public record TraceSourceSpec(String kind, String path, String bucket, String prefix) {
    /** Files in a directory on the reading function's file system. */
    public static final String DIRECTORY = "directory";
    /** OTLP JSON objects under an S3 prefix (not implemented yet: {@link #open()} refuses it). */
    public static final String S3 = "s3";
    /** The X-Ray API ({@link XRayTraceSource}). */
    public static final String XRAY = "xray";

    /** Directory sources kept per JVM ({@link #open()}). */
    static final int MAX_DIRECTORIES = 64;
    private static final Map<Path, DirectoryTraceSource> DIRECTORIES = new ConcurrentHashMap<>();

    public TraceSourceSpec {
        kind = kind == null ? "" : kind.trim().toLowerCase(Locale.ROOT);
        path = path == null ? "" : path.trim();
        bucket = bucket == null ? "" : bucket.trim();
        prefix = prefix == null ? "" : prefix.trim();
    }

    /**
     * The source this spec describes; a directory's is the one instance of that directory in this JVM.
     *
     * @throws UnsupportedOperationException for {@value #S3}, not implemented yet
     * @throws IllegalArgumentException for an unknown kind or a directory spec without a path
     */
    public TraceSource open() {
        return switch (kind) {
            case DIRECTORY -> {
                if (path.isEmpty()) {
                    throw new IllegalArgumentException("traceSource.path: required for kind directory");
                }
                yield directory(Path.of(path));
            }
            case XRAY -> new XRayTraceSource(XRayClient.builder().region(AwsClients.region())
                    .httpClientBuilder(UrlConnectionHttpClient.builder()).build());
            case S3 -> throw new UnsupportedOperationException("trace source kind 's3' is not implemented yet"
                    + " (see functions/checks/README.md); use kind directory or xray");
            default -> throw new IllegalArgumentException("traceSource.kind: unknown kind '" + kind + "'");
        };
    }

    /**
     * The one {@link DirectoryTraceSource} of {@code directory} in this JVM, so its read cursors survive between the
     * invocations of a warm Lambda. At most {@value #MAX_DIRECTORIES} directories are kept; the map is cleared when
     * full (the next calls read their files from 0 once).
     */
    private static DirectoryTraceSource directory(Path directory) {
        Path key = directory.toAbsolutePath().normalize();
        DirectoryTraceSource known = DIRECTORIES.get(key);
        if (known != null) {
            return known;
        }
        if (DIRECTORIES.size() >= MAX_DIRECTORIES) {
            DIRECTORIES.clear();
        }
        return DIRECTORIES.computeIfAbsent(key, DirectoryTraceSource::new);
    }

    /** For evidence text. */
    public String describe() {
        return switch (kind) {
            case DIRECTORY -> "directory " + path;
            case S3 -> "s3://" + bucket + "/" + prefix;
            default -> kind;
        };
    }
}
