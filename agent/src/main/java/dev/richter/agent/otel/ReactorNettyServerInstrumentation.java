package dev.richter.agent.otel;

import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.reactornetty.ReactorNettyGate;
import net.bytebuddy.asm.Advice;

/**
 * The advice on {@code reactor.netty.http.server.HttpServer$HttpServerHandle.onStateChange(Connection, State)}: the
 * one place reactor-netty 1.x applies the handler given to {@code HttpServer.handle(...)} to a request (at {@code
 * REQUEST_RECEIVED}, on the event loop, inside the server span the agent's Netty instrumentation opened), for
 * HTTP/1.1 and HTTP/2 alike. Skipped, with {@link ReactorNettyGate} sending the 503, for a marked request before the
 * configuration has loaded.
 */
final class ReactorNettyServerInstrumentation {
    /** The class and method instrumented (package-private in reactor-netty; stable from 1.0 to 1.3). */
    static final OneMethodInstrumentation HANDLE = new OneMethodInstrumentation(
            "reactor.netty.http.server.HttpServer$HttpServerHandle", "onStateChange", 2, "reactor.netty.Connection",
            ReactorNettyServerInstrumentation.class.getName() + "$ReactorNettyGateAdvice");

    private ReactorNettyServerInstrumentation() {}

    /** Inlined into reactor-netty: names only the helper and the bridge. */
    @SuppressWarnings("unused")
    public static final class ReactorNettyGateAdvice {
        private ReactorNettyGateAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.Argument(0) Object connection, @Advice.Argument(1) Object state,
                                    @Advice.Local("richterScope") MarkerScope scope) {
            Object decided = ReactorNettyGate.enter(connection, state);
            if (decided instanceof MarkerScope) {
                scope = (MarkerScope) decided;
            }
            return decided == ReactorNettyGate.REFUSED;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Local("richterScope") MarkerScope scope) {
            if (scope != null) {
                scope.close();
            }
        }
    }
}
