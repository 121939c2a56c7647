package dev.richter.agent.servlet;

import dev.richter.agent.bootstrap.IsolationGuard;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Fail closed at any jakarta Servlet container (Servlet 5 and 6: Tomcat 10 and 11, Jetty 11 and 12 ee9/ee10,
 * Undertow 2.3): while the isolation configuration is not loaded, a marked inbound request (its {@code baggage}
 * header holds the marker) is answered {@code 503}, {@code Content-Type: text/plain; charset=utf-8}, the reason as the
 * body, and no filter or servlet of the application runs; unmarked requests always pass. Once loaded, a marked
 * request runs with the marker current ({@link IsolationGuard#markInbound}). Called by the advice of {@code
 * otel.ServletInstrumentation} at every {@code FilterChain.doFilter} and {@code Servlet.service}; decides the outermost
 * of a thread, which is the container's call into the application ({@link ServletGates}). A helper injected next to
 * the container's {@code jakarta.servlet} classes; no lambdas. The javax twin: {@link JavaxServletGate}.
 */
public final class ServletGate {
    private ServletGate() {}

    /**
     * Decides one call as the container hands a request to the application; pass what it answers to {@link
     * ServletGates#exit} once the call returned (or was skipped).
     *
     * @return {@link ServletGates#REFUSED}: the 503 is written, skip the call; else a value for {@link
     *     ServletGates#exit} (an inner call, a pass, or the marker's scope)
     */
    public static Object enter(ServletRequest request, ServletResponse response) {
        Object depth = ServletGates.enterOuter();
        if (depth == ServletGates.INNER || !(request instanceof HttpServletRequest)
                || !(response instanceof HttpServletResponse)) {
            return depth;
        }
        Object decided;
        try {
            decided = ServletGates.decide(((HttpServletRequest) request).getHeaders("baggage"));
        } catch (RuntimeException e) {
            // a request whose headers cannot be read passes as unmarked; the depth is counted back at exit
            return ServletGates.PASS;
        }
        if (!(decided instanceof byte[])) {
            return decided;
        }
        byte[] body = (byte[]) decided;
        HttpServletResponse answer = (HttpServletResponse) response;
        try {
            answer.setStatus(503);
            answer.setContentType("text/plain; charset=utf-8");
            answer.setContentLength(body.length);
            answer.getOutputStream().write(body);
            answer.flushBuffer();
        } catch (IOException | RuntimeException e) {
            // the client went away: the request is refused all the same
        }
        return ServletGates.REFUSED;
    }
}
