package dev.richter.loaddriver;

/**
 * Sends {@code http://} requests through one transport and everything else ({@code https://}) through
 * another — the load driver's default: Netty for plain HTTP (about half the CPU per request of the JDK
 * client in {@code bench/load-driver.sh}), the JDK client for TLS.
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
    public void close() {
        try {
            http.close();
        } finally {
            other.close();
        }
    }
}
