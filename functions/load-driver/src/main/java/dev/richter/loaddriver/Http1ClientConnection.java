package dev.richter.loaddriver;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;

/**
 * One HTTP/1.1 keep-alive connection of a {@link NettyHttpTransport}: one exchange at a time, the request
 * written as a duplicate of its pre-encoded bytes, the response parsed by Netty's decoder (headers not
 * validated: only the status, keep-alive, framing and a redirect's {@code Location} are read) and its body discarded,
 * unless the request asks for it ({@link HttpTransport.Capture}: then its body, bounded, and the named headers are kept).
 * On the last content the connection goes back to its pool (or closes, for {@code Connection: close}) before the
 * exchange completes or follows its redirect.
 */
final class Http1ClientConnection extends SimpleChannelInboundHandler<HttpObject> implements NettyHttpTransport.Connection {
    private static final HttpDecoderConfig DECODER = new HttpDecoderConfig().setValidateHeaders(false);

    private final NettyHttpTransport.Attempt attempt;
    private Channel channel;
    private NettyHttpTransport.PendingRequest current;
    private int status;
    /** The response being read (status, and Retry-After / Date for 429 and 503). */
    private HttpTransport.ResponseHead response;
    private boolean keepAlive;
    /** For a request whose {@link HttpTransport.Capture} asks for anything: the headers kept, else null. */
    private java.util.Map<String, String> keptHeaders;
    /** For a request that asks for the body: the body read so far, else null. */
    private KeptBody keptBody;

    private Http1ClientConnection(NettyHttpTransport.Attempt attempt) {
        this.attempt = attempt;
    }

    /** Adds the response decoder and the connection to {@code pipeline}; returns the connection. */
    static Http1ClientConnection install(ChannelPipeline pipeline, NettyHttpTransport.Attempt attempt) {
        Http1ClientConnection c = new Http1ClientConnection(attempt);
        pipeline.addLast(new HttpResponseDecoder(DECODER) {
            @Override
            protected boolean isContentAlwaysEmpty(HttpMessage msg) {
                NettyHttpTransport.PendingRequest ex = c.current;
                return (ex != null && ex.request.head) || super.isContentAlwaysEmpty(msg);
            }
        }, c);
        return c;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    public boolean multiplexed() {
        return false;
    }

    @Override
    public boolean hasCapacity() {
        return current == null && channel.isActive();
    }

    @Override
    public Channel channel() {
        return channel;
    }

    @Override
    public void start(NettyHttpTransport.PendingRequest ex) {
        current = ex;
        ex.connection = this;
        status = 0;
        response = null;
        keepAlive = true;
        keptHeaders = null;
        keptBody = null;
        channel.writeAndFlush(ex.request.http1.retainedDuplicate(), channel.voidPromise());
    }

    @Override
    public void cancel(NettyHttpTransport.PendingRequest ex) {
        if (current == ex) {
            current = null;
            channel.close();
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
        NettyHttpTransport.PendingRequest ex = current;
        if (ex == null || ex.done) {
            ctx.close(); // unsolicited data or a response after the deadline
            return;
        }
        if (msg instanceof HttpResponse r) {
            status = r.status().code();
            keepAlive = HttpUtil.isKeepAlive(r);
            response = HttpTransport.ResponseHead.of(status, r.headers(), HttpHeaders::get);
            HttpTransport.Capture capture = ex.request.source.capture();
            if (capture.any() && !Redirects.isRedirect(status)) {
                keptHeaders = capture.read(r.headers(), HttpHeaders::get);
                keptBody = capture.body() ? new KeptBody() : null;
            }
        }
        if (keptBody != null && msg instanceof HttpContent content) {
            keptBody.add(content.content());
        }
        if (msg instanceof LastHttpContent) {
            HttpTransport.ResponseHead code = response != null ? response : HttpTransport.ResponseHead.of(status);
            if (keptHeaders != null) {
                code = code.with(keptBody != null ? keptBody.kept(keptHeaders)
                        : new HttpTransport.Kept(keptHeaders, new byte[0], -1));
                keptHeaders = null;
                keptBody = null;
            }
            response = null;
            current = null;
            if (keepAlive) {
                attempt.pool.release(this); // may start the next exchange at once
            } else {
                ctx.close();
            }
            ex.succeed(code);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        fail(new IOException("connection closed before the response completed"));
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(cause instanceof IOException io ? io : new IOException(cause));
        ctx.close();
    }

    private void fail(Throwable error) {
        NettyHttpTransport.PendingRequest ex = current;
        current = null;
        if (ex != null) {
            ex.fail(error);
        }
    }
}
