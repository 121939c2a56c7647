package dev.richter.decider;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fault-decider Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * metrics, verdicts and the abort flag in DynamoDB; Verdict Changed events. Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("fault-decider").assertLean(Set.of("dynamodb", "eventbridge"), false);
    }
}
