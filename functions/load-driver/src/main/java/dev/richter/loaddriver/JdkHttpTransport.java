package dev.richter.loaddriver;

import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link HttpTransport} on the JDK {@link HttpClient}: asynchronous, HTTP/1.1 with keep-alive (the JDK
 * pools idle connections per host), completions on a bounded executor of {@code executorThreads}
 * daemon threads.
 *
 * <p>Redirects are followed by {@link Redirects} (the client's own following is off: it would leave the target), each
 * hop a new exchange with the time left of the request's deadline.
 *
 * <p>Bodies are discarded ({@link HttpResponse.BodyHandlers#replacing}, as {@code discarding()} does), except for a
 * request whose {@link OutboundRequest#capture} asks for its body: its final response's body is counted and its first
 * {@link HttpTransport#MAX_KEPT_BODY_BYTES} kept ({@link KeptBody}); redirects followed keep nothing.
 *
 * <p>Headers the JDK client manages itself ({@code connection}, {@code content-length}, {@code expect},
 * {@code host}, {@code upgrade}) and HTTP/2 pseudo-headers ({@code :authority} …) in a replayed request
 * are not copied: the client sets them for the target. Each request carries its deadline as
 * {@link HttpRequest#timeout} and additionally {@link CompletableFuture#orTimeout} (deadline + 250 ms)
 * as a backstop.
 */
public final class JdkHttpTransport implements HttpTransport {
    private static final Set<String> CLIENT_MANAGED = Set.of("connection", "content-length", "expect", "host",
            "upgrade", "keep-alive", "transfer-encoding", "te", "trailer", "proxy-connection", "http2-settings");
    /** Extra time after the deadline before the backstop timeout fires, milliseconds. */
    private static final long BACKSTOP_GRACE_MS = 250;

    private final ExecutorService executor;
    private final HttpClient client;

    /**
     * @param executorThreads completion threads, ≥ 1
     * @param connectTimeout  TCP connect deadline
     */
    public JdkHttpTransport(int executorThreads, Duration connectTimeout) {
        AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(executorThreads, r -> {
            Thread t = new Thread(r, "load-driver-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout)
                .executor(executor)
                .build();
    }

    /** Two completion threads, 2 s connect timeout. */
    public JdkHttpTransport() {
        this(2, Duration.ofSeconds(2));
    }

    @Override
    public PreparedRequest prepare(OutboundRequest request) {
        HttpRequest first = build(request, request.timeoutMs());
        long backstopMs = request.timeoutMs() + BACKSTOP_GRACE_MS;
        return () -> exchange(request, first, System.nanoTime() + request.timeoutMs() * 1_000_000L, 0)
                .orTimeout(backstopMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Sends {@code httpRequest} (the encoding of {@code request}) and follows its redirects ({@link Redirects}), each
     * hop with the time left until {@code deadlineNanos} ({@link System#nanoTime()}) as its timeout.
     */
    private CompletableFuture<ResponseHead> exchange(OutboundRequest request, HttpRequest httpRequest, long deadlineNanos,
                                                     int redirects) {
        Capture capture = request.capture();
        HttpResponse.BodyHandler<KeptBody> bodies = capture.body() ? KEEP_BODY : DISCARD;
        return client.sendAsync(httpRequest, bodies).thenCompose(r -> {
            ResponseHead head = ResponseHead.of(r.statusCode(), r.headers(), JdkHttpTransport::header);
            if (!Redirects.isRedirect(head.status())) {
                if (capture.any()) {
                    Map<String, String> headers = capture.read(r.headers(), JdkHttpTransport::header);
                    head = head.with(r.body() != null ? r.body().kept(headers) : new Kept(headers, new byte[0], -1));
                }
                return CompletableFuture.completedFuture(head);
            }
            OutboundRequest next;
            try {
                Redirects.checkLimit(head.status(), redirects);
                next = Redirects.next(request, head.status(), head.location());
            } catch (RedirectException e) {
                return CompletableFuture.failedFuture(e);
            }
            long leftMs = (deadlineNanos - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                return CompletableFuture.failedFuture(new HttpTimeoutException("request timed out after " + request.timeoutMs() + " ms"));
            }
            return exchange(next, build(next, leftMs), deadlineNanos, redirects + 1);
        });
    }

    /** Every body discarded: {@code BodyHandlers.discarding()}'s subscriber, typed for {@link #KEEP_BODY}'s responses. */
    private static final HttpResponse.BodyHandler<KeptBody> DISCARD = HttpResponse.BodyHandlers.replacing(null);

    /** A final response's body counted and kept up to the bound; a redirect's discarded. */
    private static final HttpResponse.BodyHandler<KeptBody> KEEP_BODY = info -> Redirects.isRedirect(info.statusCode())
            ? HttpResponse.BodySubscribers.replacing(null)
            : HttpResponse.BodySubscribers.fromSubscriber(new KeepingSubscriber(), KeepingSubscriber::body);

    /** Reads a body into a {@link KeptBody}; the client delivers its buffers one list at a time. */
    private static final class KeepingSubscriber implements Flow.Subscriber<List<ByteBuffer>> {
        private final KeptBody body = new KeptBody();

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            buffers.forEach(body::add);
        }

        @Override
        public void onError(Throwable error) {
            // the exchange fails with it
        }

        @Override
        public void onComplete() {
        }

        KeptBody body() {
            return body;
        }
    }

    private static String header(HttpHeaders headers, String name) {
        return headers.firstValue(name).orElse(null);
    }

    private static HttpRequest build(OutboundRequest request, long timeoutMs) {
        HttpRequest.Builder b = HttpRequest.newBuilder(request.uri())
                .timeout(Duration.ofMillis(timeoutMs))
                .method(request.method(), request.body().length == 0
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(request.body()));
        request.headers().forEach((name, value) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!lower.startsWith(":") && !CLIENT_MANAGED.contains(lower)) {
                b.header(name, value);
            }
        });
        return b.build();
    }

    @Override
    public void close() {
        client.shutdownNow();
        executor.shutdownNow();
    }
}
