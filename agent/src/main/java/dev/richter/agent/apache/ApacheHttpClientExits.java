package dev.richter.agent.apache;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import java.io.InterruptedIOException;
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
import org.apache.hc.core5.net.URIAuthority;

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
     * @param target the host the caller named; {@code null} when the request names it (its authority)
     * @return {@code null}: call for real; a {@code CloseableHttpResponse}: the mock's answer (its latency already
     *     waited, the body a repeatable entity of its UTF-8 bytes); an {@code IOException}: throw it
     */
    public static Object beforeExecute(HttpHost target, ClassicHttpRequest request) {
        IsolationGuard guard = IsolationBridge.guard();
        URIAuthority authority = request.getAuthority();
        String scheme = target != null ? target.getSchemeName() : request.getScheme();
        String host = target != null ? target.getHostName() : authority != null ? authority.getHostName() : "";
        int port = target != null ? target.getPort() : authority != null ? authority.getPort() : -1;
        if (port < 0) {
            port = "https".equalsIgnoreCase(scheme) ? 443 : 80;
        }
        String path = request.getPath() == null ? "" : request.getPath();
        int query = path.indexOf('?');
        path = query >= 0 ? path.substring(0, query) : path;
        ExitDecision decision = guard.decideHttp(request.getMethod().toUpperCase(Locale.ROOT), host, port,
                path.isEmpty() ? "/" : path);
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
