package dev.richter.agent.servlet;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Optional;

/**
 * Fail closed at any jakarta Servlet container (Servlet 5 and 6: Tomcat 10 and 11, Jetty 11 and 12 ee9/ee10,
 * Undertow 2.3): while the isolation configuration is not loaded, a marked inbound request (its {@code baggage}
 * header holds the marker) is answered {@code 503}, {@code Content-Type: text/plain; charset=utf-8}, the reason as the
 * body, and no filter or servlet of the application runs; unmarked requests always pass. Once loaded, a marked
 * request runs with the marker current ({@link IsolationGuard#markInbound}). Called by the advice of {@code
 * otel.JakartaServletInstrumentation} at the outermost {@code FilterChain.doFilter} or {@code Servlet.service} of a
 * thread, which is the container's call into the application. A helper injected next to the container's
 * {@code jakarta.servlet} classes; no lambdas.
 */
public final class ServletGate {
    /** What {@link #enter} answers for a request it refused and answered: skip the container's call. */
    public static final Object REFUSED = new Object();

    private ServletGate() {}

    /**
     * Decides one request as the container hands it to the application.
     *
     * @return {@link #REFUSED}: the 503 is written, skip the call; a {@code MarkerScope} to close once the call
     *     returned; or {@code null}: pass (not HTTP, unmarked, or nothing to make current)
     */
    public static Object enter(ServletRequest request, ServletResponse response) {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            return null;
        }
        HttpServletRequest http = (HttpServletRequest) request;
        HttpServletResponse answer = (HttpServletResponse) response;
        String baggage = baggage(http);
        IsolationGuard guard = IsolationBridge.guard();
        Optional<String> refusal = guard.inboundRefusal(baggage);
        if (!refusal.isPresent()) {
            return baggage.isEmpty() ? null : guard.markInbound(baggage);
        }
        byte[] body = (refusal.get() + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            answer.setStatus(503);
            answer.setContentType("text/plain; charset=utf-8");
            answer.setContentLength(body.length);
            answer.getOutputStream().write(body);
            answer.flushBuffer();
        } catch (IOException | RuntimeException e) {
            // the client went away: the request is refused all the same
        }
        return REFUSED;
    }

    /** The request's {@code baggage} header values joined with {@code ,}; {@code ""} when it has none. */
    private static String baggage(HttpServletRequest request) {
        Enumeration<String> values = request.getHeaders("baggage");
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
