package dev.richter.agent.servlet;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import io.opentelemetry.javaagent.bootstrap.CallDepth;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Optional;

/**
 * The part of the Servlet containers' 503 gate that names no Servlet type, shared by the jakarta gate ({@link
 * ServletGate}) and the javax one ({@link JavaxServletGate}): which call on a thread is the container's (the outermost
 * {@code FilterChain.doFilter} or {@code Servlet.service}, one {@code CallDepth} for both APIs), the decision of one
 * request by its {@code baggage} header values ({@link IsolationGuard#inboundRefusal}, {@link
 * IsolationGuard#markInbound}), and the end of the call. A helper injected with either gate; no lambdas.
 */
public final class ServletGates {
    /** What a gate's {@code enter} answers for a request it refused and answered 503: skip the container's call. */
    public static final Object REFUSED = new Object();
    /** What {@link #enterOuter} and a gate's {@code enter} answer for a call to pass as it is. */
    static final Object PASS = new Object();
    /** What {@link #enterOuter} answers for an inner call (the application's chain or servlet): decide nothing. */
    static final Object INNER = new Object();

    private ServletGates() {}

    /**
     * Counts the call on this thread's depth; call {@link #exit} with what the gate's {@code enter} answered, also for
     * an inner call.
     *
     * @return {@link #INNER} for a call inside the container's call, else {@link #PASS}: the gate decides it
     */
    static Object enterOuter() {
        return CallDepth.forClass(ServletGates.class).getAndIncrement() > 0 ? INNER : PASS;
    }

    /**
     * Decides one request by its {@code baggage} header values ({@code HttpServletRequest.getHeaders("baggage")}).
     *
     * @return the 503's body (UTF-8, the reason and a newline) when it is refused; a {@link MarkerScope} to close once
     *     the call returned; or {@link #PASS}
     */
    static Object decide(Enumeration<String> baggageValues) {
        String baggage = joined(baggageValues);
        IsolationGuard guard = IsolationBridge.guard();
        Optional<String> refusal = guard.inboundRefusal(baggage);
        if (refusal.isPresent()) {
            return (refusal.get() + "\n").getBytes(StandardCharsets.UTF_8);
        }
        return baggage.isEmpty() ? PASS : guard.markInbound(baggage);
    }

    /**
     * Ends a call a gate's {@code enter} decided: the depth counted back, the marker's scope closed; nothing when
     * {@code decided} is null (its {@code enter} did not run to the end).
     */
    public static void exit(Object decided) {
        if (decided == null) {
            return;
        }
        CallDepth.forClass(ServletGates.class).decrementAndGet();
        if (decided instanceof MarkerScope) {
            ((MarkerScope) decided).close();
        }
    }

    /** The header values joined with {@code ,}; {@code ""} when there are none. */
    private static String joined(Enumeration<String> values) {
        if (values == null || !values.hasMoreElements()) {
            return "";
        }
        StringBuilder joined = new StringBuilder(values.nextElement());
        while (values.hasMoreElements()) {
            joined.append(',').append(values.nextElement());
        }
        return joined.toString();
    }
}
