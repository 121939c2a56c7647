package dev.richter.preparation;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The run-preparation Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * the tables; Run Started / Stage events. Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("run-preparation").assertLean(Set.of("dynamodb", "eventbridge"), false);
    }
}
