package dev.richter.links;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The link-builder Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * the links table; the X-Ray trace source of the hourly rebuild. Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("link-builder").assertLean(Set.of("dynamodb", "xray"), false);
    }
}
