package dev.richter.agent.otel;

import dev.richter.agent.grpc.GrpcExits;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.asm.Advice;

/**
 * gRPC client calls of grpc-java 1.x (tested with 1.76.0 over grpc-netty-shaded, Spring gRPC 0.12.0's): advice before
 * {@code io.grpc.internal.ManagedChannelImpl$RealChannel.newCall(MethodDescriptor, CallOptions)}, the channel of every
 * {@code ManagedChannel} a {@code ManagedChannelBuilder} (Netty, Netty shaded, OkHttp, in-process) builds, innermost of
 * its interceptors: the agent's {@code grpc-1.6} interceptor, which the agent adds at {@code build()}, has opened its
 * client span and made it current, and nothing is resolved, connected or sent yet. A marked call is answered by its
 * mock, passed in scope, or refused ({@link GrpcExits}). Instrumentation name {@code richter-grpc}.
 */
public final class GrpcInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.grpc} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.grpc.GrpcExits", "dev.richter.agent.grpc.DecidedCall",
            "dev.richter.agent.grpc.DecidedCall$Delivery"));

    public GrpcInstrumentationModule() {
        super("richter-grpc");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.singletonList(new OneMethodInstrumentation("io.grpc.internal.ManagedChannelImpl$RealChannel",
                "newCall", 2, "io.grpc.MethodDescriptor", GrpcInstrumentationModule.class.getName() + "$NewCallAdvice"));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    /**
     * Inlined into {@code RealChannel.newCall}: a call {@link GrpcExits} answers replaces the channel's, which is then
     * never created. Names only the helper and grpc-api types.
     */
    @SuppressWarnings("unused")
    public static final class NewCallAdvice {
        private NewCallAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ClientCall<?, ?> enter(@Advice.This Channel channel, @Advice.Argument(0) MethodDescriptor<?, ?> method,
                                             @Advice.Argument(1) CallOptions options) {
            return GrpcExits.beforeNewCall(channel, method, options);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Enter ClientCall<?, ?> decided,
                                @Advice.Return(readOnly = false) ClientCall<?, ?> call) {
            if (decided != null) {
                call = decided;
            }
        }
    }
}
