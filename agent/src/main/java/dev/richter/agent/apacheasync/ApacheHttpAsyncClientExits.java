package dev.richter.agent.apacheasync;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.impl.BasicEntityDetails;
import org.apache.hc.core5.http.impl.EnglishReasonPhraseCatalog;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.protocol.HttpCoreContext;
import org.apache.hc.core5.net.URIAuthority;
import org.apache.hc.core5.util.TimeValue;

/**
 * The isolation at Apache HttpClient 5's async client (tested with httpclient5 5.5.1, httpcore5 5.3.6): what {@code
 * InternalAbstractHttpAsyncClient.executeImmediate(request, entityProducer, scope, chain, callback)} does instead of
 * running the client's execution chain, per the {@link IsolationGuard}'s decision. Every {@code
 * CloseableHttpAsyncClient.execute} overload of the clients {@code HttpAsyncClients.createDefault()}, {@code custom()},
 * {@code createSystem()} and {@code H2AsyncClientBuilder} build ends there, on the caller's thread (in {@code
 * doExecute}, once the request producer has handed over the request, its scheme and authority set), before any
 * connection is leased. A refusal fails the exchange with an {@code IOException} naming the exit: the returned {@code
 * Future} fails with it and the {@code FutureCallback}'s {@code failed} is called. A mock answers through the chain's
 * own callback ({@code handleResponse}, the body to the data consumer it returns, then {@code completed}), so the
 * caller's response consumer builds the answer (a {@code SimpleHttpResponse}, a {@code Message}, ...); after {@code
 * latencyMs} on the client's own scheduler (httpclient5 5.3 and later), else at once. The decision is stamped on the
 * caller's span (the agent's client span is open but not current there). Injected by the agent as a helper next to
 * HttpClient; reaches the guard through {@link IsolationBridge}.
 */
public final class ApacheHttpAsyncClientExits {
    private ApacheHttpAsyncClientExits() {}

    /**
     * Before {@code executeImmediate}.
     *
     * @param request  the request as the client will send it (scheme and authority set)
     * @param producer its entity producer, {@code null} when it has none
     * @param scope    the exchange's scope (its client context, scheduler)
     * @param callback the exchange's callback: the refusal or the mock goes there
     * @return {@code true}: the exchange was answered (mock) or failed (refusal), do not run the chain; {@code false}:
     *     run it (a pass, or a refusal report mode lets through)
     */
    public static boolean answered(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
                                   AsyncExecCallback callback) {
        IsolationGuard guard = IsolationBridge.guard();
        ExitDecision decision = guard.decideHttp(request.getMethod().toUpperCase(Locale.ROOT), host(request),
                port(request), path(request));
        guard.record(decision);
        if (decision instanceof ExitDecision.Refuse) {
            try {
                callback.failed(new IOException(((ExitDecision.Refuse) decision).message()));
            } catch (RuntimeException e) {
                // the exchange is failed; what its callback throws changes nothing of that
            }
            return true;
        }
        if (!(decision instanceof ExitDecision.Mock)) {
            return false; // a Pass or a WouldRefuse
        }
        ExitDecision.Mock mock = (ExitDecision.Mock) decision;
        MockedChain answer = new MockedChain(mock);
        if (mock.latencyMs() > 0 && scope.scheduler != null) {
            try {
                scope.scheduler.scheduleExecution(request, producer, scope, answer, callback,
                        TimeValue.of(mock.latencyMs(), TimeUnit.MILLISECONDS));
                return true;
            } catch (LinkageError e) {
                // httpclient5 before 5.3: no scheduling of another chain; answered at once below
            } catch (RuntimeException e) {
                callback.failed(e);
                return true;
            }
        }
        answer.proceed(request, producer, scope, callback);
        return true;
    }

    static String host(HttpRequest request) {
        URIAuthority authority = request.getAuthority();
        return authority == null ? "" : authority.getHostName();
    }

    /** The authority's port, or the scheme's default (443 for {@code https}, else 80). */
    static int port(HttpRequest request) {
        URIAuthority authority = request.getAuthority();
        int port = authority == null ? -1 : authority.getPort();
        return port >= 0 ? port : "https".equalsIgnoreCase(request.getScheme()) ? 443 : 80;
    }

    /** The request's path without its query, {@code /} when empty. */
    static String path(HttpRequest request) {
        String path = request.getPath() == null ? "" : request.getPath();
        int query = path.indexOf('?');
        path = query >= 0 ? path.substring(0, query) : path;
        return path.isEmpty() ? "/" : path;
    }

    /**
     * The mock's answer as an execution chain that never connects: the response (status, the mock's headers, {@code
     * Content-Length}) to the callback's {@code handleResponse}, the body's UTF-8 bytes to the data consumer it
     * returns, then {@code completed}; a failure of the consumer fails the exchange.
     */
    static final class MockedChain implements AsyncExecChain {
        private final ExitDecision.Mock mock;

        MockedChain(ExitDecision.Mock mock) {
            this.mock = mock;
        }

        @Override
        public void proceed(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
                            AsyncExecCallback callback) {
            try {
                BasicHttpResponse response = new BasicHttpResponse(mock.status(),
                        EnglishReasonPhraseCatalog.INSTANCE.getReason(mock.status(), Locale.ENGLISH));
                String contentType = null;
                for (Map.Entry<String, String> h : mock.headers().entrySet()) {
                    response.addHeader(h.getKey(), h.getValue());
                    if (h.getKey().equalsIgnoreCase("Content-Type")) {
                        contentType = h.getValue();
                    }
                }
                byte[] body = mock.body().getBytes(StandardCharsets.UTF_8);
                if (!response.containsHeader("Content-Length")) {
                    response.addHeader("Content-Length", String.valueOf(body.length));
                }
                // the agent's client span ends with the response the client context holds, as for a real exchange
                scope.clientContext.setAttribute(HttpCoreContext.HTTP_RESPONSE, response);
                AsyncDataConsumer consumer = callback.handleResponse(response, body.length == 0 ? null
                        : new BasicEntityDetails(body.length,
                                contentType == null ? null : ContentType.parseLenient(contentType)));
                if (consumer != null) {
                    consumer.consume(ByteBuffer.wrap(body));
                    consumer.streamEnd(null);
                }
                callback.completed();
            } catch (HttpException | IOException | RuntimeException e) {
                callback.failed(e);
            }
        }
    }
}
