package dev.richter.data;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The data-construction Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * flows and data sets in DynamoDB, KMS (the team's sealed marker keys); its HTTP calls to the team's services go through the JDK client. Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("data-construction").assertLean(Set.of("dynamodb", "kms"), false);
    }
}
