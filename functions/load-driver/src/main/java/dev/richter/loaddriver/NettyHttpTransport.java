package dev.richter.loaddriver;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link HttpTransport} on Netty (NIO): plain-HTTP/1.1 only, keep-alive connections, one request per
 * connection at a time (no pipelining), at most {@code maxConnectionsPerHost} connections per target;
 * a request that finds none free waits for one within its own deadline (it stays in flight for the
 * driver's cap). The target address is resolved once, when the request is prepared. Each request is encoded to bytes once in {@link #prepare} and sent
 * as a retained duplicate of that buffer, so a send costs one write and one response parse.
 *
 * <p>Deadline: a timer started at send fails the request with {@link HttpTimeoutException} and closes
 * its connection, if it has one. Connection failures complete with
 * {@link ConnectException}; a connection closed mid-exchange with an {@link IOException}.
 *
 * @throws IllegalArgumentException from {@link #prepare} for a non-{@code http} URI (use
 *                                  {@link JdkHttpTransport} for HTTPS)
 */
public final class NettyHttpTransport implements HttpTransport {
    /** Default cap on open connections per target host. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_HOST = 256;
    private static final AttributeKey<Exchange> EXCHANGE = AttributeKey.valueOf("richter.exchange");
    private static final Set<String> SKIPPED = Set.of("connection", "content-length", "host", "keep-alive",
            "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "expect", "http2-settings");

    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final int maxConnectionsPerHost;
    private final Map<InetSocketAddress, HostPool> pools = new ConcurrentHashMap<>();

    /** Connections to one host: idle ones, exchanges waiting for a connection, and the open count. */
    private static final class HostPool {
        final InetSocketAddress address;
        final ConcurrentLinkedDeque<Channel> idle = new ConcurrentLinkedDeque<>();
        final ConcurrentLinkedQueue<Exchange> waiting = new ConcurrentLinkedQueue<>();
        final AtomicInteger open = new AtomicInteger();

        HostPool(InetSocketAddress address) {
            this.address = address;
        }
    }

    /** One request from send to outcome; {@link #finish()} makes the outcome happen exactly once. */
    private static final class Exchange {
        final CompletableFuture<Integer> result = new CompletableFuture<>();
        final AtomicBoolean done = new AtomicBoolean();
        final HostPool pool;
        final ByteBuf encoded;
        final boolean head;
        volatile ScheduledFuture<?> timeout;
        volatile Channel channel;
        int status;
        boolean keepAlive = true;

        Exchange(HostPool pool, ByteBuf encoded, boolean head) {
            this.pool = pool;
            this.encoded = encoded;
            this.head = head;
        }

        boolean finish() {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            return true;
        }
    }

    /**
     * @param eventLoopThreads      I/O threads, ≥ 1
     * @param connectTimeout        TCP connect deadline
     * @param maxConnectionsPerHost open connections per target host; further requests wait (within their
     *                              deadline) for a free one instead of opening connection storms when the
     *                              target slows down
     */
    public NettyHttpTransport(int eventLoopThreads, Duration connectTimeout, int maxConnectionsPerHost) {
        if (eventLoopThreads < 1 || maxConnectionsPerHost < 1) {
            throw new IllegalArgumentException("eventLoopThreads and maxConnectionsPerHost must be >= 1");
        }
        this.maxConnectionsPerHost = maxConnectionsPerHost;
        this.group = new NioEventLoopGroup(eventLoopThreads, new DefaultThreadFactory("load-driver-netty", true));
        this.bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpResponseDecoder() {
                            @Override
                            protected boolean isContentAlwaysEmpty(HttpMessage msg) {
                                Exchange ex = ch.attr(EXCHANGE).get();
                                return (ex != null && ex.head) || super.isContentAlwaysEmpty(msg);
                            }
                        }, new ResponseHandler());
                    }
                });
    }

    /** Given threads and connect timeout, {@value #DEFAULT_MAX_CONNECTIONS_PER_HOST} connections per host. */
    public NettyHttpTransport(int eventLoopThreads, Duration connectTimeout) {
        this(eventLoopThreads, connectTimeout, DEFAULT_MAX_CONNECTIONS_PER_HOST);
    }

    /** One event-loop thread, 2 s connect timeout, {@value #DEFAULT_MAX_CONNECTIONS_PER_HOST} connections per host. */
    public NettyHttpTransport() {
        this(1, Duration.ofSeconds(2));
    }

    @Override
    public PreparedRequest prepare(OutboundRequest request) {
        URI uri = request.uri();
        if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("NettyHttpTransport supports http:// only: " + uri);
        }
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        InetSocketAddress resolved = new InetSocketAddress(uri.getHost(), port);
        HostPool pool = pools.computeIfAbsent(resolved, HostPool::new);
        String target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        StringBuilder head = new StringBuilder(256)
                .append(request.method().toUpperCase(Locale.ROOT)).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("host: ").append(uri.getHost()).append(uri.getPort() < 0 ? "" : ":" + port).append("\r\n");
        request.headers().forEach((name, value) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!lower.startsWith(":") && !SKIPPED.contains(lower)) {
                head.append(name).append(": ").append(value).append("\r\n");
            }
        });
        if (request.body().length > 0 || !Set.of("GET", "HEAD", "DELETE", "OPTIONS", "TRACE").contains(request.method().toUpperCase(Locale.ROOT))) {
            head.append("content-length: ").append(request.body().length).append("\r\n");
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf encoded = Unpooled.unreleasableBuffer(Unpooled.directBuffer(headBytes.length + request.body().length)
                .writeBytes(headBytes).writeBytes(request.body()).asReadOnly());
        boolean isHead = request.method().equalsIgnoreCase("HEAD");
        long timeoutMs = request.timeoutMs();
        return () -> send(pool, encoded, isHead, timeoutMs);
    }

    private CompletableFuture<Integer> send(HostPool pool, ByteBuf encoded, boolean isHead, long timeoutMs) {
        Exchange ex = new Exchange(pool, encoded, isHead);
        ex.timeout = group.next().schedule(() -> {
            if (ex.finish()) {
                pool.waiting.remove(ex);
                ex.result.completeExceptionally(new HttpTimeoutException("request timed out after " + timeoutMs + " ms"));
                Channel ch = ex.channel;
                if (ch != null) {
                    ch.close();
                }
            }
        }, timeoutMs, TimeUnit.MILLISECONDS);
        dispatch(ex);
        return ex.result;
    }

    /** Runs {@code ex} on an idle connection, a new one (below the cap) or queues it for the next free one. */
    private void dispatch(Exchange ex) {
        HostPool pool = ex.pool;
        Channel ch;
        while ((ch = pool.idle.pollFirst()) != null) {
            if (ch.isActive()) {
                start(ch, ex);
                return;
            }
        }
        if (pool.open.incrementAndGet() <= maxConnectionsPerHost) {
            connect(ex);
            return;
        }
        pool.open.decrementAndGet();
        pool.waiting.add(ex);
        // a connection may have been released between the idle poll and the enqueue
        while ((ch = pool.idle.pollFirst()) != null) {
            if (ch.isActive()) {
                release(pool, ch);
                return;
            }
        }
    }

    private void connect(Exchange ex) {
        HostPool pool = ex.pool;
        ChannelFuture connect = bootstrap.connect(pool.address);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                pool.open.decrementAndGet();
                if (ex.finish()) {
                    ConnectException e = new ConnectException("connect " + pool.address + ": " + f.cause());
                    e.initCause(f.cause());
                    ex.result.completeExceptionally(e);
                }
                return;
            }
            Channel ch = connect.channel();
            ch.closeFuture().addListener(c -> {
                pool.open.decrementAndGet();
                Exchange next = pollWaiting(pool);
                if (next != null) {
                    dispatch(next);
                }
            });
            start(ch, ex);
        });
    }

    private static Exchange pollWaiting(HostPool pool) {
        Exchange next;
        while ((next = pool.waiting.poll()) != null) {
            if (!next.done.get()) {
                return next;
            }
        }
        return null;
    }

    /** A free connection takes the next waiting exchange, or goes back to the idle pool. */
    private void release(HostPool pool, Channel ch) {
        Exchange next = pollWaiting(pool);
        if (next != null) {
            start(ch, next);
        } else {
            pool.idle.offerFirst(ch);
        }
    }

    private void start(Channel ch, Exchange ex) {
        ch.eventLoop().execute(() -> {
            if (ex.done.get()) {
                release(ex.pool, ch); // timed out while waiting: the connection is still free
                return;
            }
            ex.channel = ch;
            ch.attr(EXCHANGE).set(ex);
            ch.writeAndFlush(ex.encoded.retainedDuplicate()).addListener(w -> {
                if (!w.isSuccess()) {
                    fail(ch, ex, new IOException("write failed: " + w.cause(), w.cause()));
                }
            });
        });
    }

    private static void fail(Channel ch, Exchange ex, Throwable error) {
        ch.attr(EXCHANGE).compareAndSet(ex, null);
        if (ex.finish()) {
            ex.result.completeExceptionally(error);
        }
        ch.close();
    }

    /** Status from the head, completion on the last content; returns the connection to the idle pool. */
    private final class ResponseHandler extends SimpleChannelInboundHandler<HttpObject> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            Exchange ex = ctx.channel().attr(EXCHANGE).get();
            if (ex == null || ex.done.get()) {
                ctx.close(); // unsolicited data or a response after the deadline
                return;
            }
            if (msg instanceof HttpResponse r) {
                ex.status = r.status().code();
                ex.keepAlive = HttpUtil.isKeepAlive(r);
            }
            if (msg instanceof LastHttpContent) {
                ctx.channel().attr(EXCHANGE).compareAndSet(ex, null);
                if (ex.finish()) {
                    if (ex.keepAlive) {
                        release(ex.pool, ctx.channel());
                    } else {
                        ctx.close();
                    }
                    ex.result.complete(ex.status);
                } else {
                    ctx.close(); // answered after its deadline: the connection was being closed anyway
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            Exchange ex = ctx.channel().attr(EXCHANGE).get();
            if (ex != null) {
                fail(ctx.channel(), ex, new IOException("connection closed before the response completed"));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Exchange ex = ctx.channel().attr(EXCHANGE).get();
            if (ex != null) {
                fail(ctx.channel(), ex, cause instanceof IOException io ? io : new IOException(cause));
            } else {
                ctx.close();
            }
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
