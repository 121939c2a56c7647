package dev.richter.common.http;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * URI references as RFC 3986 resolves them, and origins as RFC 6454 compares them: what a redirect's {@code Location}
 * (RFC 9110 §10.2.2: a URI-reference, relative ones resolved against the request's target URI) and a recorded URL
 * mean.
 *
 * <p>{@link URI#resolve} follows RFC 2396 instead and gets several RFC 3986 §5.4 examples wrong: against
 * {@code http://a/b/c/d;p?q} it resolves {@code ?y} to {@code http://a/b/c/?y} (RFC 3986: {@code http://a/b/c/d;p?y}),
 * {@code ../../../g} to {@code http://a/../g} ({@code http://a/g}), {@code /./g} to {@code http://a/./g}
 * ({@code http://a/g}) and the empty reference to {@code http://a/b/c/} ({@code http://a/b/c/d;p?q}).
 */
public final class UriReference {
    /** RFC 3986 Appendix B: scheme, authority, path, query and fragment of any reference. */
    private static final Pattern PARTS = Pattern.compile("^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\\?([^#]*))?(#(.*))?$", Pattern.DOTALL);
    /** Characters outside RFC 3986's syntax that browsers percent-encode in a URL they are given (WHATWG URL). */
    private static final String NOT_IN_URIS = "\"<>\\^`{|}";

    private UriReference() {}

    /**
     * Resolves {@code reference} against {@code base} (RFC 3986 §5.2.2, with "merge" §5.2.3 and "remove_dot_segments"
     * §5.2.4). Characters no URI may hold (controls, space, non-ASCII, {@code "<>\^`{|}}) are first percent-encoded as
     * their UTF-8 octets ({@link #encodeInvalid}), as browsers do with the URLs they are given.
     *
     * @param base      an absolute URI, e.g. {@code http://shop.test/a/b?q}
     * @param reference a URI reference, e.g. {@code ../c?x=1}, {@code //cdn.test/x} or {@code https://shop.test/}
     * @return the absolute URI it names, with the reference's fragment if it has one
     * @throws IllegalArgumentException when {@code base} is not absolute or the result is not a valid URI
     */
    public static URI resolve(URI base, String reference) {
        if (!base.isAbsolute() || base.isOpaque()) {
            throw new IllegalArgumentException("not an absolute hierarchical URI: " + base);
        }
        Matcher r = PARTS.matcher(encodeInvalid(reference));
        if (!r.matches()) {
            throw new IllegalArgumentException("not a URI reference: " + reference);
        }
        String scheme = r.group(2);
        String authority = r.group(3) == null ? null : r.group(4);
        String path = r.group(5);
        String query = r.group(6) == null ? null : r.group(7);
        String fragment = r.group(8) == null ? null : r.group(9);
        if (scheme == null) {
            scheme = base.getScheme();
            if (authority == null) {
                authority = base.getRawAuthority();
                if (path.isEmpty()) {
                    path = base.getRawPath() == null ? "" : base.getRawPath();
                    if (query == null) {
                        query = base.getRawQuery();
                    }
                } else if (!path.startsWith("/")) {
                    path = merge(base, path);
                }
            }
        }
        path = removeDotSegments(path);
        StringBuilder out = new StringBuilder(scheme).append(':');
        if (authority != null) {
            out.append("//").append(authority);
        }
        out.append(path);
        if (query != null) {
            out.append('?').append(query);
        }
        if (fragment != null) {
            out.append('#').append(fragment);
        }
        try {
            return new URI(out.toString());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("not a URI reference: " + reference + " (" + e.getReason() + ")");
        }
    }

    /**
     * {@code text} with every character that no URI may hold (controls, space, non-ASCII and {@code "<>\^`{|}})
     * percent-encoded as its UTF-8 octets; {@code %} and every other character as they are.
     */
    public static String encodeInvalid(String text) {
        String encoded = encodeInvalid(text.getBytes(StandardCharsets.UTF_8));
        return encoded.equals(text) ? text : encoded;
    }

    /**
     * {@code octets} as URI text: every octet no URI may hold (controls, space, 0x7F-0xFF and {@code "<>\^`{|}}) as
     * {@code %HH} (RFC 3986 §2.1, upper-case hex), the others as the ASCII characters they are. For a URL whose bytes are
     * not all UTF-8, e.g. a logged request line's {@code \xFF}.
     */
    public static String encodeInvalid(byte[] bytes) {
        StringBuilder b = null;
        for (int i = 0; i < bytes.length; i++) {
            int v = bytes[i] & 0xff;
            boolean invalid = v <= 32 || v >= 127 || NOT_IN_URIS.indexOf(v) >= 0;
            if (invalid && b == null) {
                b = new StringBuilder(bytes.length + 16).append(new String(bytes, 0, i, StandardCharsets.US_ASCII));
            }
            if (b != null) {
                if (invalid) {
                    b.append('%').append(Character.toUpperCase(Character.forDigit(v >> 4, 16)))
                            .append(Character.toUpperCase(Character.forDigit(v & 0xf, 16)));
                } else {
                    b.append((char) v);
                }
            }
        }
        return b == null ? new String(bytes, StandardCharsets.US_ASCII) : b.toString();
    }

    /**
     * The origin of {@code uri} serialized as RFC 6454 §6.2 does: {@code scheme://host}, with {@code :port} only when
     * it is not the scheme's default (80 for http, 443 for https), scheme and host in lower case; a URI without a host
     * is its scheme and a colon ({@code mailto:}).
     */
    public static String origin(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null) {
            return scheme + ":";
        }
        int port = port(uri);
        int defaultPort = defaultPort(scheme);
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + (port == defaultPort ? "" : ":" + port);
    }

    /**
     * Whether {@code a} and {@code b} have the same origin (RFC 6454 §5): the same scheme and host, in any case, and
     * the same port, a scheme's default port written or not. URIs without a host have no origin in common.
     */
    public static boolean sameOrigin(URI a, URI b) {
        return a.getHost() != null && b.getHost() != null && a.getScheme() != null
                && a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
    }

    /** The URI's port, or its scheme's default (80 for http, 443 for https, -1 for others) when it names none. */
    public static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : defaultPort(uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT));
    }

    private static int defaultPort(String scheme) {
        return switch (scheme) {
            case "http" -> 80;
            case "https" -> 443;
            default -> -1;
        };
    }

    /** RFC 3986 §5.2.3: the reference's path appended to the base path's directory. */
    private static String merge(URI base, String path) {
        String basePath = base.getRawPath() == null ? "" : base.getRawPath();
        if (base.getRawAuthority() != null && basePath.isEmpty()) {
            return "/" + path;
        }
        return basePath.substring(0, basePath.lastIndexOf('/') + 1) + path;
    }

    /** RFC 3986 §5.2.4: the path with its {@code .} and {@code ..} segments interpreted and removed. */
    static String removeDotSegments(String path) {
        if (!path.contains(".")) {
            return path;
        }
        StringBuilder in = new StringBuilder(path);
        StringBuilder out = new StringBuilder(path.length());
        while (!in.isEmpty()) {
            if (startsWith(in, "../")) {
                in.delete(0, 3);
            } else if (startsWith(in, "./")) {
                in.delete(0, 2);
            } else if (startsWith(in, "/./")) {
                in.delete(0, 2);
            } else if (in.toString().equals("/.")) {
                in.replace(0, 2, "/");
            } else if (startsWith(in, "/../")) {
                in.delete(0, 3);
                removeLastSegment(out);
            } else if (in.toString().equals("/..")) {
                in.replace(0, 3, "/");
                removeLastSegment(out);
            } else if (in.toString().equals(".") || in.toString().equals("..")) {
                in.setLength(0);
            } else {
                int next = in.indexOf("/", in.charAt(0) == '/' ? 1 : 0);
                int end = next < 0 ? in.length() : next;
                out.append(in, 0, end);
                in.delete(0, end);
            }
        }
        return out.toString();
    }

    private static boolean startsWith(StringBuilder b, String prefix) {
        return b.length() >= prefix.length() && b.substring(0, prefix.length()).equals(prefix);
    }

    private static void removeLastSegment(StringBuilder out) {
        int slash = out.lastIndexOf("/");
        out.setLength(Math.max(slash, 0));
    }
}
