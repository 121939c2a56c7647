package dev.richter.agent.otel;

import dev.richter.agent.jedis.JedisExits;
import net.bytebuddy.asm.Advice;
import redis.clients.jedis.CommandArguments;

/**
 * Inlined into Jedis's {@code Connection.sendCommand(CommandArguments)}: replaces the arguments with their shadow keys,
 * or skips the send and throws the refusal's {@code JedisDataException}. Names only the helper and Jedis types.
 */
@SuppressWarnings("unused")
public final class JedisSendAdvice {
    private JedisSendAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static Object enter(@Advice.Argument(value = 0, readOnly = false) CommandArguments args) {
        Object decided = JedisExits.beforeSend(args);
        if (decided instanceof CommandArguments) {
            args = (CommandArguments) decided;
            return null;
        }
        return decided;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Object refusal, @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (refusal instanceof Throwable) {
            thrown = (Throwable) refusal;
        }
    }
}
