package dev.richter.links.trace;

import java.util.Map;

/**
 * The instrumentation that recorded a span: OpenTelemetry's {@code InstrumentationScope} (OTLP
 * {@code scopeSpans[].scope.name/version}; before OTLP 1.0 {@code instrumentationLibrarySpans[].instrumentationLibrary});
 * in formats without scopes, the tags non-OTLP exporters write for it ({@value #NAME_TAG}/{@value #VERSION_TAG},
 * semantic conventions group {@code otel.scope}; the deprecated {@value #LIBRARY_NAME_TAG}/{@value
 * #LIBRARY_VERSION_TAG} that Jaeger and Zipkin exporters wrote before it); for X-Ray, the SDK that recorded the
 * segment ({@code aws.xray.sdk}, {@code aws.xray.sdk_version}), inherited by its subsegments.
 *
 * <p>For the OpenTelemetry Java agent, the name is {@code io.opentelemetry.<instrumentation module>} (e.g. {@code
 * io.opentelemetry.apache-httpclient-4.3}: the module for Apache HttpClient 4.3 and later) and the version is the
 * agent's own ({@code 2.22.0-alpha}), not the library's.
 *
 * @param name the scope's name, {@code ""} when the document names none
 * @param version the scope's version, {@code ""} when not recorded
 */
public record InstrumentationScope(String name, String version) {
    /** The scope of a span whose document names none. */
    public static final InstrumentationScope NONE = new InstrumentationScope("", "");
    /** Tag of the scope's name in non-OTLP formats (semantic conventions, {@code otel.scope}, stable). */
    public static final String NAME_TAG = "otel.scope.name";
    /** Tag of the scope's version in non-OTLP formats. */
    public static final String VERSION_TAG = "otel.scope.version";
    /** Deprecated tag of the scope's name (semantic conventions, {@code otel.library}), still written by older exporters. */
    public static final String LIBRARY_NAME_TAG = "otel.library.name";
    /** Deprecated tag of the scope's version. */
    public static final String LIBRARY_VERSION_TAG = "otel.library.version";

    public InstrumentationScope {
        name = name == null ? "" : name.strip();
        version = version == null ? "" : version.strip();
    }

    /** True when the document named no scope. */
    public boolean isNone() {
        return name.isEmpty();
    }

    /**
     * The scope named by a span's tags: {@value #NAME_TAG}/{@value #VERSION_TAG}, else the deprecated
     * {@value #LIBRARY_NAME_TAG}/{@value #LIBRARY_VERSION_TAG}; {@link #NONE} when neither name is there.
     */
    public static InstrumentationScope ofTags(Map<String, String> tags) {
        String name = tags.getOrDefault(NAME_TAG, "");
        if (!name.isBlank()) {
            return new InstrumentationScope(name, tags.getOrDefault(VERSION_TAG, ""));
        }
        name = tags.getOrDefault(LIBRARY_NAME_TAG, "");
        if (!name.isBlank()) {
            return new InstrumentationScope(name, tags.getOrDefault(LIBRARY_VERSION_TAG, ""));
        }
        return NONE;
    }

    /** {@code name version}, or the name alone without a version; {@code ""} for {@link #NONE}. */
    @Override
    public String toString() {
        return version.isEmpty() ? name : name + " " + version;
    }
}
