package dev.richter.agent.servlet;

import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * Fail closed at any {@code javax.servlet} container (Servlet 3.0 to 4.0: Tomcat 7 to 9, as Spring Boot 2 runs it,
 * Jetty 9 and 10, Undertow 2.0 to 2.2), as {@link ServletGate} does at a jakarta one: while the isolation
 * configuration is not loaded, a marked inbound request is answered {@code 503}, the reason as a plain-text body,
 * before any filter or servlet of the application runs; unmarked requests always pass; once loaded, a marked request
 * runs with the marker current. Called by the advice of {@code otel.ServletInstrumentation} at every {@code
 * javax.servlet.FilterChain.doFilter} and {@code javax.servlet.Servlet.service}; decides the outermost of a thread
 * ({@link ServletGates}). A helper injected next to the container's {@code javax.servlet} classes (compiled against
 * javax.servlet-api 4.0.1, {@code provided}); no lambdas.
 */
public final class JavaxServletGate {
    private JavaxServletGate() {}

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
