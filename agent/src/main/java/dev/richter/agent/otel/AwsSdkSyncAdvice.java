package dev.richter.agent.otel;

import dev.richter.agent.awssdk.AwsSdkExits;
import dev.richter.agent.bootstrap.MarkerScope;
import net.bytebuddy.asm.Advice;
import software.amazon.awssdk.core.client.handler.ClientExecutionParams;

/**
 * Inlined into the AWS SDK v2's {@code BaseSyncClientHandler.execute(ClientExecutionParams[, ResponseTransformer])}:
 * a marked call runs with its shadow request inside the decided client's context (closed when it returns), or is not
 * run and throws the refusal's {@code SdkClientException}. Names only the helper, the bridge's {@code MarkerScope} and
 * SDK types.
 */
@SuppressWarnings("unused")
public final class AwsSdkSyncAdvice {
    private AwsSdkSyncAdvice() {}

    /** @return {@code null}, a scope to close after the call, or the refusal to throw instead of running it */
    @Advice.OnMethodEnter(skipOn = RuntimeException.class, suppress = Throwable.class)
    public static Object enter(@Advice.Argument(0) ClientExecutionParams<?, ?> params) {
        return AwsSdkExits.beforeExecute(params);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Object decided, @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (decided instanceof Throwable) {
            thrown = (Throwable) decided;
        } else if (decided instanceof MarkerScope) {
            ((MarkerScope) decided).close();
        }
    }
}
