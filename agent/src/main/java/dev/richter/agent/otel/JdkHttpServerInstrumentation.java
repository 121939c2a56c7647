package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;

import com.sun.net.httpserver.HttpContext;
import dev.richter.agent.jdk.InboundGate;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code createContext} of every {@code com.sun.net.httpserver.HttpServer}: the context returned gets the {@link
 * InboundGate} as its last filter (after the agent's own, which open the server span), so a marked request that
 * arrives before the isolation configuration has loaded is answered 503 and its span says why.
 */
public final class JdkHttpServerInstrumentation implements TypeInstrumentation {

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return AgentElementMatchers.extendsClass(named("com.sun.net.httpserver.HttpServer"));
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("createContext")),
                JdkHttpServerInstrumentation.class.getName() + "$CreateContextAdvice");
    }

    /** Inlined into the JDK's server: names only the helper and JDK types. */
    @SuppressWarnings("unused")
    public static final class CreateContextAdvice {
        private CreateContextAdvice() {}

        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Return HttpContext context) {
            InboundGate.addTo(context);
        }
    }
}
