package dev.richter.agent.isolation;

import dev.richter.sdk.Backports;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the extension reads its {@link IsolationConfig} and how often. From JVM system properties, each with an
 * environment variable used when the property is absent:
 * <ul>
 *   <li>{@code -Drichter.isolation.url} / {@code RICHTER_ISOLATION_URL}: an http(s) URL answering the document;</li>
 *   <li>{@code -Drichter.isolation.token} / {@code RICHTER_ISOLATION_TOKEN}: sent as {@code Authorization: Bearer
 *       <token>} with each fetch of the URL (optional);</li>
 *   <li>{@code -Drichter.isolation.file} / {@code RICHTER_ISOLATION_FILE}: a file holding the document, instead of a
 *       URL;</li>
 *   <li>{@code -Drichter.isolation.refresh-s} / {@code RICHTER_ISOLATION_REFRESH_S}: seconds between two loads,
 *       default {@value #DEFAULT_REFRESH_S}, until a loaded document names its own {@code refreshS}.</li>
 * </ul>
 * With neither a URL nor a file nothing ever loads, and every marked call is refused (fail closed). A value: equal to
 * another with the same components.
 *
 * @param url      the document's URL, or empty
 * @param token    bearer token for the URL, {@code ""} for none
 * @param file     the document's file, or empty
 * @param refreshS seconds between two loads while the document names none, ≥ 1
 */
public final class IsolationSettings {
    /** Default seconds between two loads: a changed configuration reaches every JVM within 30 s. */
    public static final long DEFAULT_REFRESH_S = 30;

    /**
     * @throws IllegalArgumentException naming the property when the URL is not http(s), both a URL and a file are
     *                                  set, or the refresh is not a positive integer
     */
    private final Optional<URI> url;
    private final String token;
    private final Optional<Path> file;
    private final long refreshS;

    public IsolationSettings(Optional<URI> url, String token, Optional<Path> file, long refreshS) {
        token = token == null ? "" : Backports.strip(token);
        if (url.isPresent() && !("http".equals(url.get().getScheme()) || "https".equals(url.get().getScheme()))) {
            throw new IllegalArgumentException("richter.isolation.url: must be an http(s) URL, got " + url.get());
        }
        if (url.isPresent() && file.isPresent()) {
            throw new IllegalArgumentException("richter.isolation.url and richter.isolation.file: set one, not both");
        }
        if (refreshS < 1) {
            throw new IllegalArgumentException("richter.isolation.refresh-s: must be a positive integer, got " + refreshS);
        }
        this.url = url;
        this.token = token;
        this.file = file;
        this.refreshS = refreshS;
    }

    public Optional<URI> url() {
        return url;
    }

    public String token() {
        return token;
    }

    public Optional<Path> file() {
        return file;
    }

    public long refreshS() {
        return refreshS;
    }

    /**
     * @param properties the JVM's system properties (as strings)
     * @param env        the process environment
     * @throws IllegalArgumentException as the constructor, or naming a malformed URL or refresh
     */
    public static IsolationSettings from(Map<String, String> properties, Map<String, String> env) {
        Optional<String> url = read(properties, env, "richter.isolation.url", "RICHTER_ISOLATION_URL");
        Optional<String> refresh = read(properties, env, "richter.isolation.refresh-s", "RICHTER_ISOLATION_REFRESH_S");
        long refreshS;
        try {
            refreshS = refresh.map(Long::parseLong).orElse(DEFAULT_REFRESH_S);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("richter.isolation.refresh-s: must be a positive integer, got '"
                    + refresh.get() + "'");
        }
        URI uri;
        try {
            uri = url.map(URI::create).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("richter.isolation.url: not a URL: " + e.getMessage(), e);
        }
        return new IsolationSettings(Optional.ofNullable(uri),
                read(properties, env, "richter.isolation.token", "RICHTER_ISOLATION_TOKEN").orElse(""),
                read(properties, env, "richter.isolation.file", "RICHTER_ISOLATION_FILE").map(Paths::get), refreshS);
    }

    /** The JVM's own properties and environment. */
    public static IsolationSettings fromSystem() {
        Map<String, String> props = new HashMap<>();
        System.getProperties().stringPropertyNames().forEach(k -> props.put(k, System.getProperty(k)));
        return from(props, System.getenv());
    }

    /** Where the document comes from, for logs: the URL, the file, or {@code "none"}. */
    public String source() {
        return url.map(URI::toString).orElseGet(() -> file.map(Path::toString).orElse("none"));
    }

    private static Optional<String> read(Map<String, String> properties, Map<String, String> env, String property,
                                         String variable) {
        String v = properties.get(property);
        if (v == null || Backports.isBlank(v)) {
            v = env.get(variable);
        }
        return v == null || Backports.isBlank(v) ? Optional.empty() : Optional.of(Backports.strip(v));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof IsolationSettings)) {
            return false;
        }
        IsolationSettings s = (IsolationSettings) o;
        return url.equals(s.url) && token.equals(s.token) && file.equals(s.file) && refreshS == s.refreshS;
    }

    @Override
    public int hashCode() {
        return Objects.hash(url, token, file, refreshS);
    }

    @Override
    public String toString() {
        return "IsolationSettings[url=" + url + ", token=" + (token.isEmpty() ? "none" : "(set, redacted)") + ", file="
                + file + ", refreshS=" + refreshS + "]";
    }
}
