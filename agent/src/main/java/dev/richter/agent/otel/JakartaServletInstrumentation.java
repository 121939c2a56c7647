package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.servlet.ServletGate;
import io.opentelemetry.javaagent.bootstrap.CallDepth;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import net.bytebuddy.asm.Advice;

/**
 * Where a jakarta Servlet container hands a request to the application: {@code doFilter(ServletRequest,
 * ServletResponse)} of every {@code jakarta.servlet.FilterChain} and {@code service(ServletRequest, ServletResponse)}
 * of every {@code jakarta.servlet.Servlet}. The outermost of the two on a thread (one {@code CallDepth}) is the
 * container's call: Tomcat's {@code StandardWrapperValve} calls {@code ApplicationFilterChain.doFilter} for every
 * request, with or without filters, before the first filter; a container that calls a servlet without a chain
 * (Undertow, Jetty with no filter) calls {@code Servlet.service}. Both are in the Servlet API, so the gate needs no
 * container's class; the filter chains and servlets the application runs inside (Spring Security's, {@code
 * DispatcherServlet}) are inner calls and decide nothing. Asks {@link ServletGate}.
 */
final class JakartaServletInstrumentation extends ImplementorsInstrumentation {
    private final String method;

    private JakartaServletInstrumentation(String iface, String method) {
        super(iface);
        this.method = method;
    }

    static JakartaServletInstrumentation filterChains() {
        return new JakartaServletInstrumentation("jakarta.servlet.FilterChain", "doFilter");
    }

    static JakartaServletInstrumentation servlets() {
        return new JakartaServletInstrumentation("jakarta.servlet.Servlet", "service");
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named(method)).and(takesArguments(2))
                        .and(takesArgument(0, named("jakarta.servlet.ServletRequest")))
                        .and(takesArgument(1, named("jakarta.servlet.ServletResponse"))),
                JakartaServletInstrumentation.class.getName() + "$ServletGateAdvice");
    }

    /** Inlined into the container's chain and servlets: names only the helper, the bridge and Servlet types. */
    @SuppressWarnings("unused")
    public static final class ServletGateAdvice {
        private ServletGateAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.Argument(0) ServletRequest request,
                                    @Advice.Argument(1) ServletResponse response,
                                    @Advice.Local("richterDepth") CallDepth depth,
                                    @Advice.Local("richterScope") MarkerScope scope) {
            depth = CallDepth.forClass(ServletGate.class);
            if (depth.getAndIncrement() > 0) {
                return false;
            }
            Object decided = ServletGate.enter(request, response);
            if (decided instanceof MarkerScope) {
                scope = (MarkerScope) decided;
            }
            return decided == ServletGate.REFUSED;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Local("richterDepth") CallDepth depth,
                                @Advice.Local("richterScope") MarkerScope scope) {
            if (depth != null) {
                depth.decrementAndGet();
            }
            if (scope != null) {
                scope.close();
            }
        }
    }
}
