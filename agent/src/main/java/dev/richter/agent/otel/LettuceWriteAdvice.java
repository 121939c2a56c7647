package dev.richter.agent.otel;

import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.lettuce.LettuceExits;
import io.lettuce.core.protocol.RedisCommand;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into Lettuce's {@code DefaultEndpoint.write(RedisCommand)}: a marked command gets its shadow keys and is
 * written in a context naming Lettuce a decided client, or is completed exceptionally with the refusal and not written
 * ({@code write} then returns it, as Lettuce does for a command it cannot accept). Names only the helper, the bridge's
 * {@code MarkerScope} and Lettuce types.
 */
@SuppressWarnings({"unused", "rawtypes"})
public final class LettuceWriteAdvice {
    private LettuceWriteAdvice() {}

    /** @return {@code Boolean.TRUE} to skip the write (refused), a scope to close after it, or {@code null} */
    @Advice.OnMethodEnter(skipOn = Boolean.class, suppress = Throwable.class)
    public static Object enter(@Advice.Argument(0) RedisCommand command) {
        return LettuceExits.beforeWrite(command);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Object entered, @Advice.Argument(0) RedisCommand command,
                            @Advice.Return(readOnly = false) RedisCommand written) {
        if (entered instanceof Boolean) {
            written = command;
        } else if (entered instanceof MarkerScope) {
            ((MarkerScope) entered).close();
        }
    }
}
