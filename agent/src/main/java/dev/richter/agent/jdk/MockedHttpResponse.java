package dev.richter.agent.jdk;

import dev.richter.agent.bootstrap.ExitDecision;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.function.BiPredicate;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;

/**
 * A mock's answer as a JDK {@link HttpResponse}: its status and headers, HTTP/1.1, and its body (UTF-8) delivered
 * through the caller's {@link HttpResponse.BodyHandler} exactly as a network body would be (one buffer, then
 * completion), so {@code ofString}, {@code ofByteArray}, {@code ofInputStream}, {@code ofLines} and the caller's own
 * handlers all work. A helper injected next to the JDK's client, like {@link JdkHttpClientExits}; Java 11, as it is.
 */
public final class MockedHttpResponse<T> implements HttpResponse<T> {
    private final int status;
    private final HttpRequest request;
    private final HttpHeaders headers;
    private final T body;

    private MockedHttpResponse(int status, HttpRequest request, HttpHeaders headers, T body) {
        this.status = status;
        this.request = request;
        this.headers = headers;
        this.body = body;
    }

    /**
     * Builds the answer now (no latency waited here).
     *
     * @throws IOException when the caller's body handler fails, as a network body's failure would surface
     */
    static <T> HttpResponse<T> answer(HttpRequest request, BodyHandler<T> handler, ExitDecision.Mock mock)
            throws IOException {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (Map.Entry<String, String> h : mock.headers().entrySet()) {
            map.put(h.getKey(), List.of(h.getValue()));
        }
        byte[] bytes = mock.body().getBytes(StandardCharsets.UTF_8);
        map.putIfAbsent("content-length", List.of(String.valueOf(bytes.length)));
        HttpHeaders headers = HttpHeaders.of(map, new AllHeaders());
        BodySubscriber<T> subscriber = handler.apply(new Info(mock.status(), headers));
        subscriber.onSubscribe(new OneBuffer(subscriber, bytes));
        try {
            return new MockedHttpResponse<>(mock.status(), request, headers, subscriber.getBody().toCompletableFuture().get());
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the mock's body", e);
        }
    }

    @Override
    public int statusCode() {
        return status;
    }

    @Override
    public HttpRequest request() {
        return request;
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
        return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
        return headers;
    }

    @Override
    public T body() {
        return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
        return Optional.empty();
    }

    @Override
    public URI uri() {
        return request.uri();
    }

    @Override
    public HttpClient.Version version() {
        return HttpClient.Version.HTTP_1_1;
    }

    /** The answer for {@code sendAsync}, built on the delayed executor once the mock's latency has passed. */
    static final class Later implements Supplier<HttpResponse<?>> {
        private final HttpRequest request;
        private final BodyHandler<?> handler;
        private final ExitDecision.Mock mock;

        Later(HttpRequest request, BodyHandler<?> handler, ExitDecision.Mock mock) {
            this.request = request;
            this.handler = handler;
            this.mock = mock;
        }

        @Override
        public HttpResponse<?> get() {
            try {
                return answer(request, handler, mock);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }
    }

    /** What the body handler sees of the response before its body. */
    private static final class Info implements ResponseInfo {
        private final int statusCode;
        private final HttpHeaders headers;

        Info(int statusCode, HttpHeaders headers) {
            this.statusCode = statusCode;
            this.headers = headers;
        }

        @Override
        public int statusCode() {
            return statusCode;
        }

        @Override
        public HttpHeaders headers() {
            return headers;
        }

        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }

    /** Keeps every configured header. */
    private static final class AllHeaders implements BiPredicate<String, String> {
        @Override
        public boolean test(String name, String value) {
            return true;
        }
    }

    /** A subscription that delivers the body as one buffer on the first demand, then completes (Reactive Streams). */
    private static final class OneBuffer implements Flow.Subscription {
        private final Flow.Subscriber<? super List<ByteBuffer>> subscriber;
        private final byte[] bytes;
        private boolean done;

        OneBuffer(Flow.Subscriber<? super List<ByteBuffer>> subscriber, byte[] bytes) {
            this.subscriber = subscriber;
            this.bytes = bytes;
        }

        @Override
        public synchronized void request(long n) {
            if (done) {
                return;
            }
            done = true;
            if (n <= 0) {
                subscriber.onError(new IllegalArgumentException("non-positive request: " + n));
                return;
            }
            if (bytes.length > 0) {
                subscriber.onNext(List.of(ByteBuffer.wrap(bytes)));
            }
            subscriber.onComplete();
        }

        @Override
        public synchronized void cancel() {
            done = true;
        }
    }
}
