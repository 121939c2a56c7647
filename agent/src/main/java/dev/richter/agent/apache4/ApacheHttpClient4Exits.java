package dev.richter.agent.apache4;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpVersion;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpUriRequest;
import org.apache.http.entity.ByteArrayEntity;
import org.apache.http.entity.ContentType;
import org.apache.http.impl.EnglishReasonPhraseCatalog;
import org.apache.http.message.BasicHttpResponse;
import org.apache.http.message.BasicStatusLine;

/**
 * The isolation at Apache HttpClient 4.x ({@code httpclient} 4.3 to 4.5, the client of Spring Boot 2 services and of
 * many SDKs, the AWS SDK's default among them): what {@code CloseableHttpClient.doExecute(target, request, context)},
 * the method every {@code execute} overload ends in, does instead of calling, per the {@link IsolationGuard}'s
 * decision: a mocked exit is answered by its mock, a call in scope passes, any other marked call is refused with an
 * {@code IOException} before a connection is taken. It runs inside the agent's {@code apache-httpclient-4.0} client
 * span, so the decision is stamped there. Injected by the agent as a helper next to HttpClient (the service's class
 * loader); reaches the guard through {@link IsolationBridge}.
 */
public final class ApacheHttpClient4Exits {
    private ApacheHttpClient4Exits() {}

    /**
     * Before {@code doExecute(target, request, context)}.
     *
     * @param target the host the caller named; {@code null} when the request's URI names it
     * @return {@code null}: call for real; a {@code CloseableHttpResponse}: the mock's answer (its latency already
     *     waited, the body a repeatable entity of its UTF-8 bytes); an {@code IOException}: throw it
     */
    public static Object beforeExecute(HttpHost target, HttpRequest request) {
        IsolationGuard guard = IsolationBridge.guard();
        if (!guard.marked()) {
            return null;
        }
        URI uri = request instanceof HttpUriRequest ? ((HttpUriRequest) request).getURI()
                : URI.create(request.getRequestLine().getUri());
        String scheme = target != null ? target.getSchemeName() : uri.getScheme();
        String host = target != null ? target.getHostName() : uri.getHost() == null ? "" : uri.getHost();
        int port = target != null ? target.getPort() : uri.getPort();
        if (port < 0) {
            port = "https".equalsIgnoreCase(scheme) ? 443 : 80;
        }
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        ExitDecision decision = guard.decideHttp(request.getRequestLine().getMethod().toUpperCase(Locale.ROOT), host,
                port, path);
        guard.record(decision);
        if (decision instanceof ExitDecision.Refuse) {
            return new IOException(((ExitDecision.Refuse) decision).message());
        }
        if (decision instanceof ExitDecision.Mock) {
            return answer((ExitDecision.Mock) decision);
        }
        return null; // a Pass or a WouldRefuse
    }

    private static Object answer(ExitDecision.Mock mock) {
        try {
            mock.awaitLatency();
        } catch (InterruptedIOException e) {
            return e;
        }
        MockedResponse response = new MockedResponse(mock.status());
        ContentType contentType = null;
        for (Map.Entry<String, String> h : mock.headers().entrySet()) {
            response.addHeader(h.getKey(), h.getValue());
            if (h.getKey().equalsIgnoreCase("Content-Type")) {
                try {
                    contentType = ContentType.parse(h.getValue());
                } catch (RuntimeException e) {
                    contentType = null;
                }
            }
        }
        byte[] body = mock.body().getBytes(StandardCharsets.UTF_8);
        if (!response.containsHeader("Content-Length")) {
            response.addHeader("Content-Length", String.valueOf(body.length));
        }
        response.setEntity(new ByteArrayEntity(body, contentType));
        return response;
    }

    /** A mock's answer as HttpClient 4 returns one: an HTTP/1.1 response whose {@code close()} has nothing to free. */
    static final class MockedResponse extends BasicHttpResponse implements CloseableHttpResponse {
        MockedResponse(int status) {
            super(new BasicStatusLine(HttpVersion.HTTP_1_1, status,
                    EnglishReasonPhraseCatalog.INSTANCE.getReason(status, Locale.ENGLISH)));
        }

        @Override
        public void close() {}
    }
}
