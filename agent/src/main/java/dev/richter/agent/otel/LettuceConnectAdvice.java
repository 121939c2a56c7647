package dev.richter.agent.otel;

import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.lettuce.LettuceExits;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into Lettuce's {@code AbstractRedisClient.initializeChannelAsync0} and {@code ReconnectionHandler
 * .reconnect0}, where Lettuce asks Netty to connect: in a marked context, the connect (which Netty runs on an event
 * loop, with the caller's context and no Lettuce frame) is made in a context naming Lettuce a decided client, which the
 * network catch-all passes. Names only the helper and the bridge's {@code MarkerScope}.
 */
@SuppressWarnings("unused")
public final class LettuceConnectAdvice {
    private LettuceConnectAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static MarkerScope enter() {
        return LettuceExits.decided();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter MarkerScope scope) {
        if (scope != null) {
            scope.close();
        }
    }
}
