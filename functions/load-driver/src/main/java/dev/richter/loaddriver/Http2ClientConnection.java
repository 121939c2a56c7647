package dev.richter.loaddriver;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2ConnectionDecoder;
import io.netty.handler.codec.http2.DefaultHttp2ConnectionEncoder;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import java.io.IOException;

/**
 * One HTTP/2 connection of a {@link NettyHttpTransport} (RFC 9113), on Netty's connection handler without
 * child channels: an exchange is one stream (HEADERS from the request's prepared header block, DATA for a body; a
 * redirect's hop is another stream), its status read from the response HEADERS and its body discarded (the flow-control window is returned as it
 * is read), unless the request asks for it ({@link HttpTransport.Capture}: then its body, bounded, and the named headers
 * are kept). The connection takes exchanges once the server's SETTINGS arrived, up to the server's
 * {@code MAX_CONCURRENT_STREAMS}; after a GOAWAY or when stream ids run out it takes none and the pool opens
 * another. An exchange the server never processed (its stream refused, or above the GOAWAY's last stream id, as
 * nginx sends after {@code keepalive_requests}) starts again on another connection; a stream that closes unanswered
 * otherwise (reset, connection closed) fails its exchange with an {@link IOException}; a deadline resets the stream
 * with {@code CANCEL}.
 */
final class Http2ClientConnection extends Http2ConnectionHandler implements NettyHttpTransport.Connection {
    /** Push off; 1 MiB stream window so small and medium bodies need no WINDOW_UPDATE round trip. */
    private static final Http2Settings SETTINGS = new Http2Settings().pushEnabled(false).initialWindowSize(1 << 20);

    private final NettyHttpTransport.Attempt attempt;
    private final Http2Connection.PropertyKey exchangeKey;
    private ChannelHandlerContext ctx;
    private boolean ready;
    private boolean retired;
    /**
     * Streams of this connection whose body is being kept ({@link HttpTransport.Capture#body}): while none is, a DATA
     * frame that does not end its stream is not looked up (the hot path of requests without an expectation).
     */
    private int capturing;

    private Http2ClientConnection(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                                  NettyHttpTransport.Attempt attempt) {
        super(decoder, encoder, SETTINGS);
        this.attempt = attempt;
        this.exchangeKey = connection().newKey();
        Events events = new Events();
        decoder.frameListener(events);
        connection().addListener(events);
    }

    /** A client connection for {@code attempt}, ready once the server's SETTINGS are read. */
    static Http2ClientConnection create(NettyHttpTransport.Attempt attempt) {
        Http2Connection connection = new DefaultHttp2Connection(false);
        Http2ConnectionEncoder encoder = new DefaultHttp2ConnectionEncoder(connection, new DefaultHttp2FrameWriter());
        Http2ConnectionDecoder decoder = new DefaultHttp2ConnectionDecoder(connection, encoder,
                new DefaultHttp2FrameReader(false));
        return new Http2ClientConnection(decoder, encoder, attempt);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        super.handlerAdded(ctx);
    }

    @Override
    public boolean multiplexed() {
        return true;
    }

    @Override
    public boolean hasCapacity() {
        return ready && !retired && ctx.channel().isActive() && connection().local().canOpenStream();
    }

    @Override
    public Channel channel() {
        return ctx.channel();
    }

    /** The server's {@code MAX_CONCURRENT_STREAMS} as this connection applies it (unbounded: {@link Integer#MAX_VALUE}). */
    @Override
    public int maxStreams() {
        return connection().local().maxActiveStreams();
    }

    @Override
    public void start(NettyHttpTransport.PendingRequest ex) {
        int id = connection().local().incrementAndGetNextStreamId();
        if (id < 0 || connection().goAwayReceived()) { // stream ids used up, or closing: another connection takes it
            retire();
            attempt.pool.dispatch(ex);
            return;
        }
        NettyHttpTransport.EncodedRequest t = ex.request;
        ex.connection = this;
        ex.streamId = id;
        encoder().writeHeaders(ctx, id, t.http2Headers, 0, t.http2Body == null, ctx.newPromise());
        Http2Stream stream = connection().stream(id);
        if (stream == null) { // not sent: the connection is closing
            retire();
            attempt.pool.dispatch(ex);
            return;
        }
        stream.setProperty(exchangeKey, ex);
        if (t.http2Body != null) {
            encoder().writeData(ctx, id, t.http2Body.retainedDuplicate(), 0, true, ctx.newPromise());
        }
        flush(ctx);
    }

    @Override
    public void cancel(NettyHttpTransport.PendingRequest ex) {
        if (connection().stream(ex.streamId) != null) {
            resetStream(ctx, ex.streamId, Http2Error.CANCEL.code(), ctx.newPromise());
            flush(ctx);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        attempt.pool.fill(this);
        super.channelReadComplete(ctx);
    }

    private void retire() {
        if (!retired) {
            retired = true;
            attempt.pool.retire(this);
        }
    }

    /**
     * An exchange the server never processed (its stream refused, or above a GOAWAY's last stream id, RFC 9113
     * §8.7) starts again on another connection, within its own deadline.
     */
    private void retry(Http2Stream stream, NettyHttpTransport.PendingRequest ex) {
        stream.removeProperty(exchangeKey);
        ex.connection = null;
        attempt.pool.countRetry();
        attempt.pool.dispatch(ex);
    }

    /**
     * The stream's response is complete: the exchange leaves the stream before it goes on, so that the stream's close
     * does not fail it while a redirect's hop is under way on another stream.
     */
    private void answered(Http2Stream stream, NettyHttpTransport.PendingRequest ex, HttpTransport.ResponseHead response) {
        stream.removeProperty(exchangeKey);
        if (ex.keptBody != null) {
            capturing--;
        }
        if (ex.keptHeaders != null) {
            response = response.with(ex.keptBody != null ? ex.keptBody.kept(ex.keptHeaders)
                    : new HttpTransport.Kept(ex.keptHeaders, new byte[0], -1));
            ex.keptHeaders = null;
            ex.keptBody = null;
        }
        ex.succeed(response);
    }

    private static String header(Http2Headers headers, String name) {
        CharSequence v = headers.get(name);
        return v == null ? null : v.toString();
    }

    private static int statusOf(Http2Headers headers) {
        CharSequence s = headers.status();
        try {
            return s == null ? 0 : AsciiString.of(s).parseInt();
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Frame and stream events of this connection. */
    private final class Events extends Http2EventAdapter {
        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
            if (!ready) {
                ready = true;
                attempt.ready(Http2ClientConnection.this);
            } else {
                attempt.pool.fill(Http2ClientConnection.this);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
                                  boolean endOfStream) {
            Http2Stream stream = connection().stream(streamId);
            NettyHttpTransport.PendingRequest ex = stream == null ? null : stream.getProperty(exchangeKey);
            if (ex == null) {
                return;
            }
            int status = statusOf(headers);
            if (status >= 100 && status < 200 && !endOfStream) {
                return; // informational; the final response follows
            }
            if (ex.status == 0) {
                ex.status = status;
                ex.response = HttpTransport.ResponseHead.of(status, headers, Http2ClientConnection::header);
                HttpTransport.Capture capture = ex.request.source.capture();
                if (capture.any() && !Redirects.isRedirect(status)) {
                    ex.keptHeaders = capture.read(headers, Http2ClientConnection::header);
                    if (capture.body()) {
                        ex.keptBody = new KeptBody();
                        capturing++;
                    }
                }
            }
            if (endOfStream) {
                answered(stream, ex, ex.response);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            Http2Stream stream = endOfStream || capturing > 0 ? connection().stream(streamId) : null;
            NettyHttpTransport.PendingRequest ex = stream == null ? null : stream.getProperty(exchangeKey);
            if (ex != null && ex.keptBody != null) {
                ex.keptBody.add(data);
            }
            if (ex != null && endOfStream) {
                answered(stream, ex, ex.response != null ? ex.response : HttpTransport.ResponseHead.of(ex.status));
            }
            return data.readableBytes() + padding;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            Http2Stream stream = connection().stream(streamId);
            NettyHttpTransport.PendingRequest ex = stream == null ? null : stream.getProperty(exchangeKey);
            if (ex == null) {
                return;
            }
            if (errorCode == Http2Error.REFUSED_STREAM.code()) {
                retry(stream, ex);
            } else {
                ex.fail(new IOException("HTTP/2 stream reset by the server, error " + errorCode));
            }
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            retire(); // Netty closes the streams above lastStreamId next: onStreamClosed retries them
        }

        @Override
        public void onStreamClosed(Http2Stream stream) {
            NettyHttpTransport.PendingRequest ex = stream.getProperty(exchangeKey);
            if (ex != null && ex.keptBody != null) {
                capturing--;
                ex.keptBody = null;
                ex.keptHeaders = null;
            }
            if (ex == null || ex.done) {
                return;
            }
            if (connection().goAwayReceived() && stream.id() > connection().local().lastStreamKnownByPeer()) {
                retry(stream, ex);
            } else {
                ex.fail(new IOException("HTTP/2 stream closed before the response completed"));
            }
        }
    }
}
