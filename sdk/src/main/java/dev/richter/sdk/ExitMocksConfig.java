package dev.richter.sdk;

import java.net.URI;
import java.time.Duration;

/**
 * How {@link ExitMocks} gets its configuration. Immutable; build with {@link #of(URI)} and the
 * {@code with*} methods.
 *
 * @param configUrl HTTP(S) URL of the team's mock configuration document (see {@link ExitMocks})
 * @param refreshInterval time between two fetches; default {@link #DEFAULT_REFRESH_INTERVAL}
 * @param fetchTimeout deadline of one fetch (connect + response); default {@link #DEFAULT_FETCH_TIMEOUT}
 * @param markerKey baggage member key of the marker; default {@value Marked#DEFAULT_KEY}
 * @param markerValue its value; default {@value Marked#DEFAULT_VALUE}
 * @param authorization value of the {@code Authorization} header sent with each fetch (e.g. {@code Bearer <JWT>} of a
 *                      token whose {@code team} claim is the team whose mocks are fetched: Richter's API authenticates
 *                      every route); empty: none (default)
 * @throws IllegalArgumentException on a non-HTTP URL, a non-positive duration, or a blank marker key
 */
public record ExitMocksConfig(URI configUrl, Duration refreshInterval, Duration fetchTimeout, String markerKey,
                              String markerValue, String authorization) {
    /** Default refresh interval: 30 s (a changed mock reaches every instance within it). */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(30);
    /** Default fetch deadline: 2 s. */
    public static final Duration DEFAULT_FETCH_TIMEOUT = Duration.ofSeconds(2);

    public ExitMocksConfig {
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
        if (markerKey == null || markerKey.isBlank()) {
            throw new IllegalArgumentException("markerKey: required");
        }
        markerValue = markerValue == null ? "" : markerValue;
        authorization = authorization == null ? "" : authorization.strip();
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
}
