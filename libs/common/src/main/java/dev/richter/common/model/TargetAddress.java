package dev.richter.common.model;

import java.net.IDN;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The network address a registered URL loads: its scheme, host and port, normalised so that two spellings of one
 * listening socket compare equal. It is what "one run per target" leases ({@code RunLeases}), across teams.
 *
 * <p>Rules of form (RFC 3986 §3 for the parts, RFC 9110 §4.2 for the {@code http} and {@code https} schemes):
 * <ul>
 *   <li>an absolute {@code http://} or {@code https://} URL with a host;</li>
 *   <li>a port, when given, is a number from 1 to 65535; without one it is the scheme's default (80, 443);</li>
 *   <li>no user information ({@code user:password@}) and no query or fragment: a base URL is where request paths
 *       are appended.</li>
 * </ul>
 * Normalisation: scheme and host lower-cased, a trailing dot of a host name removed, an internationalised host name in
 * its ASCII form (RFC 5891, {@link IDN#toASCII}), an IPv6 literal in its canonical text ({@code [::1]} and
 * {@code [0:0:0:0:0:0:0:1]} are one host). Host names are not resolved: {@code localhost} and {@code 127.0.0.1} are
 * two targets, as two DNS names of one load balancer are.
 *
 * @param scheme {@code http} or {@code https}
 * @param host   the normalised host: a DNS name, an IPv4 literal, or an IPv6 literal in brackets
 * @param port   1–65535, the scheme's default when the URL gives none
 */
public record TargetAddress(String scheme, String host, int port) {

    /**
     * The address of {@code url}.
     *
     * @throws IllegalArgumentException whose message is the reason in a user's words, e.g.
     *                                  {@code port 99999 is out of range: a port is a number from 1 to 65535}
     */
    public static TargetAddress of(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("is empty: give the URL load goes to, e.g. http://orders.internal:8080");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("is not a URL: " + e.getReason() + " at character " + (e.getIndex() + 1)
                    + " (e.g. http://orders.internal:8080)");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("must start with http:// or https:// (e.g. http://orders.internal:8080)");
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("must not contain user information (user:password@): a target is a"
                    + " host and port");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("must not have a query or fragment: request paths and queries are"
                    + " appended to it");
        }
        if (uri.getHost() == null) {
            uri = asciiHost(uri);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException(noHost(uri));
        }
        int port = uri.getPort();
        if (port == -1) {
            port = scheme.equals("https") ? 443 : 80;
        } else if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range: a port is a number from 1 to 65535");
        }
        return new TargetAddress(scheme, normalHost(uri.getHost()), port);
    }

    /** {@code host:port}, the key of the target's lease: one socket whatever the scheme spoken to it. */
    public String authority() {
        return host + ":" + port;
    }

    /** {@code scheme://host:port}. */
    @Override
    public String toString() {
        return scheme + "://" + authority();
    }

    /** Why a URL that parses has no host, read from its authority (java.net.URI gives no host for a bad port). */
    private static String noHost(URI uri) {
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            return "has no host (e.g. http://orders.internal:8080)";
        }
        int colon = authority.lastIndexOf(':');
        if (colon >= 0 && authority.indexOf(']', colon) < 0) {
            String port = authority.substring(colon + 1);
            if (port.isEmpty() || !port.chars().allMatch(Character::isDigit)) {
                return "port '" + port + "' is not a number from 1 to 65535";
            }
            if (port.length() > 5 || Integer.parseInt(port) > 65535) {
                return "port " + port + " is out of range: a port is a number from 1 to 65535";
            }
        }
        return "host '" + authority + "' is not a valid host name or IP address";
    }

    /**
     * {@code uri} with an internationalised host name in its ASCII form: java.net.URI reads a server authority of
     * ASCII characters only, so {@code http://bücher.example} has no host until its name is converted.
     */
    private static URI asciiHost(URI uri) {
        String authority = uri.getRawAuthority();
        if (authority == null || authority.chars().allMatch(c -> c < 0x80)) {
            return uri;
        }
        int colon = authority.lastIndexOf(':');
        String name = colon < 0 ? authority : authority.substring(0, colon);
        try {
            String ascii = IDN.toASCII(name, IDN.ALLOW_UNASSIGNED) + (colon < 0 ? "" : authority.substring(colon));
            return new URI(uri.getScheme(), ascii, uri.getRawPath(), null, null);
        } catch (IllegalArgumentException | URISyntaxException e) {
            return uri;
        }
    }

    private static String normalHost(String host) {
        if (host.startsWith("[")) {
            try {
                return "[" + InetAddress.getByName(host).getHostAddress() + "]"; // a literal: no DNS lookup
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("host '" + host + "' is not a valid IPv6 address");
            }
        }
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        try {
            return IDN.toASCII(name, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("host '" + host + "' is not a valid host name");
        }
    }
}
