package dev.richter.loaddriver;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@link HttpTransport} on Netty: HTTP/1.1 keep-alive (one request per connection at a time, no pipelining) or
 * HTTP/2 (many streams per connection), at most {@code maxConnectionsPerHost} connections per target; a request
 * that finds no free connection or stream waits for one within its own deadline (it stays in flight for the
 * driver's cap). The target address is resolved once, when the request is prepared.
 *
 * <p>Protocols ({@link Options}): {@code http://} speaks HTTP/1.1, or HTTP/2 with prior knowledge (h2c,
 * RFC 9113 §3.3) when {@link Options#cleartext} is {@link Protocol#HTTP_2}; {@code https://} is refused unless
 * {@link Options#tls} is set, and then offers ALPN {@code h2, http/1.1} ({@link Protocol#HTTP_2}) or
 * {@code http/1.1} alone and speaks what the server picks (JDK TLS, default trust store, host name verified).
 * Which one wins is measured by {@code bench/load-driver.sh} ({@code PROTOCOL=h2c|h2}); see {@link Protocol#HTTP_2}.
 *
 * <p>Hot path: each request is encoded once in {@link #prepare} (HTTP/1.1: head and body as one read-only direct
 * buffer, sent as a duplicate; HTTP/2: one header block and body); a send is one write and one response parse.
 * All connections of a target live on one event loop and all pool bookkeeping runs there, without locks. With
 * the native epoll transport (Linux; NIO elsewhere) that loop's timers are precise (timerfd), so it is offered as
 * the request's {@link PreparedRequest#sendLoop} (one per event loop, shared by every target on it): the load
 * driver schedules its arrivals on it and a send there writes at once, with no wake-up of another thread.
 *
 * <p>Redirects ({@link Redirects}): a redirect within the target is followed by the same {@link PendingRequest} on the
 * same pool (same origin, same pool), under the same deadline; each request keeps the encoded hops its redirects led to
 * (up to {@link EncodedRequest#MAX_KEPT_HOPS}), so a redirect that always answers the same costs no encoding per send.
 *
 * <p>Deadline: at send a request joins its pool's deadline queue (one timer for every request of the target, see
 * {@link HostPool#byDeadline}); at its deadline it fails with {@link HttpTimeoutException}; an HTTP/1.1
 * connection still carrying it is closed, an HTTP/2 stream is reset (CANCEL). Connection failures (refused,
 * connect timeout, TLS handshake) complete with {@link ConnectException}; a connection or stream closed
 * mid-exchange with an {@link IOException}.
 */
public final class NettyHttpTransport implements HttpTransport {
    /**
     * Default cap on open connections per target host: 960, a Lambda's 1 024 file descriptors (AWS Lambda quotas, "File
     * descriptors") less 64 for the JVM (its jars, epoll and event descriptors, the DynamoDB and KMS clients'
     * connections, standard streams). Over HTTP/1.1 a connection carries one request at a time, so this is also the most
     * requests in flight to one HTTP/1.1 target ({@link PreparedRequest#inFlightCapacity}); the load driver caps its
     * in-flight requests there rather than letting them wait for a connection unsent.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_HOST = 960;
    /**
     * Connection attempts (TCP connect and, for https, TLS handshake) one target may have under way at once; further
     * requests without a connection wait for these (or for a free one). Without the bound, a burst at the start of a
     * step opens one HTTP/1.1 connection per waiting request at once, and over TLS those handshakes starve the loop.
     */
    public static final int MAX_CONNECTING_PER_HOST = 8;
    /**
     * Default poll-before-send window of the send loop, nanoseconds (see {@link SpinningTimerLoop}): none. With
     * 50 µs, {@code bench/load-driver.sh} showed no jitter gain beyond its noise and about 20 % more CPU per request
     * at 15 000 QPS (the poll is busy time).
     */
    public static final long DEFAULT_SPIN_NANOS = 0L;
    private static final Set<String> SKIPPED = Set.of("connection", "content-length", "host", "keep-alive",
            "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "expect", "http2-settings");
    private static final Set<String> NO_BODY_METHODS = Set.of("GET", "HEAD", "DELETE", "OPTIONS", "TRACE");

    /** HTTP version spoken on one scheme. */
    public enum Protocol {
        /** HTTP/1.1, keep-alive, one request per connection at a time. */
        HTTP_1_1,
        /**
         * HTTP/2: on {@code http://} with prior knowledge (h2c); on {@code https://} offered first by ALPN.
         *
         * <p>Measured with {@code bench/load-driver.sh} (open-model max rate on one core of the shared 2-core host,
         * nginx on the other, same run): over TLS, h2 sustained 27 032 req/s against 11 363 for HTTP/1.1 over
         * Netty's TLS and 1 219 for the JDK client (an earlier run: 22 763 against 1 661 for the JDK client) — one
         * handshake instead of one per connection — so the load driver offers it on https. On http://, h2c sustained 28 454, 11 363 and
         * 11 072 req/s against 12 383, 13 840 and 13 476 for HTTP/1.1 in three runs, at about the same CPU per
         * request: no consistent win, and it needs prior knowledge of the target, so HTTP/1.1 stays the default.
         */
        HTTP_2
    }

    /**
     * Transport settings.
     *
     * @param connectTimeout        TCP connect deadline
     * @param maxConnectionsPerHost open connections per target host, ≥ 1; further requests wait (within their
     *                              deadline) for a free connection or stream instead of opening connection storms
     *                              when the target slows down
     * @param cleartext             protocol on {@code http://}; {@link Protocol#HTTP_2} only for targets known to
     *                              speak h2c (there is no fallback)
     * @param tls                   protocol offered on {@code https://}, or {@code null} to refuse https
     *                              ({@link JdkHttpTransport} then serves it, see {@link SchemeRoutingTransport})
     * @param trust                 trusted certificates for https, or {@code null} for the JVM's default trust store
     * @param spinNanos             with the epoll transport, how long before each scheduled send the send loop stops
     *                              sleeping and polls instead ({@link SpinningTimerLoop}), nanoseconds, ≥ 0
     */
    public record Options(Duration connectTimeout, int maxConnectionsPerHost, Protocol cleartext, Protocol tls,
                          TrustManagerFactory trust, long spinNanos) {
        /**
         * 2 s connect timeout, {@value #DEFAULT_MAX_CONNECTIONS_PER_HOST} connections per host, HTTP/1.1 on
         * {@code http://}, https refused, {@value #DEFAULT_SPIN_NANOS} ns send-loop poll window.
         */
        public static final Options DEFAULT = new Options(Duration.ofSeconds(2), DEFAULT_MAX_CONNECTIONS_PER_HOST,
                Protocol.HTTP_1_1, null, null, DEFAULT_SPIN_NANOS);

        /** @throws IllegalArgumentException when {@code maxConnectionsPerHost} &lt; 1 or a required value is null */
        public Options {
            if (maxConnectionsPerHost < 1 || spinNanos < 0 || connectTimeout == null || cleartext == null) {
                throw new IllegalArgumentException("maxConnectionsPerHost must be >= 1, spinNanos >= 0; connectTimeout and cleartext are required");
            }
        }

        /** These options with {@code cleartext} on {@code http://}. */
        public Options withCleartext(Protocol protocol) {
            return new Options(connectTimeout, maxConnectionsPerHost, protocol, tls, trust, spinNanos);
        }

        /** These options with {@code protocol} offered on {@code https://} ({@code null} refuses https). */
        public Options withTls(Protocol protocol) {
            return new Options(connectTimeout, maxConnectionsPerHost, cleartext, protocol, trust, spinNanos);
        }

        /** These options with {@code trust} for https ({@code null}: the JVM's default trust store). */
        public Options withTrust(TrustManagerFactory trustManagers) {
            return new Options(connectTimeout, maxConnectionsPerHost, cleartext, tls, trustManagers, spinNanos);
        }

        /** These options with {@code timeout} for TCP connects. */
        public Options withConnectTimeout(Duration timeout) {
            return new Options(timeout, maxConnectionsPerHost, cleartext, tls, trust, spinNanos);
        }

        /** These options with at most {@code n} connections per target host. */
        public Options withMaxConnectionsPerHost(int n) {
            return new Options(connectTimeout, n, cleartext, tls, trust, spinNanos);
        }

        /** These options with the send loop polling {@code nanos} before each scheduled send (0: never). */
        public Options withSpinNanos(long nanos) {
            return new Options(connectTimeout, maxConnectionsPerHost, cleartext, tls, trust, nanos);
        }
    }

    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final boolean preciseTimers;
    private final Options options;
    private final SslContext sslContext;
    private final Map<PoolKey, HostPool> pools = new ConcurrentHashMap<>();
    /** Exchanges started again because the server never processed them ({@link #retriedExchanges}). */
    private final java.util.concurrent.atomic.LongAdder retried = new java.util.concurrent.atomic.LongAdder();
    /** One timer loop per event loop, so the requests of every target on that loop share one send loop. */
    private final Map<EventLoop, SpinningTimerLoop> timerLoops = new ConcurrentHashMap<>();

    private record PoolKey(boolean tls, String host, int port) {}

    /**
     * @param eventLoopThreads I/O threads, ≥ 1 (each target host's connections share one of them)
     * @param options          protocols and limits
     * @throws IllegalArgumentException when {@code eventLoopThreads} &lt; 1
     * @throws IllegalStateException    when the TLS context cannot be built
     */
    public NettyHttpTransport(int eventLoopThreads, Options options) {
        if (eventLoopThreads < 1) {
            throw new IllegalArgumentException("eventLoopThreads must be >= 1");
        }
        this.options = options;
        DefaultThreadFactory threads = new DefaultThreadFactory("load-driver-netty", true);
        this.preciseTimers = Epoll.isAvailable();
        this.group = preciseTimers ? new EpollEventLoopGroup(eventLoopThreads, threads, 0, SpinningTimerLoop.STRATEGY)
                : new NioEventLoopGroup(eventLoopThreads, threads);
        this.bootstrap = new Bootstrap().channel(preciseTimers ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) options.connectTimeout().toMillis());
        this.sslContext = options.tls() == null ? null : sslContext(options.tls(), options.trust());
    }

    /**
     * @param eventLoopThreads      I/O threads, ≥ 1
     * @param connectTimeout        TCP connect deadline
     * @param maxConnectionsPerHost open connections per target host (see {@link Options})
     */
    public NettyHttpTransport(int eventLoopThreads, Duration connectTimeout, int maxConnectionsPerHost) {
        this(eventLoopThreads, Options.DEFAULT.withMaxConnectionsPerHost(maxConnectionsPerHost)
                .withConnectTimeout(connectTimeout));
    }

    /** Given threads and connect timeout, {@value #DEFAULT_MAX_CONNECTIONS_PER_HOST} connections per host. */
    public NettyHttpTransport(int eventLoopThreads, Duration connectTimeout) {
        this(eventLoopThreads, connectTimeout, DEFAULT_MAX_CONNECTIONS_PER_HOST);
    }

    /** One event-loop thread, {@link Options#DEFAULT}. */
    public NettyHttpTransport() {
        this(1, Options.DEFAULT);
    }

    /** True when the native epoll transport runs (precise timers, {@link PreparedRequest#sendLoop} offered). */
    public boolean nativeTransport() {
        return preciseTimers;
    }

    private static SslContext sslContext(Protocol offered, TrustManagerFactory trust) {
        List<String> alpn = offered == Protocol.HTTP_2
                ? List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1)
                : List.of(ApplicationProtocolNames.HTTP_1_1);
        try {
            return SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                    .endpointIdentificationAlgorithm("HTTPS")
                    .trustManager(trust)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn))
                    .build();
        } catch (SSLException e) {
            throw new IllegalStateException("TLS context: " + e, e);
        }
    }

    @Override
    public PreparedRequest prepare(OutboundRequest request) {
        URI uri = request.uri();
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean tls = scheme.equals("https");
        if (!(scheme.equals("http") || (tls && sslContext != null)) || uri.getHost() == null) {
            throw new IllegalArgumentException("NettyHttpTransport supports http://" + (sslContext != null ? " and https://" : "")
                    + " only: " + uri);
        }
        int port = uri.getPort() < 0 ? (tls ? 443 : 80) : uri.getPort();
        PoolKey key = new PoolKey(tls, uri.getHost(), port);
        HostPool pool = pools.computeIfAbsent(key, k -> new HostPool(group.next(), k,
                new InetSocketAddress(k.host(), k.port())));
        String method = request.method().toUpperCase(Locale.ROOT);
        String target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        String authority = uri.getHost() + (uri.getPort() < 0 ? "" : ":" + port);
        byte[] body = request.body();
        boolean contentLength = body.length > 0 || !NO_BODY_METHODS.contains(method);

        StringBuilder head = new StringBuilder(256)
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("host: ").append(authority).append("\r\n");
        Http2Headers h2 = new DefaultHttp2Headers(false)
                .method(method).scheme(scheme).authority(authority).path(target);
        request.headers().forEach((name, value) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!lower.startsWith(":") && !SKIPPED.contains(lower)) {
                head.append(name).append(": ").append(value).append("\r\n");
                h2.add(lower, value);
            }
        });
        if (contentLength) {
            head.append("content-length: ").append(body.length).append("\r\n");
            h2.setInt("content-length", body.length);
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf h1 = constant(headBytes, body);
        ByteBuf h2Body = body.length == 0 ? null : constant(body);
        return new EncodedRequest(request, pool, h1, h2, h2Body, method.equals("HEAD"), request.timeoutMs());
    }

    /**
     * {@code parts}, concatenated, as a read-only direct buffer that nothing releases: a JDK direct {@link ByteBuffer},
     * wrapped, which its cleaner frees when the prepared request holding it is collected. Sends write duplicates of it
     * from its memory address, as from any direct buffer. One from Netty's allocators would be tracked by its leak
     * detector and reported as a leak once collected: a worker drops its prepared requests at the end of its run, and
     * a redirect whose {@code Location} changes on each answer is encoded for each send.
     */
    private static ByteBuf constant(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        ByteBuffer bytes = ByteBuffer.allocateDirect(length);
        for (byte[] part : parts) {
            bytes.put(part);
        }
        return Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(bytes.flip()).asReadOnly());
    }

    /** A prepared request: what it was prepared from, its pool, its encodings and the hops its redirects led to. */
    final class EncodedRequest implements PreparedRequest {
        /**
         * Encoded hops kept per prepared request, by redirect status and {@code Location}: a redirect that answers the
         * same each time is encoded once; one whose {@code Location} changes each time is encoded per send past these.
         */
        static final int MAX_KEPT_HOPS = 8;
        final OutboundRequest source;
        final HostPool pool;
        final ByteBuf http1;
        final Http2Headers http2Headers;
        final ByteBuf http2Body;
        final boolean head;
        final long timeoutMs;
        /** The encoded hops by redirect status and Location, or null before the first; confined to the pool's loop. */
        private Map<String, EncodedRequest> hops;

        EncodedRequest(OutboundRequest source, HostPool pool, ByteBuf http1, Http2Headers http2Headers, ByteBuf http2Body,
                       boolean head, long timeoutMs) {
            this.source = source;
            this.pool = pool;
            this.http1 = http1;
            this.http2Headers = http2Headers;
            this.http2Body = http2Body;
            this.head = head;
            this.timeoutMs = timeoutMs;
        }

        /**
         * The hop that follows {@code response}, a redirect, after {@code redirects} followed ({@link Redirects}); on the
         * pool's loop. Within the target, so on the same pool.
         *
         * @throws RedirectException when it is not followed
         */
        EncodedRequest hop(ResponseHead response, int redirects) throws RedirectException {
            Redirects.checkLimit(response.status(), redirects);
            String key = response.status() + " " + response.location();
            EncodedRequest hop = hops == null ? null : hops.get(key);
            if (hop == null) {
                hop = (EncodedRequest) prepare(Redirects.next(source, response.status(), response.location()));
                if (hops == null) {
                    hops = new HashMap<>();
                }
                if (hops.size() < MAX_KEPT_HOPS) {
                    hops.put(key, hop);
                }
            }
            return hop;
        }

        @Override
        public CompletableFuture<ResponseHead> send() {
            return pool.send(this);
        }

        @Override
        public Optional<ArrivalScheduler.TimerLoop> sendLoop() {
            return preciseTimers ? Optional.of(pool.timers) : Optional.empty();
        }

        /** Opens connections of the pool on its loop for {@code inFlight} exchanges: see {@link HostPool#preconnect}. */
        @Override
        public void preconnect(int inFlight) {
            pool.loop.execute(() -> pool.preconnect(inFlight));
        }

        /**
         * HTTP/1.1 (and {@code https://} offering only http/1.1): {@code maxConnectionsPerHost}, one exchange per
         * connection; HTTP/2 (h2c, or https offering h2, before ALPN has told too): unbounded
         * ({@link Integer#MAX_VALUE}), since more connections open as the streams of the open ones fill.
         */
        @Override
        public int inFlightCapacity() {
            return Boolean.FALSE.equals(pool.speaksHttp2) ? options.maxConnectionsPerHost() : Integer.MAX_VALUE;
        }
    }

    /**
     * One request from send to outcome, its redirects included, confined to its pool's loop; {@link #run()} is its
     * deadline, for the whole chain.
     */
    static final class PendingRequest implements Runnable {
        final CompletableFuture<ResponseHead> result = new CompletableFuture<>();
        /** The exchange under way: the request sent, or the hop its last redirect led to. */
        EncodedRequest request;
        final long deadlineNanos;
        /** Its own deadline timer, or null when its pool's deadline queue times it out ({@link HostPool#byDeadline}). */
        ScheduledFuture<?> timeout;
        Connection connection;
        int streamId;
        int status;
        /** HTTP/2: the response read from its HEADERS frame, until the stream ends. */
        ResponseHead response;
        /** HTTP/2, for a request whose {@link Capture} asks for anything: the headers kept, else null. */
        Map<String, String> keptHeaders;
        /** HTTP/2, for a request that asks for the body: the body read so far, else null. */
        KeptBody keptBody;
        /** Redirects followed so far. */
        int redirects;
        boolean done;

        PendingRequest(EncodedRequest request, long deadlineNanos) {
            this.request = request;
            this.deadlineNanos = deadlineNanos;
        }

        /** The deadline passed: times out, and cancels the exchange on its connection if it has one. */
        @Override
        public void run() {
            if (done) {
                return;
            }
            done = true;
            result.completeExceptionally(new HttpTimeoutException("request timed out after " + request.timeoutMs + " ms"));
            if (connection != null) {
                connection.cancel(this);
            }
        }

        /**
         * The exchange's response arrived (its connection done with it): a redirect is followed on the pool, with the
         * same deadline, or fails the request; any other response completes it.
         */
        void succeed(ResponseHead response) {
            if (done) {
                return;
            }
            if (Redirects.isRedirect(response.status())) {
                follow(response);
                return;
            }
            done = true;
            if (timeout != null) {
                timeout.cancel(false);
            }
            result.complete(response);
        }

        private void follow(ResponseHead redirect) {
            EncodedRequest hop;
            try {
                hop = request.hop(redirect, redirects);
            } catch (RedirectException e) {
                fail(e);
                return;
            }
            redirects++;
            request = hop;
            connection = null;
            streamId = 0;
            status = 0;
            response = null;
            keptHeaders = null;
            keptBody = null;
            hop.pool.dispatch(this);
        }

        void fail(Throwable error) {
            if (!done) {
                done = true;
                if (timeout != null) {
                    timeout.cancel(false);
                }
                result.completeExceptionally(error);
            }
        }
    }

    /** One open connection as the pool sees it; every method runs on the pool's loop. */
    interface Connection {
        /** Whether it multiplexes (HTTP/2) rather than carrying one exchange at a time. */
        boolean multiplexed();

        /** Whether it can start one more exchange now. */
        boolean hasCapacity();

        /** Exchanges it carries at once: 1 for HTTP/1.1; HTTP/2, the server's {@code MAX_CONCURRENT_STREAMS}. */
        default int maxStreams() {
            return 1;
        }

        /** Starts {@code ex} (the caller checked {@link #hasCapacity()}). */
        void start(PendingRequest ex);

        /** {@code ex}'s deadline passed while it was on this connection. */
        void cancel(PendingRequest ex);

        Channel channel();
    }

    /** One connection attempt, made on behalf of the exchange that found no free connection. */
    final class Attempt {
        final HostPool pool;
        final PendingRequest opener;
        Connection connection;
        boolean settled;

        Attempt(HostPool pool, PendingRequest opener) {
            this.pool = pool;
            this.opener = opener;
        }

        /** The connection can carry exchanges (HTTP/1.1: connected or ALPN done; HTTP/2: server settings read). */
        void ready(Connection c) {
            if (!settled) {
                settled = true;
                connection = c;
                pool.connecting--;
                pool.onReady(c, opener);
            }
        }

        /** It will never be ready: the opener fails with a {@link ConnectException}, waiting exchanges try again. */
        void failed(Throwable cause) {
            if (!settled) {
                settled = true;
                pool.connecting--;
                ConnectException e = new ConnectException("connect " + pool.address + ": " + cause);
                e.initCause(cause);
                opener.fail(e); // the channel closes next, and the pool's close handler lets a waiting exchange retry
            }
        }
    }

    /** The connections to one target and the exchanges waiting for one; confined to {@link #loop}. */
    @Override
    public long retriedExchanges() {
        return retried.sum();
    }

    final class HostPool {
        final EventLoop loop;
        final SpinningTimerLoop timers;
        final PoolKey key;
        final InetSocketAddress address;
        final ArrayDeque<Connection> idle = new ArrayDeque<>();
        final List<Connection> multiplexed = new ArrayList<>();
        final ArrayDeque<PendingRequest> waiting = new ArrayDeque<>();
        int open;
        int connecting;
        /** After the first connection: whether the target speaks HTTP/2 (learnt from ALPN on https). */
        Boolean speaksHttp2;

        /** Counts an exchange started again because the server never processed it ({@link #retriedExchanges}). */
        void countRetry() {
            retried.increment();
        }
        /**
         * Exchanges in the order of their deadlines, the next to expire first, done ones dropped from the head as they
         * reach it: one timer ({@link #expiry}) serves them all, instead of a scheduled task per request (its allocation,
         * its insertion in the loop's priority queue and its removal on cancel were measurable at 10 000 QPS). An
         * exchange whose deadline is earlier than the last one's (a shorter timeout on the same target) gets a timer of
         * its own instead.
         */
        final ArrayDeque<PendingRequest> byDeadline = new ArrayDeque<>();
        /** The timer of {@link #byDeadline}'s head, or null when none is armed. */
        ScheduledFuture<?> expiry;

        HostPool(EventLoop loop, PoolKey key, InetSocketAddress address) {
            this.loop = loop;
            this.timers = timerLoops.computeIfAbsent(loop, l -> new SpinningTimerLoop(l, options.spinNanos()));
            this.key = key;
            this.address = address;
            if (!key.tls()) {
                speaksHttp2 = options.cleartext() == Protocol.HTTP_2;
            } else if (options.tls() == Protocol.HTTP_1_1) {
                speaksHttp2 = false;
            }
        }

        CompletableFuture<ResponseHead> send(EncodedRequest t) {
            PendingRequest ex = new PendingRequest(t, System.nanoTime() + t.timeoutMs * 1_000_000L);
            if (loop.inEventLoop()) {
                begin(ex);
            } else {
                loop.execute(() -> begin(ex));
            }
            return ex.result;
        }

        private void begin(PendingRequest ex) {
            PendingRequest head;
            while ((head = byDeadline.peekFirst()) != null && head.done) {
                byDeadline.pollFirst();
            }
            PendingRequest last = byDeadline.peekLast();
            if (last == null || ex.deadlineNanos - last.deadlineNanos >= 0) {
                byDeadline.addLast(ex);
                if (expiry == null) {
                    armExpiry(byDeadline.peekFirst().deadlineNanos);
                }
            } else {
                ex.timeout = loop.schedule(ex, ex.deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            dispatch(ex);
        }

        private void armExpiry(long deadlineNanos) {
            expiry = loop.schedule(this::expire, deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        /** The head's timer fired: drops the done exchanges, times out those past their deadline, re-arms for the next. */
        private void expire() {
            expiry = null;
            long now = System.nanoTime();
            PendingRequest head;
            while ((head = byDeadline.peekFirst()) != null) {
                if (head.done) {
                    byDeadline.pollFirst();
                } else if (head.deadlineNanos - now <= 0) {
                    byDeadline.pollFirst();
                    head.run();
                } else {
                    armExpiry(head.deadlineNanos);
                    return;
                }
            }
        }

        /** In-flight exchanges the connections opened ahead of need are for ({@link #preconnect}); only grows. */
        int preconnectInFlight;

        /**
         * Opens connections until those open or opening can carry {@code inFlight} exchanges at once: HTTP/1.1 one
         * connection per exchange, at most {@code maxConnectionsPerHost}; HTTP/2
         * {@code ceil(inFlight / MAX_CONCURRENT_STREAMS)} of its first connection (one until that connection has told,
         * and on https until ALPN has). At most {@link #MAX_CONNECTING_PER_HOST} attempts at once: each connection that
         * becomes ready opens the next ({@link #topUp}). A connection opened so goes to the idle pool (its opener is an
         * exchange that is already done); one that fails is not tried again here.
         */
        void preconnect(int inFlight) {
            preconnectInFlight = Math.max(preconnectInFlight, inFlight);
            topUp();
        }

        /** Opens connections towards {@link #preconnectInFlight}'s need (see {@link #preconnect}). */
        void topUp() {
            int want;
            if (speaksHttp2 == null) {
                want = 1; // https before ALPN has told: one connection says whether it multiplexes
            } else if (speaksHttp2) {
                int streams = multiplexed.isEmpty() ? 0 : Math.max(1, multiplexed.get(0).maxStreams());
                want = streams == 0 ? 1 : (int) Math.min(options.maxConnectionsPerHost(),
                        (preconnectInFlight + (long) streams - 1) / streams);
            } else {
                want = Math.min(preconnectInFlight, options.maxConnectionsPerHost());
            }
            while (open < want && connecting < MAX_CONNECTING_PER_HOST) {
                PendingRequest none = new PendingRequest(null, Long.MAX_VALUE);
                none.done = true;
                connect(none);
            }
        }

        /** Starts {@code ex} on a free stream or connection, opens one (below the cap) or queues {@code ex}. */
        void dispatch(PendingRequest ex) {
            if (ex.done) {
                return;
            }
            for (int i = 0; i < multiplexed.size(); i++) {
                Connection c = multiplexed.get(i);
                if (c.hasCapacity()) {
                    c.start(ex);
                    return;
                }
            }
            Connection c;
            while ((c = idle.pollFirst()) != null) {
                if (c.channel().isActive()) {
                    c.start(ex);
                    return;
                }
            }
            // an HTTP/2 connection on its way takes this exchange too; so does the first https connection,
            // until ALPN tells whether more connections are needed
            boolean oneWillDo = connecting > 0 && (speaksHttp2 == null || speaksHttp2);
            if (!oneWillDo && open < options.maxConnectionsPerHost() && connecting < MAX_CONNECTING_PER_HOST) {
                connect(ex);
            } else {
                waiting.add(ex);
            }
        }

        /** Dispatches every waiting exchange once (each starts, opens a connection or waits again). */
        void drainWaiting() {
            for (int n = waiting.size(); n > 0; n--) {
                PendingRequest ex = waiting.poll();
                if (ex == null) {
                    return;
                }
                dispatch(ex);
            }
        }

        private PendingRequest nextWaiting() {
            PendingRequest ex;
            while ((ex = waiting.poll()) != null) {
                if (!ex.done) {
                    return ex;
                }
            }
            return null;
        }

        /** A free HTTP/1.1 connection takes the next waiting exchange, or goes back to the idle pool. */
        void release(Connection c) {
            PendingRequest next = nextWaiting();
            if (next != null) {
                c.start(next);
            } else {
                idle.offerFirst(c);
            }
        }

        /** Fills a multiplexed connection's free streams with waiting exchanges. */
        void fill(Connection c) {
            while (!waiting.isEmpty() && c.hasCapacity()) {
                PendingRequest next = nextWaiting();
                if (next == null) {
                    return;
                }
                c.start(next);
            }
        }

        void onReady(Connection c, PendingRequest opener) {
            boolean learnt = key.tls() && speaksHttp2 == null;
            if (key.tls()) {
                speaksHttp2 = c.multiplexed();
            }
            ready(c, opener, learnt);
            if (opener.done && preconnectInFlight > 0) {
                topUp(); // a connection opened ahead of need is ready: the next one, if more are needed
            }
        }

        private void ready(Connection c, PendingRequest opener, boolean learnt) {
            if (c.multiplexed()) {
                multiplexed.add(c);
                if (!opener.done) {
                    dispatch(opener);
                }
                fill(c);
                dispatchOneWaiting(); // the connection is full: the next waiting exchange opens another
            } else {
                if (!opener.done) {
                    c.start(opener);
                } else {
                    release(c);
                }
                if (learnt) {
                    drainWaiting(); // they waited for ALPN; now each needs a connection of its own
                } else {
                    dispatchOneWaiting(); // a connection attempt ended: a waiting exchange may start another
                }
            }
        }

        /** Dispatches the next live waiting exchange, if any (after a connection closed or filled up). */
        void dispatchOneWaiting() {
            PendingRequest next = nextWaiting();
            if (next != null) {
                dispatch(next);
            }
        }

        /** A multiplexed connection takes no new streams (GOAWAY, stream ids used up). */
        void retire(Connection c) {
            multiplexed.remove(c);
        }

        private void connect(PendingRequest opener) {
            open++;
            connecting++;
            Attempt attempt = new Attempt(this, opener);
            ChannelFuture connect = bootstrap.clone(loop).handler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    if (key.tls()) {
                        ch.pipeline().addLast(sslContext.newHandler(ch.alloc(), key.host(), key.port()),
                                new Negotiation(attempt));
                    } else if (options.cleartext() == Protocol.HTTP_2) {
                        ch.pipeline().addLast(Http2ClientConnection.create(attempt));
                    } else {
                        Http1ClientConnection.install(ch.pipeline(), attempt);
                    }
                }
            }).connect(address);
            connect.channel().closeFuture().addListener(f -> {
                open--;
                attempt.failed(new IOException("connection closed before it was ready"));
                if (attempt.connection != null) {
                    idle.remove(attempt.connection);
                    multiplexed.remove(attempt.connection);
                }
                dispatchOneWaiting();
            });
            connect.addListener(f -> {
                if (!f.isSuccess()) {
                    attempt.failed(f.cause());
                } else if (!key.tls() && options.cleartext() == Protocol.HTTP_1_1) {
                    attempt.ready(connect.channel().pipeline().get(Http1ClientConnection.class));
                }
            });
        }
    }

    /** After the TLS handshake: installs the protocol ALPN chose. */
    private static final class Negotiation extends ApplicationProtocolNegotiationHandler {
        private final Attempt attempt;

        Negotiation(Attempt attempt) {
            super(ApplicationProtocolNames.HTTP_1_1);
            this.attempt = attempt;
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                ctx.pipeline().addLast(Http2ClientConnection.create(attempt));
            } else {
                attempt.ready(Http1ClientConnection.install(ctx.pipeline(), attempt));
            }
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            attempt.failed(cause);
            ctx.close();
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
