package dev.richter.report;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The report Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * the tables, the report files in S3, Run Completed events, trace evidence from X-Ray; no Step Functions. Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("report").assertLean(Set.of("dynamodb", "eventbridge", "s3", "xray"), false);
    }
}
