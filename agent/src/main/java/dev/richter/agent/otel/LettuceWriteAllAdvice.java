package dev.richter.agent.otel;

import dev.richter.agent.lettuce.LettuceExits;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into Lettuce's {@code DefaultEndpoint.write(Collection)}: only the commands not refused are written (the
 * refused ones completed exceptionally), with their shadow keys; when every one is refused nothing is written and
 * {@code write} returns the collection it was given. Names only the helper and JDK types.
 */
@SuppressWarnings({"unused", "rawtypes", "unchecked"})
public final class LettuceWriteAllAdvice {
    private LettuceWriteAllAdvice() {}

    /** @return the collection as given when nothing is to be written (skips the method); else {@code null} */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static Collection enter(@Advice.Argument(value = 0, readOnly = false) Collection commands) {
        Collection kept = LettuceExits.notRefused(commands);
        if (kept == commands) {
            return null;
        }
        if (kept.isEmpty()) {
            return commands;
        }
        commands = kept;
        return null;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Collection skipped, @Advice.Return(readOnly = false) Collection written) {
        if (skipped != null) {
            written = skipped;
        }
    }
}
