package dev.richter.agent.jdk;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The isolation at the JDK's {@code java.net.http.HttpClient}: what {@code send} and {@code sendAsync} do instead of
 * calling, per the {@link IsolationGuard}'s decision. Injected by the agent as a helper next to the JDK's client
 * (platform class loader); reaches the guard through {@link IsolationBridge}. No lambdas: every class a helper
 * needs is a named class the module lists for injection. Compiled for Java 11 ({@code java.net.http}), as {@link
 * MockedHttpResponse} is; the rest of the extension is Java 8.
 */
public final class JdkHttpClientExits {
    private JdkHttpClientExits() {}

    /**
     * Before {@code HttpClient.send(request, handler)}.
     *
     * @return {@code null}: call for real; an {@code HttpResponse}: the mock's answer (its latency already waited, the
     *     body delivered through {@code handler}); an {@code IOException} (or {@code InterruptedException}): throw it
     */
    public static Object beforeSend(HttpRequest request, HttpResponse.BodyHandler<?> handler) {
        ExitDecision decision = decideAndRecord(request);
        if (decision instanceof ExitDecision.Refuse) {
            return new IOException(((ExitDecision.Refuse) decision).message());
        }
        if (decision instanceof ExitDecision.Mock) {
            return answerNow(request, handler, (ExitDecision.Mock) decision);
        }
        return null; // a Pass or a WouldRefuse
    }

    /**
     * Before {@code HttpClient.sendAsync(request, handler, ...)}.
     *
     * @return {@code null}: call for real; else the future to return instead: completed with the mock's answer after
     *     its latency (without blocking the caller), or failed with the refusal's {@code IOException}
     */
    public static CompletableFuture<?> beforeSendAsync(HttpRequest request, HttpResponse.BodyHandler<?> handler) {
        ExitDecision decision = decideAndRecord(request);
        if (decision instanceof ExitDecision.Refuse) {
            return CompletableFuture.failedFuture(new IOException(((ExitDecision.Refuse) decision).message()));
        }
        if (decision instanceof ExitDecision.Mock) {
            ExitDecision.Mock m = (ExitDecision.Mock) decision;
            return CompletableFuture.supplyAsync(new MockedHttpResponse.Later(request, handler, m),
                    CompletableFuture.delayedExecutor(m.latencyMs(), TimeUnit.MILLISECONDS));
        }
        return null; // a Pass or a WouldRefuse
    }

    /** The guard's decision for {@code request}, stamped on the current span (the agent's client span). */
    private static ExitDecision decideAndRecord(HttpRequest request) {
        IsolationGuard guard = IsolationBridge.guard();
        URI uri = request.uri();
        String host = uri.getHost() == null ? "" : uri.getHost();
        int port = uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        ExitDecision decision = guard.decideHttp(request.method().toUpperCase(Locale.ROOT), host, port, path);
        guard.record(decision);
        return decision;
    }

    private static Object answerNow(HttpRequest request, HttpResponse.BodyHandler<?> handler, ExitDecision.Mock mock) {
        try {
            if (mock.latencyMs() > 0) {
                Thread.sleep(mock.latencyMs());
            }
            return MockedHttpResponse.answer(request, handler, mock);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        } catch (IOException e) {
            return e;
        }
    }
}
