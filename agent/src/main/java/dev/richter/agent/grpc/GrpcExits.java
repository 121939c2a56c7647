package dev.richter.agent.grpc;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.Base64;

/**
 * Decides a gRPC call where grpc-java's channel creates it: before {@code io.grpc.internal.ManagedChannelImpl
 * $RealChannel.newCall(MethodDescriptor, CallOptions)} (grpc-java 1.x, every transport: Netty, Netty shaded, OkHttp,
 * in-process), the channel every {@code ManagedChannelBuilder} builds, called after the channel's interceptors (the
 * application's and the agent's, whose client span is then current) and before any name resolution, connection or
 * byte on the wire. The call's target is its authority ({@code CallOptions.getAuthority()}, else the channel's {@code
 * authority()}: the target's {@code host:port} unless the application overrode it); its method is {@code
 * MethodDescriptor.getFullMethodName()}. A helper injected next to grpc-api (compiled against grpc-api 1.76.0,
 * {@code provided}); no lambdas.
 */
public final class GrpcExits {
    /** gRPC's port when an authority names none (grpc-java's {@code GrpcUtil.DEFAULT_PORT_SSL}). */
    static final int DEFAULT_PORT = 443;

    private GrpcExits() {}

    /**
     * Decides one call, and stamps the decision on the current span.
     *
     * @return null: let the channel create the call (unmarked, in scope, or report mode); else the call to hand the
     *     application instead, which sends nothing: a mock ({@link DecidedCall}: the response parsed by the method's
     *     marshaller, then {@code OK}, or the mock's status), or the refusal, closed with {@code
     *     Status.PERMISSION_DENIED} and the refusal's message ({@code Richter isolation refused a marked call to exit
     *     'host:port/<method>': ...}) when the call starts
     */
    public static ClientCall<?, ?> beforeNewCall(Channel channel, MethodDescriptor<?, ?> method, CallOptions options) {
        IsolationGuard guard = IsolationBridge.guard();
        ExitDecision decision;
        String authority = "";
        try {
            authority = options.getAuthority() != null ? options.getAuthority() : channel.authority();
            int colon = authority.lastIndexOf(':');
            boolean hasPort = colon > authority.lastIndexOf(']');
            String host = hasPort ? authority.substring(0, colon) : authority;
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port = hasPort ? Integer.parseInt(authority.substring(colon + 1)) : DEFAULT_PORT;
            decision = guard.decideGrpc(host, port, method.getFullMethodName());
        } catch (RuntimeException e) {
            if (!guard.marked()) {
                return null;
            }
            decision = new ExitDecision.Refuse(authority + "/" + method.getFullMethodName(),
                    "the call's authority cannot be read (" + e + ")");
        }
        if (decision instanceof ExitDecision.Pass) {
            return null;
        }
        guard.record(decision);
        if (decision instanceof ExitDecision.Refuse) {
            return new DecidedCall<>(method, options,
                    Status.PERMISSION_DENIED.withDescription(((ExitDecision.Refuse) decision).message()), null, 0);
        }
        if (!(decision instanceof ExitDecision.Mock)) {
            return null;
        }
        ExitDecision.Mock mock = (ExitDecision.Mock) decision;
        if (mock.status() != 0) {
            Status status = Status.fromCodeValue(mock.status());
            return new DecidedCall<>(method, options,
                    mock.body().isEmpty() ? status : status.withDescription(mock.body()), null, mock.latencyMs());
        }
        return new DecidedCall<>(method, options, Status.OK, Base64.getDecoder().decode(mock.body()),
                mock.latencyMs());
    }
}
