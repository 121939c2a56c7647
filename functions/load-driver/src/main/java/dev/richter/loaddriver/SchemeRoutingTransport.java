package dev.richter.loaddriver;

/**
 * Sends {@code http://} requests through one transport and everything else ({@code https://}) through
 * another, e.g. Netty for plain HTTP and the JDK client for TLS: for a {@link NettyHttpTransport} built without
 * TLS. The Lambda's transport serves both schemes itself ({@link LoadDriverHandler}), so it does not need one. Each
 * transport follows its own redirects ({@link Redirects}); a redirect to the other scheme leaves the target under test
 * and is never followed, so no chain crosses from one transport to the other.
 *
 * @param http  transport for {@code http} URIs, e.g. {@link NettyHttpTransport}
 * @param other transport for any other scheme, e.g. {@link JdkHttpTransport}
 */
public record SchemeRoutingTransport(HttpTransport http, HttpTransport other) implements HttpTransport {
    @Override
    public PreparedRequest prepare(OutboundRequest request) {
        return "http".equalsIgnoreCase(request.uri().getScheme()) ? http.prepare(request) : other.prepare(request);
    }

    @Override
    public long retriedExchanges() {
        return http.retriedExchanges() + other.retriedExchanges();
    }

    @Override
    public void close() {
        try {
            http.close();
        } finally {
            other.close();
        }
    }
}
