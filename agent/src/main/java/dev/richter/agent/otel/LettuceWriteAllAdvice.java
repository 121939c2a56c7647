package dev.richter.agent.otel;

import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.lettuce.LettuceExits;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into Lettuce's {@code DefaultEndpoint.write(Collection)}: only the commands not refused are written (the
 * refused ones completed exceptionally), with their shadow keys, in a context naming Lettuce a decided client when
 * marked; when every one is refused nothing is written and {@code write} returns the collection it was given. Names
 * only the helper, the bridge's {@code MarkerScope} and JDK types.
 */
@SuppressWarnings({"unused", "rawtypes", "unchecked"})
public final class LettuceWriteAllAdvice {
    private LettuceWriteAllAdvice() {}

    /**
     * @return the collection as given when nothing is to be written (skips the method), a scope to close after the
     *     write, or {@code null}
     */
    @Advice.OnMethodEnter(skipOn = Collection.class, suppress = Throwable.class)
    public static Object enter(@Advice.Argument(value = 0, readOnly = false) Collection commands) {
        Collection kept = LettuceExits.notRefused(commands);
        if (kept != commands) {
            if (kept.isEmpty()) {
                return commands;
            }
            commands = kept;
        }
        return LettuceExits.decided();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Object entered, @Advice.Return(readOnly = false) Collection written) {
        if (entered instanceof Collection) {
            written = (Collection) entered;
        } else if (entered instanceof MarkerScope) {
            ((MarkerScope) entered).close();
        }
    }
}
