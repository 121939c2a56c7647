package dev.richter.agent.grpc;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.util.concurrent.Executor;

/**
 * The call the application gets for a marked gRPC call the isolation answered ({@link GrpcExits}): nothing is ever
 * sent. A refusal closes the call with its status when it starts; a mock, once the application half-closes (its
 * request sent, as a server would answer), waits {@code latencyMs}, then delivers empty headers, the response message
 * (its bytes parsed by the method's response marshaller, {@code MethodDescriptor.parseResponse}) and {@code OK}, or
 * closes with the mock's status. The listener is called on the call's executor ({@code CallOptions.getExecutor()}:
 * the blocking stub's, which its waiting thread runs) or, when it has none, on the thread that starts or half-closes
 * the call (which then also waits the latency). A cancel before that closes it {@code CANCELLED}. Bytes the marshaller
 * cannot parse close it {@code INTERNAL}, naming the mock. A helper injected next to grpc-api; no lambdas.
 *
 * @param <ReqT>  the request type
 * @param <RespT> the response type
 */
final class DecidedCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final MethodDescriptor<ReqT, RespT> method;
    private final Executor executor;
    private final Status status;
    private final byte[] response;
    private final long latencyMs;
    private Listener<RespT> listener;
    private boolean closed;

    /**
     * @param status    the status the call closes with
     * @param response  the response message's bytes, delivered before {@code OK}; null for a call that answers none
     * @param latencyMs milliseconds to wait before answering a mock
     */
    @SuppressWarnings("unchecked")
    DecidedCall(MethodDescriptor<?, ?> method, CallOptions options, Status status, byte[] response, long latencyMs) {
        this.method = (MethodDescriptor<ReqT, RespT>) method;
        this.executor = options.getExecutor();
        this.status = status;
        this.response = response;
        this.latencyMs = latencyMs;
    }

    @Override
    public synchronized void start(Listener<RespT> responseListener, Metadata headers) {
        listener = responseListener;
        if (response == null && !status.isOk() && latencyMs == 0) {
            close(status, null);
        }
    }

    @Override
    public void request(int numMessages) {}

    @Override
    public synchronized void cancel(String message, Throwable cause) {
        if (listener != null) {
            close(Status.CANCELLED.withDescription(message).withCause(cause), null);
        }
    }

    @Override
    public synchronized void halfClose() {
        if (listener != null) {
            close(status, response);
        }
    }

    @Override
    public void sendMessage(ReqT message) {}

    @Override
    public boolean isReady() {
        return true;
    }

    /** Closes the call once: the answer delivered on the executor, or on this thread when the call has none. */
    private void close(Status closing, byte[] message) {
        if (closed) {
            return;
        }
        closed = true;
        Delivery delivery = new Delivery(closing, message);
        if (executor == null) {
            delivery.run();
        } else {
            executor.execute(delivery);
        }
    }

    /** The answer of one call, delivered to its listener. */
    private final class Delivery implements Runnable {
        private final Status closing;
        private final byte[] message;

        Delivery(Status closing, byte[] message) {
            this.closing = closing;
            this.message = message;
        }

        @Override
        public void run() {
            Listener<RespT> to = listener;
            if (latencyMs > 0 && closing.getCode() != Status.Code.CANCELLED) {
                try {
                    Thread.sleep(latencyMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    to.onClose(Status.CANCELLED.withDescription("interrupted while waiting the mock's latency"),
                            new Metadata());
                    return;
                }
            }
            if (message == null) {
                to.onClose(closing, new Metadata());
                return;
            }
            RespT parsed;
            try {
                parsed = method.parseResponse(new ByteArrayInputStream(message));
            } catch (RuntimeException e) {
                to.onClose(Status.INTERNAL.withDescription("Richter isolation: the gRPC mock of "
                        + method.getFullMethodName() + " cannot be read by the method's response marshaller")
                        .withCause(e), new Metadata());
                return;
            }
            to.onHeaders(new Metadata());
            to.onMessage(parsed);
            to.onClose(Status.OK, new Metadata());
        }
    }
}
