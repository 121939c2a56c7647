package dev.richter.agent.it;

import com.google.protobuf.StringValue;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A service with no Richter code that calls a gRPC service ({@link GrpcStock}'s {@code test.Stock}) with grpc-java
 * over grpc-netty-shaded, for {@link GrpcIsolationIT} and the leak matrix: a JDK {@code HttpServer} on an ephemeral
 * port (prints {@code READY <port>}) answering {@code /grpc?target=<host:port>&method=<full method name>&how=blocking|future}
 * with one unary call of {@code StringValue("sku-1")} on a plaintext channel to the target (one channel per target,
 * built by {@code Grpc.newChannelBuilder}, kept), through {@code ClientCalls.blockingUnaryCall} or {@code
 * futureUnaryCall}, 10 s deadline. Answers {@code value=<the response's value>}, or {@code error=<status code>:
 * <description>}.
 */
public final class GrpcTestApp {
    private static final Map<String, ManagedChannel> CHANNELS = new ConcurrentHashMap<>();

    private GrpcTestApp() {}

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/grpc", GrpcTestApp::serve);
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }

    private static void serve(HttpExchange exchange) throws java.io.IOException {
        Map<String, String> query = StorageTestApp.query(exchange);
        String body;
        try {
            body = "value=" + call(query.get("target"), GrpcStock.method(query.get("method")), query.get("how"));
        } catch (StatusRuntimeException e) {
            body = "error=" + e.getStatus().getCode() + ": " + e.getStatus().getDescription();
        } catch (ExecutionException e) {
            body = e.getCause() instanceof StatusRuntimeException
                    ? "error=" + ((StatusRuntimeException) e.getCause()).getStatus().getCode() + ": "
                    + ((StatusRuntimeException) e.getCause()).getStatus().getDescription()
                    : "error=" + e.getCause();
        } catch (Exception e) {
            body = "error=" + e;
        }
        CountingServer.answer(exchange, 200, body);
    }

    private static String call(String target, MethodDescriptor<StringValue, StringValue> method, String how)
            throws Exception {
        ManagedChannel channel = CHANNELS.computeIfAbsent(target,
                t -> Grpc.newChannelBuilder(t, InsecureChannelCredentials.create()).build());
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
        StringValue request = StringValue.of("sku-1");
        StringValue answer = "future".equals(how)
                ? ClientCalls.futureUnaryCall(channel.newCall(method, options), request).get(15, TimeUnit.SECONDS)
                : ClientCalls.blockingUnaryCall(channel, method, options, request);
        return answer.getValue();
    }
}
