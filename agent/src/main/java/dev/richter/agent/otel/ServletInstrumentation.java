package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.servlet.JavaxServletGate;
import dev.richter.agent.servlet.ServletGate;
import dev.richter.agent.servlet.ServletGates;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import net.bytebuddy.asm.Advice;

/**
 * Where a Servlet container hands a request to the application, in the jakarta API ({@code jakarta.servlet}, Servlet
 * 5 and 6) or the javax one ({@code javax.servlet}, Servlet 3.0 to 4.0): {@code doFilter(ServletRequest,
 * ServletResponse)} of every {@code FilterChain} and {@code service(ServletRequest, ServletResponse)} of every {@code
 * Servlet}. The outermost of the two on a thread is the container's call: Tomcat's {@code StandardWrapperValve} (9,
 * 10 and 11) calls {@code ApplicationFilterChain.doFilter} for every request, with or without filters, before the
 * first filter; a container that calls a servlet without a chain (Undertow, Jetty with no filter) calls {@code
 * Servlet.service}. Both are in the Servlet API, so the gate needs no container's class; the filter chains and
 * servlets the application runs inside (Spring Security's, {@code DispatcherServlet}) are inner calls and decide
 * nothing. Asks {@link ServletGate} (jakarta) or {@link JavaxServletGate} (javax), each a helper of its own module.
 */
final class ServletInstrumentation extends ImplementorsInstrumentation {
    private final String api;
    private final String method;
    private final String advice;

    private ServletInstrumentation(String api, String iface, String method, String advice) {
        super(api + "." + iface);
        this.api = api;
        this.method = method;
        this.advice = ServletInstrumentation.class.getName() + "$" + advice;
    }

    static ServletInstrumentation jakartaFilterChains() {
        return new ServletInstrumentation("jakarta.servlet", "FilterChain", "doFilter", "JakartaGateAdvice");
    }

    static ServletInstrumentation jakartaServlets() {
        return new ServletInstrumentation("jakarta.servlet", "Servlet", "service", "JakartaGateAdvice");
    }

    static ServletInstrumentation javaxFilterChains() {
        return new ServletInstrumentation("javax.servlet", "FilterChain", "doFilter", "JavaxGateAdvice");
    }

    static ServletInstrumentation javaxServlets() {
        return new ServletInstrumentation("javax.servlet", "Servlet", "service", "JavaxGateAdvice");
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named(method)).and(takesArguments(2))
                        .and(takesArgument(0, named(api + ".ServletRequest")))
                        .and(takesArgument(1, named(api + ".ServletResponse"))), advice);
    }

    /** Inlined into a jakarta container's chains and servlets: names only the helpers. */
    @SuppressWarnings("unused")
    public static final class JakartaGateAdvice {
        private JakartaGateAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.Argument(0) jakarta.servlet.ServletRequest request,
                                    @Advice.Argument(1) jakarta.servlet.ServletResponse response,
                                    @Advice.Local("richterDecided") Object decided) {
            decided = ServletGate.enter(request, response);
            return decided == ServletGates.REFUSED;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Local("richterDecided") Object decided) {
            ServletGates.exit(decided);
        }
    }

    /** Inlined into a javax container's chains and servlets: names only the helpers. */
    @SuppressWarnings("unused")
    public static final class JavaxGateAdvice {
        private JavaxGateAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.Argument(0) javax.servlet.ServletRequest request,
                                    @Advice.Argument(1) javax.servlet.ServletResponse response,
                                    @Advice.Local("richterDecided") Object decided) {
            decided = JavaxServletGate.enter(request, response);
            return decided == ServletGates.REFUSED;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Local("richterDecided") Object decided) {
            ServletGates.exit(decided);
        }
    }
}
