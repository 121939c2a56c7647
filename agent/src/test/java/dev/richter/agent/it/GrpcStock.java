package dev.richter.agent.it;

import com.google.protobuf.StringValue;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gRPC service {@code test.Stock} for {@link GrpcIsolationIT} and the leak matrix, without generated code: two unary
 * methods, {@code test.Stock/Get} and {@code test.Stock/Reserve}, whose request and response are protobuf's {@code
 * google.protobuf.StringValue} (grpc-protobuf's marshaller), described by hand ({@link #method}). {@link Counting} is
 * the real server, in the test's JVM on an ephemeral loopback port, counting the calls that reach it.
 */
final class GrpcStock {
    static final MethodDescriptor<StringValue, StringValue> GET = method("test.Stock/Get");
    static final MethodDescriptor<StringValue, StringValue> RESERVE = method("test.Stock/Reserve");
    /** What the real server answers every call. */
    static final String REAL = "real-stock";
    /**
     * Classes whose jars a child JVM calling the service needs (grpc-api, grpc-core, grpc-util, grpc-netty-shaded,
     * grpc-stub, grpc-protobuf and -lite, protobuf-java, Google's common protos, Guava and failureaccess, PerfMark).
     */
    static final List<Class<?>> CLIENT_LIBRARIES = List.of(Grpc.class, io.grpc.internal.ManagedChannelImplBuilder.class,
            io.grpc.util.ForwardingLoadBalancer.class, io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.class,
            io.grpc.stub.ClientCalls.class, ProtoUtils.class, io.grpc.protobuf.lite.ProtoLiteUtils.class,
            StringValue.class, com.google.rpc.Code.class, com.google.common.base.Preconditions.class,
            com.google.common.util.concurrent.internal.InternalFutureFailureAccess.class, io.perfmark.PerfMark.class);

    private GrpcStock() {}

    /** A unary method of {@code StringValue} to {@code StringValue}. */
    static MethodDescriptor<StringValue, StringValue> method(String fullName) {
        return MethodDescriptor.newBuilder(ProtoUtils.marshaller(StringValue.getDefaultInstance()),
                ProtoUtils.marshaller(StringValue.getDefaultInstance()))
                .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(fullName).build();
    }

    /** A mock's {@code response}: the message {@code StringValue(value)}'s bytes in base64. */
    static String base64(String value) {
        return Base64.getEncoder().encodeToString(StringValue.of(value).toByteArray());
    }

    /** The real {@code test.Stock} on 127.0.0.1 and an ephemeral port; answers {@link #REAL} and counts each call. */
    static final class Counting implements AutoCloseable {
        private final AtomicInteger calls = new AtomicInteger();
        private final Server server;

        Counting() throws Exception {
            ServerCalls.UnaryMethod<StringValue, StringValue> answer = (request, response) -> answer(response);
            server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                    .addService(ServerServiceDefinition.builder("test.Stock")
                            .addMethod(GET, ServerCalls.asyncUnaryCall(answer))
                            .addMethod(RESERVE, ServerCalls.asyncUnaryCall(answer)).build())
                    .build().start();
        }

        private void answer(StreamObserver<StringValue> response) {
            calls.incrementAndGet();
            response.onNext(StringValue.of(REAL));
            response.onCompleted();
        }

        int port() {
            return server.getPort();
        }

        /** {@code 127.0.0.1:<port>}, the target a client's channel names. */
        String target() {
            return "127.0.0.1:" + port();
        }

        int count() {
            return calls.get();
        }

        @Override
        public void close() throws InterruptedException {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
