package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.LambdaJar;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The probe Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * the runs table only; probes go out on the JDK HTTP client and grpc-netty-shaded (io/grpc/netty/shaded/). Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("probe").assertLean(Set.of("cloudwatch", "dynamodb"), false);
    }

    @Test
    void carriesGrpcsBoringSslForLinuxX8664Only() {
        LambdaJar jar = LambdaJar.of("probe");
        assertTrue(jar.has("META-INF/native/libio_grpc_netty_shaded_netty_tcnative_linux_x86_64.so"));
        for (String other : List.of("windows", "osx", "linux_aarch_64")) {
            assertFalse(jar.has("META-INF/native/libio_grpc_netty_shaded_netty_tcnative_" + other)
                    || jar.has("META-INF/native/io_grpc_netty_shaded_netty_tcnative_" + other), other);
        }
    }
}
