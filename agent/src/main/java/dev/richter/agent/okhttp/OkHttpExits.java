package dev.richter.agent.okhttp;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okhttp3.internal.connection.RealCall;

/**
 * The isolation at OkHttp (4.x and 5.x): what a call's chain does, after the application's interceptors and before
 * OkHttp's own (retries, cache, connection), per the {@link IsolationGuard}'s decision. One point serves {@code
 * execute()} and {@code enqueue(callback)}: a refusal thrown here is {@code execute()}'s {@code IOException} and the
 * callback's {@code onFailure}. A MOCK or REFUSE still runs the client's network interceptors, the agent's tracing
 * one among them, over a chain that never connects ({@link SkippedNetwork}): the agent opens its client span as for
 * a real call, the decision is stamped on it, and the span ends with the mock's status or the refusal. Injected by
 * the agent as a helper next to OkHttp (the service's class loader); reaches the guard through {@link
 * IsolationBridge}. No lambdas: every class a helper needs is a named class the module lists for injection.
 */
public final class OkHttpExits {
    private OkHttpExits() {}

    /**
     * Before {@code RetryAndFollowUpInterceptor.intercept(chain)}, the first of OkHttp's own interceptors.
     *
     * @param chain the call's chain at that point: its request is the one the application's interceptors made
     * @return {@code null}: call for real; a {@link Response}: the mock's answer (its latency already waited); a
     *     {@code Throwable}: throw it (the refusal's {@code IOException}, or what a network interceptor threw)
     */
    public static Object beforeNetwork(Interceptor.Chain chain) {
        Request request = chain.request();
        HttpUrl url = request.url();
        IsolationGuard guard = IsolationBridge.guard();
        ExitDecision decision = guard.decideHttp(request.method().toUpperCase(Locale.ROOT), url.host(), url.port(),
                url.encodedPath());
        if (decision instanceof ExitDecision.Pass) {
            return null;
        }
        if (decision instanceof ExitDecision.WouldRefuse) {
            // the agent's client span opens later, in a network interceptor: this stamps the caller's span
            guard.record(decision);
            return null;
        }
        // a Mock or a Refuse
        try {
            // a chain of OkHttp's own always has its RealCall; were it another, the answer comes without them
            List<Interceptor> network = chain.call() instanceof RealCall
                    ? ((RealCall) chain.call()).getClient().networkInterceptors()
                    : Collections.<Interceptor>emptyList();
            return new SkippedNetwork(chain, network, 0, request, decision).proceed(request);
        } catch (Throwable e) {
            return e;
        }
    }

    /** The terminal of a skipped network: stamps the decision on the current span, then mocks or refuses. */
    static Response answer(Request request, ExitDecision decision) throws IOException {
        IsolationBridge.guard().record(decision);
        if (decision instanceof ExitDecision.Refuse) {
            throw new IOException(((ExitDecision.Refuse) decision).message());
        }
        ExitDecision.Mock mock = (ExitDecision.Mock) decision;
        mock.awaitLatency();
        String contentType = null;
        for (Map.Entry<String, String> h : mock.headers().entrySet()) {
            if (h.getKey().equalsIgnoreCase("Content-Type")) {
                contentType = h.getValue();
            }
        }
        byte[] body = mock.body().getBytes(StandardCharsets.UTF_8);
        long now = System.currentTimeMillis();
        return new Response.Builder()
                .request(request)
                .protocol(Protocol.HTTP_1_1)
                .code(mock.status())
                .message("")
                .headers(Headers.of(mock.headers()).newBuilder()
                        .set("Content-Length", String.valueOf(body.length)).build())
                .body(ResponseBody.create(body, contentType == null ? null : MediaType.parse(contentType)))
                .sentRequestAtMillis(now)
                .receivedResponseAtMillis(now)
                .build();
    }

    /**
     * The client's network interceptors, in order, over no connection: each {@code proceed} calls the next
     * interceptor, and the last one gets {@link #answer}. {@code connection()} is {@code null}, as for a call that
     * has none; timeouts are the call's.
     */
    static final class SkippedNetwork implements Interceptor.Chain {
        private final Interceptor.Chain call;
        private final List<Interceptor> network;
        private final int index;
        private final Request request;
        private final ExitDecision decision;

        SkippedNetwork(Interceptor.Chain call, List<Interceptor> network, int index, Request request,
                       ExitDecision decision) {
            this.call = call;
            this.network = network;
            this.index = index;
            this.request = request;
            this.decision = decision;
        }

        @Override
        public Request request() {
            return request;
        }

        @Override
        public Response proceed(Request next) throws IOException {
            if (index < network.size()) {
                return network.get(index).intercept(new SkippedNetwork(call, network, index + 1, next, decision));
            }
            return answer(next, decision);
        }

        @Override
        public Connection connection() {
            return null;
        }

        @Override
        public Call call() {
            return call.call();
        }

        @Override
        public int connectTimeoutMillis() {
            return call.connectTimeoutMillis();
        }

        @Override
        public Interceptor.Chain withConnectTimeout(int timeout, TimeUnit unit) {
            return this;
        }

        @Override
        public int readTimeoutMillis() {
            return call.readTimeoutMillis();
        }

        @Override
        public Interceptor.Chain withReadTimeout(int timeout, TimeUnit unit) {
            return this;
        }

        @Override
        public int writeTimeoutMillis() {
            return call.writeTimeoutMillis();
        }

        @Override
        public Interceptor.Chain withWriteTimeout(int timeout, TimeUnit unit) {
            return this;
        }
    }
}
