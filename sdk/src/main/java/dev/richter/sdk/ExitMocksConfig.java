package dev.richter.sdk;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link ExitMocks} gets its configuration. Immutable; build with {@link #of(URI)} and the
 * {@code with*} methods. A value: equal to another with the same components.
 *
 * @param configUrl HTTP(S) URL of the team's mock configuration document (see {@link ExitMocks})
 * @param refreshInterval time between two fetches; default {@link #DEFAULT_REFRESH_INTERVAL}
 * @param fetchTimeout timeout of one fetch: to connect, and to wait for the response's next bytes ({@link
 *                     HttpDocument}); default {@link #DEFAULT_FETCH_TIMEOUT}
 * @param markerKey baggage member key of the marker; default {@value Marked#DEFAULT_KEY}
 * @param markerValue its value; default {@value Marked#DEFAULT_VALUE}
 * @param authorization value of the {@code Authorization} header sent with each fetch (e.g. {@code Bearer <JWT>} of a
 *                      token whose {@code team} claim is the team whose mocks are fetched: Richter's API authenticates
 *                      every route); empty: none (default)
 * @throws IllegalArgumentException on a non-HTTP URL, a non-positive duration, or a blank marker key
 */
public final class ExitMocksConfig {
    /** Default refresh interval: 30 s (a changed mock reaches every instance within it). */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(30);
    /** Default fetch deadline: 2 s. */
    public static final Duration DEFAULT_FETCH_TIMEOUT = Duration.ofSeconds(2);

    private final URI configUrl;
    private final Duration refreshInterval;
    private final Duration fetchTimeout;
    private final String markerKey;
    private final String markerValue;
    private final String authorization;

    /** The configuration of the components the class comment describes. */
    public ExitMocksConfig(URI configUrl, Duration refreshInterval, Duration fetchTimeout, String markerKey,
                           String markerValue, String authorization) {
        if (configUrl == null || configUrl.getScheme() == null
                || !(configUrl.getScheme().equals("http") || configUrl.getScheme().equals("https"))) {
            throw new IllegalArgumentException("configUrl: must be an http(s) URL, got " + configUrl);
        }
        if (refreshInterval == null || refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException("refreshInterval: must be positive, got " + refreshInterval);
        }
        if (fetchTimeout == null || fetchTimeout.isNegative() || fetchTimeout.isZero()) {
            throw new IllegalArgumentException("fetchTimeout: must be positive, got " + fetchTimeout);
        }
        if (markerKey == null || Backports.isBlank(markerKey)) {
            throw new IllegalArgumentException("markerKey: required");
        }
        this.configUrl = configUrl;
        this.refreshInterval = refreshInterval;
        this.fetchTimeout = fetchTimeout;
        this.markerKey = markerKey;
        this.markerValue = markerValue == null ? "" : markerValue;
        this.authorization = authorization == null ? "" : Backports.strip(authorization);
    }

    /** A configuration without an {@code Authorization} header. */
    public ExitMocksConfig(URI configUrl, Duration refreshInterval, Duration fetchTimeout, String markerKey, String markerValue) {
        this(configUrl, refreshInterval, fetchTimeout, markerKey, markerValue, "");
    }

    /** Defaults for {@code configUrl}. */
    public static ExitMocksConfig of(URI configUrl) {
        return new ExitMocksConfig(configUrl, DEFAULT_REFRESH_INTERVAL, DEFAULT_FETCH_TIMEOUT, Marked.DEFAULT_KEY,
                Marked.DEFAULT_VALUE);
    }

    public ExitMocksConfig withRefreshInterval(Duration interval) {
        return new ExitMocksConfig(configUrl, interval, fetchTimeout, markerKey, markerValue, authorization);
    }

    public ExitMocksConfig withFetchTimeout(Duration timeout) {
        return new ExitMocksConfig(configUrl, refreshInterval, timeout, markerKey, markerValue, authorization);
    }

    public ExitMocksConfig withMarker(String key, String value) {
        return new ExitMocksConfig(configUrl, refreshInterval, fetchTimeout, key, value, authorization);
    }

    /** This configuration sending {@code Authorization: <value>} with each fetch (e.g. {@code "Bearer " + jwt}). */
    public ExitMocksConfig withAuthorization(String value) {
        return new ExitMocksConfig(configUrl, refreshInterval, fetchTimeout, markerKey, markerValue, value);
    }

    public URI configUrl() {
        return configUrl;
    }

    public Duration refreshInterval() {
        return refreshInterval;
    }

    public Duration fetchTimeout() {
        return fetchTimeout;
    }

    public String markerKey() {
        return markerKey;
    }

    public String markerValue() {
        return markerValue;
    }

    public String authorization() {
        return authorization;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ExitMocksConfig)) {
            return false;
        }
        ExitMocksConfig c = (ExitMocksConfig) o;
        return configUrl.equals(c.configUrl) && refreshInterval.equals(c.refreshInterval)
                && fetchTimeout.equals(c.fetchTimeout) && markerKey.equals(c.markerKey)
                && markerValue.equals(c.markerValue) && authorization.equals(c.authorization);
    }

    @Override
    public int hashCode() {
        return Objects.hash(configUrl, refreshInterval, fetchTimeout, markerKey, markerValue, authorization);
    }

    @Override
    public String toString() {
        return "ExitMocksConfig[configUrl=" + configUrl + ", refreshInterval=" + refreshInterval + ", fetchTimeout="
                + fetchTimeout + ", markerKey=" + markerKey + ", markerValue=" + markerValue + ", authorization="
                + authorization + "]";
    }
}
