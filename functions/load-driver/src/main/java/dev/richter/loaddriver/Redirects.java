package dev.richter.loaddriver;

import dev.richter.common.http.UriReference;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How every transport follows the redirects of a replayed request: a recorded redirect chain is one logical request
 * (corpus bug 11, grafana/k6#808), so the request's outcome is the answer at the end of the chain and its latency and
 * deadline cover every hop.
 *
 * <p>Rules:
 * <ul>
 *   <li>301, 302, 303, 307 and 308 with a {@code Location} are followed (RFC 9110 §15.4); every other 3xx is a final
 *       answer.</li>
 *   <li>{@code Location} is a URI reference resolved against the request's URI (RFC 9110 §10.2.2, RFC 3986 §5.2,
 *       {@link UriReference#resolve}); its fragment is never sent.</li>
 *   <li>Only within the target under test: the hop must have the request's origin (scheme, host and port,
 *       {@link UriReference#sameOrigin}), which every hop inherits from the scenario's base URL, and it is sent to the
 *       request's own authority. Tests run against production: a redirect elsewhere is never sent with the marker but
 *       fails as {@code redirect out of scope: <origin>}.</li>
 *   <li>At most {@link #MAX_REDIRECTS} redirects per request; one more fails as
 *       {@code too many redirects (more than 10)}.</li>
 *   <li>Method and body as the Fetch standard's "HTTP-redirect fetch" (step 12) and RFC 9110 §15.4.2-15.4.4 say: 303
 *       turns any method but {@code HEAD} into {@code GET}, 301 and 302 turn {@code POST} into {@code GET}, each without
 *       the body and its {@code Content-Type}, {@code Content-Encoding}, {@code Content-Language} and
 *       {@code Content-Location}; otherwise (307, 308, and 301/302 of other methods) method and body are kept.</li>
 *   <li>Every other header of the request, the marker among them, goes on every hop.</li>
 * </ul>
 */
final class Redirects {
    /**
     * Redirects followed per request at most; one more fails the request. k6's default {@code maxRedirects}: a load
     * test's replay follows as far as that peer does.
     */
    static final int MAX_REDIRECTS = 10;
    /** Headers that describe the body, dropped with it when a hop becomes a {@code GET} (Fetch: request-body-header names). */
    private static final Set<String> BODY_HEADERS = Set.of("content-type", "content-encoding", "content-language", "content-location");

    private Redirects() {}

    /** Whether a response of {@code status} is a redirect to follow when it has a {@code Location}. */
    static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /**
     * Whether a final response of {@code status} is a success: 2xx, or 304 Not Modified (RFC 9110 §15.4.5: the answer
     * to a conditional request whose copy is current, no redirect). Every other status, 3xx included, is a failure.
     */
    static boolean isSuccess(int status) {
        return (status >= 200 && status < 300) || status == 304;
    }

    /**
     * The failure of a request that received one redirect more than {@link #MAX_REDIRECTS}.
     *
     * @param status            the redirect's status
     * @param redirectsFollowed redirects the request followed so far
     * @throws RedirectException {@code too many redirects (more than 10)} when {@code redirectsFollowed} reached the limit
     */
    static void checkLimit(int status, int redirectsFollowed) throws RedirectException {
        if (redirectsFollowed >= MAX_REDIRECTS) {
            throw new RedirectException(status, "too many redirects (more than " + MAX_REDIRECTS + ")");
        }
    }

    /**
     * The hop that follows a redirect of {@code current} (the hop limit is {@link #checkLimit}'s).
     *
     * @param current  the request that was answered with the redirect
     * @param status   the redirect's status, one of {@link #isRedirect}
     * @param location the {@code Location} value as the transport decoded it (one char per octet, ISO-8859-1, as Netty
     *                 and the JDK client do; octets that are UTF-8 are read as UTF-8, as browsers do), or null
     * @return the next request: same deadline, headers and, unless it becomes a {@code GET}, method and body
     * @throws RedirectException {@code redirect without Location}, {@code redirect Location is not a URI reference} or
     *                           {@code redirect out of scope: <origin>}
     */
    static OutboundRequest next(OutboundRequest current, int status, String location) throws RedirectException {
        if (location == null || location.isBlank()) {
            throw new RedirectException(status, "redirect without Location");
        }
        URI target;
        try {
            target = UriReference.resolve(current.uri(), utf8(location.strip()));
        } catch (IllegalArgumentException e) {
            throw new RedirectException(status, "redirect Location is not a URI reference");
        }
        if (!UriReference.sameOrigin(target, current.uri())) {
            throw new RedirectException(status, "redirect out of scope: " + UriReference.origin(target));
        }
        URI base = current.uri();
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        URI hop = URI.create(base.getScheme() + "://" + base.getRawAuthority() + path
                + (target.getRawQuery() == null ? "" : "?" + target.getRawQuery()));
        String method = current.method().toUpperCase(Locale.ROOT);
        boolean toGet = ((status == 301 || status == 302) && method.equals("POST"))
                || (status == 303 && !method.equals("GET") && !method.equals("HEAD"));
        if (!toGet) {
            return new OutboundRequest(hop, current.method(), current.headers(), current.body(), current.timeoutMs(), current.capture());
        }
        Map<String, String> headers = new LinkedHashMap<>();
        current.headers().forEach((name, value) -> {
            if (!BODY_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                headers.put(name, value);
            }
        });
        return new OutboundRequest(hop, "GET", headers, new byte[0], current.timeoutMs(), current.capture());
    }

    /** A header value of octets (one char each) read as UTF-8 when its octets are UTF-8; as it is otherwise. */
    private static String utf8(String octets) {
        boolean high = false;
        for (int i = 0; i < octets.length(); i++) {
            char c = octets.charAt(i);
            if (c > 0xff) {
                return octets;
            }
            high |= c >= 0x80;
        }
        if (!high) {
            return octets;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(octets.getBytes(StandardCharsets.ISO_8859_1))).toString();
        } catch (CharacterCodingException e) {
            return octets;
        }
    }
}
