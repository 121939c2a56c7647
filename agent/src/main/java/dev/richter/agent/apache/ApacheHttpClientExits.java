package dev.richter.agent.apache;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.impl.EnglishReasonPhraseCatalog;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;

/**
 * The isolation at Apache HttpClient 5's classic client: what {@code CloseableHttpClient.doExecute}, the method every
 * {@code execute} and {@code executeOpen} overload ends in, does instead of calling, per the {@link IsolationGuard}'s
 * decision. It runs inside the agent's client span (the agent wraps the {@code execute} overloads), so the decision is
 * stamped on that span. Injected by the agent as a helper next to HttpClient (the service's class loader); reaches
 * the guard through {@link IsolationBridge}.
 */
public final class ApacheHttpClientExits {
    private ApacheHttpClientExits() {}

    /**
     * Before {@code doExecute(target, request, context)}.
     *
     * @param target the host the caller named; {@code null} when the request's URI names it
     * @return {@code null}: call for real; a {@code CloseableHttpResponse}: the mock's answer (its latency already
     *     waited, the body a repeatable entity of its UTF-8 bytes); an {@code IOException}: throw it
     */
    public static Object beforeExecute(HttpHost target, ClassicHttpRequest request) {
        ExitDecision decision;
        IsolationGuard guard = IsolationBridge.guard();
        try {
            URI uri = request.getUri();
            String scheme = target != null ? target.getSchemeName() : uri.getScheme();
            String host = target != null ? target.getHostName() : uri.getHost() == null ? "" : uri.getHost();
            int port = target != null ? target.getPort() : uri.getPort();
            if (port < 0) {
                port = "https".equalsIgnoreCase(scheme) ? 443 : 80;
            }
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            decision = guard.decideHttp(request.getMethod().toUpperCase(Locale.ROOT), host, port, path);
        } catch (URISyntaxException e) {
            // the client fails the same request for the same reason
            return null;
        }
        guard.record(decision);
        return switch (decision) {
            case ExitDecision.Pass p -> null;
            case ExitDecision.WouldRefuse w -> null;
            case ExitDecision.Refuse r -> new IOException(r.message());
            case ExitDecision.Mock m -> answer(m);
        };
    }

    private static Object answer(ExitDecision.Mock mock) {
        if (mock.latencyMs() > 0) {
            try {
                Thread.sleep(mock.latencyMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new InterruptedIOException("interrupted while waiting the mock's latency");
            }
        }
        BasicClassicHttpResponse response = new BasicClassicHttpResponse(mock.status(),
                EnglishReasonPhraseCatalog.INSTANCE.getReason(mock.status(), Locale.ENGLISH));
        ContentType contentType = null;
        for (Map.Entry<String, String> h : mock.headers().entrySet()) {
            response.addHeader(h.getKey(), h.getValue());
            if (h.getKey().equalsIgnoreCase("Content-Type")) {
                contentType = ContentType.parseLenient(h.getValue());
            }
        }
        byte[] body = mock.body().getBytes(StandardCharsets.UTF_8);
        if (!response.containsHeader("Content-Length")) {
            response.addHeader("Content-Length", String.valueOf(body.length));
        }
        response.setEntity(new ByteArrayEntity(body, contentType));
        return CloseableHttpResponse.adapt(response);
    }
}
