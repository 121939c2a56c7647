package dev.richter.api;

import dev.richter.common.LambdaJar;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The plan-api Lambda jar carries the SDK clients the function calls and one HTTP client ({@link LambdaJar#assertLean}):
 * the tables, the teams' sealed secrets (KMS), reports from S3, StartExecution and DescribeExecution; no X-Ray (it reads no trace source) and no EventBridge. Runs in {@code mvn -Plambda verify}, after the jar is built.
 */
class LambdaJarIT {
    @Test
    void carriesOnlyTheServiceClientsItCallsAndOneHttpClient() {
        LambdaJar.of("plan-api").assertLean(Set.of("dynamodb", "eventbridge", "kms", "s3", "scheduler", "sfn", "sns"), false);
    }
}
