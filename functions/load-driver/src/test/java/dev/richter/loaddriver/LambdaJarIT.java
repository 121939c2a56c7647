package dev.richter.loaddriver;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The load-driver Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * stored tasks, the abort flag and results in DynamoDB, KMS (the team's sealed marker keys); load goes out on its own Netty or JDK transport. Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("load-driver").assertLean(Set.of("dynamodb", "kms"), true);
    }
}
