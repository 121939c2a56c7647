package reactor.netty.http.client;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.Connection;
import reactor.netty.ConnectionObserver;
import reactor.netty.NettyPipeline;
import reactor.netty.channel.ChannelOperations;
import reactor.util.context.Context;

/**
 * Richter's access to one request of reactor-netty's {@code HttpClient} where {@code HttpClientConnect.MonoHttpConnect}
 * is subscribed: the request as it will be sent ({@link #of}: method and final URI, from reactor-netty's own {@code
 * HttpClientConnect.HttpClientHandler}, base URL and configured remote address applied), and a mocked exchange
 * ({@link #answer}) that runs the client's own request and response path over a channel that never connects. In
 * reactor-netty's package because that handler, its {@code UriEndpoint} and observers and {@code
 * HttpClientOperations.onInboundNext} are package-private there; written against reactor-netty-http 1.2.11, injected
 * next to reactor-netty with {@code dev.richter.agent.reactornettyclient.ReactorNettyClientExits}. On a reactor-netty
 * whose internals differ each method throws a {@link LinkageError}, which the caller takes as "the request cannot be
 * read" and refuses a marked call. No lambdas.
 */
public final class RichterClientExchange {
    /** The request's method, upper case, e.g. {@code POST}. */
    public final String method;
    /** The host the request goes to, as the URI (or the configured remote address) names it. */
    public final String host;
    /** The port it goes to; the scheme's default (80, 443) when the URI names none. */
    public final int port;
    /** The raw path without the query, {@code /} when empty. */
    public final String path;

    private final HttpClientConfig config;
    private final HttpClientConnect.HttpClientHandler handler;

    private RichterClientExchange(HttpClientConfig config, HttpClientConnect.HttpClientHandler handler) {
        this.config = config;
        this.handler = handler;
        UriEndpoint uri = handler.toURI;
        SocketAddress address = uri.getRemoteAddress();
        if (address instanceof InetSocketAddress) {
            this.host = ((InetSocketAddress) address).getHostString();
            this.port = ((InetSocketAddress) address).getPort();
        } else {
            this.host = uri.host == null ? "" : uri.host;
            this.port = uri.port;
        }
        String pathAndQuery = uri.getPathAndQuery();
        int query = pathAndQuery.indexOf('?');
        String raw = query >= 0 ? pathAndQuery.substring(0, query) : pathAndQuery;
        this.path = raw.isEmpty() ? "/" : raw;
        this.method = handler.method.name();
    }

    /**
     * The request a {@code MonoHttpConnect} of {@code config} sends when subscribed, read as reactor-netty reads it
     * there ({@code new HttpClientConnect.HttpClientHandler(config)}).
     *
     * @throws LinkageError on a reactor-netty whose internals differ
     */
    public static RichterClientExchange of(HttpClientConfig config) {
        return new RichterClientExchange(config, new HttpClientConnect.HttpClientHandler(config));
    }

    /**
     * Subscribes {@code actual} to the mock's exchange instead of a connection: after {@code latencyMs} (Reactor's
     * parallel scheduler, the caller not blocked), an {@link EmbeddedChannel} (no socket, nothing leaves the JVM)
     * gets the client's own {@code HttpClientOperations}, observed by the same observers as a real connection
     * (reactor-netty's {@code HttpObserver}, the client's default and configured observers: the agent's span, {@code
     * doOnResponse}, metrics); the request is written (headers and body handler as for real, every byte released by
     * the channel) and, once sent, the mock's response (status, headers, {@code Content-Length}, the body's UTF-8
     * bytes) is read in through {@code HttpClientOperations.onInboundNext}, as reactor-netty reads a decoded response:
     * {@code actual} gets the connection at {@code RESPONSE_RECEIVED}, and the body is the connection's inbound.
     *
     * @param status    HTTP status, 100–599
     * @param headers   response headers
     * @param body      response body, UTF-8 text
     * @param latencyMs milliseconds to wait before answering, ≥ 0
     */
    public void answer(CoreSubscriber<? super Connection> actual, int status, Map<String, String> headers, String body,
                       long latencyMs) {
        Mono<Connection> exchange = Mono.create(new Exchange(config, handler, status, headers,
                body.getBytes(StandardCharsets.UTF_8)));
        if (latencyMs > 0) {
            exchange = Mono.delay(Duration.ofMillis(latencyMs)).then(exchange);
        }
        exchange.subscribe(actual);
    }

    /**
     * The mocked exchange, run when subscribed: the channel, the operations, the observers. The channel's event loop
     * runs a task only when asked ({@link EmbeddedChannel#runPendingTasks()}): reactor-netty's sending queues some
     * (the body's subscription, flushes), so the exchange runs them after each step it makes ({@link #runTasks}).
     */
    static final class Exchange implements Consumer<MonoSink<Connection>> {
        private final AtomicBoolean running = new AtomicBoolean();
        private final HttpClientConfig config;
        private final HttpClientConnect.HttpClientHandler handler;
        private final int status;
        private final Map<String, String> headers;
        private final byte[] body;

        Exchange(HttpClientConfig config, HttpClientConnect.HttpClientHandler handler, int status,
                 Map<String, String> headers, byte[] body) {
            this.config = config;
            this.handler = handler;
            this.status = status;
            this.headers = headers;
            this.body = body;
        }

        @Override
        public void accept(MonoSink<Connection> sink) {
            EmbeddedChannel channel = new EmbeddedChannel();
            // named as on a real connection, so that the handlers reactor-netty adds for a request (the response
            // timeout's, before the codec) go where they go there
            channel.pipeline().addLast(NettyPipeline.HttpCodec, new Wire(this));
            channel.pipeline().addLast(NettyPipeline.ReactiveBridge, new Bridge());
            ConnectionObserver observer = new HttpClientConnect.HttpObserver(sink, handler)
                    .then(config.defaultConnectionObserver())
                    .then(config.connectionObserver())
                    .then(new Answering(sink, handler, this));
            ChannelOperations<?, ?> ops = config.channelOperationsProvider().create(Connection.from(channel),
                    observer, null);
            if (!(ops instanceof HttpClientOperations)) {
                sink.error(new IllegalStateException("reactor-netty made no HttpClientOperations for a mocked"
                        + " exchange"));
                return;
            }
            ops.bind();
            // the channel is closed when the response has been read
            ops.markPersistent(false);
            observer.onStateChange(ops, ConnectionObserver.State.CONFIGURED);
            runTasks(channel);
        }

        /** Runs the tasks the channel's event loop holds, and those they queue; not again from within one. */
        void runTasks(EmbeddedChannel channel) {
            if (!running.compareAndSet(false, true)) {
                return;
            }
            try {
                channel.runPendingTasks();
            } finally {
                running.set(false);
            }
        }

        /** Reads the mock's response into {@code ops}, as reactor-netty's decoder hands a response over. */
        void respond(HttpClientOperations ops) {
            DefaultHttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(status));
            for (Map.Entry<String, String> h : headers.entrySet()) {
                response.headers().add(h.getKey(), h.getValue());
            }
            if (!response.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
                response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            }
            EmbeddedChannel channel = (EmbeddedChannel) ops.channel();
            channel.releaseOutbound();
            channel.writeInbound(response, new DefaultLastHttpContent(Unpooled.wrappedBuffer(body)));
            runTasks(channel);
        }
    }

    /**
     * The mocked exchange's last observer, in place of reactor-netty's {@code HttpIOHandlerObserver}: at {@code
     * CONFIGURED} sends the request as it does ({@code HttpClientHandler.requestWithBody}), and answers once it is
     * sent; at {@code RESPONSE_RECEIVED} hands the connection on.
     */
    static final class Answering implements ConnectionObserver {
        private final MonoSink<Connection> sink;
        private final Context context;
        private final HttpClientConnect.HttpClientHandler handler;
        private final Exchange exchange;

        Answering(MonoSink<Connection> sink, HttpClientConnect.HttpClientHandler handler, Exchange exchange) {
            this.sink = sink;
            this.context = Context.of(sink.contextView());
            this.handler = handler;
            this.exchange = exchange;
        }

        @Override
        public Context currentContext() {
            return context;
        }

        @Override
        public void onStateChange(Connection connection, State newState) {
            if (newState == HttpClientState.RESPONSE_RECEIVED) {
                sink.success(connection);
                return;
            }
            if (newState == State.CONFIGURED && connection instanceof HttpClientOperations) {
                HttpClientOperations ops = (HttpClientOperations) connection;
                Mono.fromDirect(handler.requestWithBody(ops)).subscribe(new Sent(ops, exchange, sink));
            }
        }

        @Override
        public void onUncaughtException(Connection connection, Throwable error) {
            sink.error(error);
        }
    }

    /**
     * The request's sending, as reactor-netty's dispose subscriber sees it; once complete, the mock answers (what that
     * throws fails the exchange).
     */
    static final class Sent implements CoreSubscriber<Void> {
        private final HttpClientOperations ops;
        private final Exchange exchange;
        private final MonoSink<Connection> sink;

        Sent(HttpClientOperations ops, Exchange exchange, MonoSink<Connection> sink) {
            this.ops = ops;
            this.exchange = exchange;
            this.sink = sink;
        }

        @Override
        public void onSubscribe(Subscription s) {
            ops.disposeSubscriber().onSubscribe(s);
        }

        @Override
        public void onNext(Void unused) {
        }

        @Override
        public void onError(Throwable t) {
            ops.disposeSubscriber().onError(t);
        }

        @Override
        public void onComplete() {
            try {
                ops.disposeSubscriber().onComplete();
                exchange.respond(ops);
            } catch (RuntimeException e) {
                sink.error(e);
            }
        }

        @Override
        public Context currentContext() {
            return ops.currentContext();
        }
    }

    /**
     * The channel's codec: every message written is released and its write succeeds (nothing leaves the JVM; what
     * reactor-netty writes past it stays in the channel's outbound queue until released), and the tasks the write
     * queued are run; what is read passes on.
     */
    static final class Wire extends ChannelDuplexHandler {
        private final Exchange exchange;

        Wire(Exchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ReferenceCountUtil.release(msg);
            promise.setSuccess();
            exchange.runTasks((EmbeddedChannel) ctx.channel());
        }
    }

    /** The channel's bridge to the connection's operations, as reactor-netty's own: every message read goes to them. */
    static final class Bridge extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            HttpClientOperations ops = Connection.from(ctx.channel()).as(HttpClientOperations.class);
            if (ops == null) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ops.onInboundNext(ctx, msg);
        }
    }
}
