package dev.richter.agent.otel;

import dev.richter.agent.lettuce.LettuceExits;
import io.lettuce.core.protocol.RedisCommand;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into Lettuce's {@code DefaultEndpoint.write(RedisCommand)}: a marked command gets its shadow keys, or is
 * completed exceptionally with the refusal and not written ({@code write} then returns it, as Lettuce does for a
 * command it cannot accept). Names only the helper and Lettuce types.
 */
@SuppressWarnings({"unused", "rawtypes"})
public final class LettuceWriteAdvice {
    private LettuceWriteAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static boolean enter(@Advice.Argument(0) RedisCommand command) {
        return LettuceExits.refused(command);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter boolean refused, @Advice.Argument(0) RedisCommand command,
                            @Advice.Return(readOnly = false) RedisCommand written) {
        if (refused) {
            written = command;
        }
    }
}
