package dev.richter.agent.otel;

import dev.richter.agent.awssdk.AwsSdkExits;
import dev.richter.agent.bootstrap.MarkerScope;
import java.util.concurrent.CompletableFuture;
import net.bytebuddy.asm.Advice;
import software.amazon.awssdk.core.client.handler.ClientExecutionParams;

/**
 * Inlined into the AWS SDK v2's {@code BaseAsyncClientHandler.execute(ClientExecutionParams[,
 * AsyncResponseTransformer])}: a marked call starts with its shadow request inside the decided client's context (the
 * agent carries that context to the threads the SDK continues on; the scope closes when {@code execute} returns), or is
 * not started and answers a future failed with the refusal's {@code SdkClientException}, as the SDK's async clients
 * answer their own errors. Names only the helper, the bridge's {@code MarkerScope} and SDK types.
 */
@SuppressWarnings("unused")
public final class AwsSdkAsyncAdvice {
    private AwsSdkAsyncAdvice() {}

    /** @return {@code null}, a scope to close once the call has started, or the refusal to fail the future with */
    @Advice.OnMethodEnter(skipOn = RuntimeException.class, suppress = Throwable.class)
    public static Object enter(@Advice.Argument(0) ClientExecutionParams<?, ?> params) {
        return AwsSdkExits.beforeExecute(params);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Object decided,
                            @Advice.Return(readOnly = false) CompletableFuture<?> future) {
        if (decided instanceof Throwable) {
            future = AwsSdkExits.failed((Throwable) decided);
        } else if (decided instanceof MarkerScope) {
            ((MarkerScope) decided).close();
        }
    }
}
