package dev.richter.loaddriver;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A local Netty server for the HTTP/2 paths: h2c with prior knowledge, or TLS offering ALPN {@code h2} and/or
 * {@code http/1.1} with a key pair made by the JDK's {@code keytool} for {@code 127.0.0.1}. Records every request
 * and answers 200 {@code ok} ({@code 503} for paths starting {@code /fail}, the answer of {@link #routes} for the paths
 * a test set), after {@code delayMs} for paths starting {@code /slow}, at once otherwise.
 */
final class Http2TestServer implements AutoCloseable {
    record Seen(String protocol, String method, String path, String baggage, byte[] body) {}

    private static final char[] PASSWORD = "changeit".toCharArray();

    final List<Seen> seen = new CopyOnWriteArrayList<>();
    /** Answers by exact path and query (e.g. a redirect) in place of the default ones; set before the requests. */
    final java.util.Map<String, Shedding.Answer> routes = new java.util.concurrent.ConcurrentHashMap<>();
    /** Connections accepted so far. */
    final AtomicInteger connections = new AtomicInteger();
    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private final Channel server;
    private final long delayMs;
    private final boolean tls;
    /** HTTP/2 streams a connection serves before the server sends GOAWAY and closes it (as nginx's keepalive_requests). */
    volatile int goAwayAfterStreams = Integer.MAX_VALUE;
    /** Connections ended with GOAWAY (after {@link #goAwayAfterStreams} streams). */
    final AtomicInteger goAways = new AtomicInteger();
    /**
     * Streams still to refuse: each new stream, while this is above 0, is reset with {@code REFUSED_STREAM} at its
     * HEADERS, unprocessed and unrecorded (RFC 9113 §8.7: the server did no work on it), as a server at its stream or
     * queue limit does.
     */
    final AtomicInteger refuseStreams = new AtomicInteger();
    /** Streams refused so far. */
    final AtomicInteger refused = new AtomicInteger();
    private TrustManagerFactory trust;

    /**
     * @param delayMs answer delay of {@code /slow…} paths
     * @param alpn    null for h2c; else the protocols the TLS server accepts, in its preference order
     */
    Http2TestServer(long delayMs, List<String> alpn) throws Exception {
        this.delayMs = delayMs;
        this.tls = alpn != null;
        SslContext ssl = alpn == null ? null : serverTls(alpn);
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.incrementAndGet();
                        if (ssl == null) {
                            addHttp2(ch.pipeline());
                            return;
                        }
                        ch.pipeline().addLast(ssl.newHandler(ch.alloc()),
                                new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                                    @Override
                                    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                                        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                                            addHttp2(ctx.pipeline());
                                        } else {
                                            addHttp1(ctx.pipeline());
                                        }
                                    }

                                    @Override
                                    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
                                        ctx.close(); // an untrusting client: expected by a test
                                    }
                                });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    String baseUrl() {
        return (tls ? "https" : "http") + "://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Trust for the client: the server's self-signed certificate. */
    TrustManagerFactory trust() {
        return trust;
    }

    private SslContext serverTls(List<String> alpn) throws Exception {
        Path dir = Files.createTempDirectory("richter-h2-test");
        Path store = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed");
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(store.toFile())) {
            ks.load(in, PASSWORD);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD);
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("server", ks.getCertificate("server"));
        trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        Files.delete(store);
        Files.delete(dir);
        return SslContextBuilder.forServer(kmf).sslProvider(SslProvider.JDK)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn))
                .build();
    }

    private void addHttp2(ChannelPipeline p) {
        p.addLast(Http2FrameCodecBuilder.forServer().initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(100))
                .build(), new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                    @Override
                    protected void initChannel(Http2StreamChannel ch) {
                        ch.pipeline().addLast(new StreamHandler());
                    }
                }));
    }

    private void addHttp1(ChannelPipeline p) {
        p.addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new SimpleChannelInboundHandler<FullHttpRequest>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                byte[] body = ByteBufUtil.getBytes(req.content());
                seen.add(new Seen("http/1.1", req.method().name(), req.uri(), req.headers().get("baggage"), body));
                String path = req.uri();
                ctx.executor().schedule(() -> {
                    Shedding.Answer shed = routes.getOrDefault(path, Shedding.answer(path, System.currentTimeMillis()));
                    var res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                            path.startsWith("/fail") ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.valueOf(shed.status()),
                            Unpooled.wrappedBuffer("ok".getBytes()));
                    shed.headers().forEach(res.headers()::set);
                    res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
                    ctx.writeAndFlush(res);
                }, path.startsWith("/slow") ? delayMs : 0, TimeUnit.MILLISECONDS);
            }
        });
    }

    /** One HTTP/2 stream: collects the request, then answers. */
    private static final io.netty.util.AttributeKey<AtomicInteger> STREAMS = io.netty.util.AttributeKey.valueOf("streams");

    private final class StreamHandler extends SimpleChannelInboundHandler<Http2StreamFrame> {
        private Http2HeadersFrame headers;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private boolean refusedHere;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) {
            boolean end = false;
            if (refusedHere) {
                return;
            }
            if (frame instanceof Http2HeadersFrame && refuseStreams.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                refusedHere = true;
                refused.incrementAndGet();
                ctx.writeAndFlush(new io.netty.handler.codec.http2.DefaultHttp2ResetFrame(
                        io.netty.handler.codec.http2.Http2Error.REFUSED_STREAM));
                return;
            }
            if (frame instanceof Http2HeadersFrame h) {
                headers = h;
                end = h.isEndStream();
            } else if (frame instanceof Http2DataFrame d) {
                ByteBuf content = d.content();
                body.write(ByteBufUtil.getBytes(content), 0, content.readableBytes());
                end = d.isEndStream();
            }
            if (!end) {
                return;
            }
            String path = headers.headers().path().toString();
            CharSequence baggage = headers.headers().get("baggage");
            seen.add(new Seen("h2", headers.headers().method().toString(), path,
                    baggage == null ? null : baggage.toString(), body.toByteArray()));
            Channel connection = ctx.channel().parent();
            connection.attr(STREAMS).setIfAbsent(new AtomicInteger());
            boolean last = connection.attr(STREAMS).get().incrementAndGet() == goAwayAfterStreams;
            ctx.executor().schedule(() -> {
                Shedding.Answer shed = routes.getOrDefault(path, Shedding.answer(path, System.currentTimeMillis()));
                var responseHeaders = new DefaultHttp2Headers()
                        .status(path.startsWith("/fail") ? "503" : Integer.toString(shed.status()));
                shed.headers().forEach((name, value) -> responseHeaders.set(name.toLowerCase(java.util.Locale.ROOT), value));
                ctx.write(new DefaultHttp2HeadersFrame(responseHeaders));
                ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer("ok".getBytes()), true));
                if (last) { // answered; streams the client opened meanwhile are above the GOAWAY's last stream id
                    goAways.incrementAndGet();
                    connection.writeAndFlush(new io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame(
                            io.netty.handler.codec.http2.Http2Error.NO_ERROR))
                            .addListener(f -> connection.close());
                }
            }, path.startsWith("/slow") ? delayMs : 0, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
