package dev.richter.checks;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The checks Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * the checks: DynamoDB, events (EventPublisher), KMS (the team's sealed marker keys), an X-Ray trace source (SafetyConfig). Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("checks").assertLean(Set.of("dynamodb", "eventbridge", "kms", "xray"), false);
    }
}
