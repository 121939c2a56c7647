package dev.richter.agent.isolation;

import java.util.Locale;
import java.util.Objects;

/**
 * One entry of the test's scope: a host, with or without a port, that marked traffic may reach. A value: equal to
 * another with the same components.
 *
 * @param host host name or address, lower case, e.g. {@code orders.internal} or {@code 127.0.0.1}
 * @param port TCP port, or {@link #ANY_PORT} when the entry names none
 */
public final class HostPort {
    /** {@link #port} of an entry that allows every port of its host. */
    public static final int ANY_PORT = -1;

    private final String host;
    private final int port;

    public HostPort(String host, int port) {
        this.host = host;
        this.port = port;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /**
     * @param text {@code host} or {@code host:port} ({@code [v6]:port} for an IPv6 address)
     * @throws IllegalArgumentException on an empty host or a port outside 1–65535
     */
    public static HostPort parse(String text) {
        String t = text.trim();
        // the port follows the last ':' outside brackets: "host:port", "[::1]:8080"; a bare IPv6 address has none
        int colon = t.startsWith("[") ? t.indexOf(':', Math.max(t.indexOf(']'), 0)) : t.indexOf(':');
        boolean hasPort = colon >= 0 && (t.startsWith("[") || colon == t.lastIndexOf(':'));
        String host = hasPort ? t.substring(0, colon) : t;
        int port = ANY_PORT;
        if (hasPort) {
            try {
                port = Integer.parseInt(t.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = 0;
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port: must be 1-65535 in '" + text + "'");
            }
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("host: required in '" + text + "'");
        }
        return new HostPort(host.toLowerCase(Locale.ROOT), port);
    }

    /** Whether a call to {@code host:port} is covered: same host (case-insensitive), and same port unless any. */
    public boolean covers(String callHost, int callPort) {
        return host.equalsIgnoreCase(callHost) && (port == ANY_PORT || port == callPort);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HostPort && Objects.equals(host, ((HostPort) o).host) && port == ((HostPort) o).port;
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, port);
    }

    @Override
    public String toString() {
        return port == ANY_PORT ? host : host + ":" + port;
    }
}
