package dev.richter.agent.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import javax.servlet.FilterChain;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * {@link TomcatTestApp} on embedded Tomcat 9 ({@code javax.servlet}, as Spring Boot 2.7 runs it), for {@link
 * ServerGatesIT}: the same filter, servlet and answers ({@code GET /work}, {@code GET /counts}), no Richter code, its
 * filter and servlet compiled against javax.servlet-api 4.0.1. Runs in a child JVM whose class path is Tomcat 9's jars
 * and the test classes only ({@link ChildJvm#ownClassPath}): the tests' Tomcat 10 has the same class names.
 */
public final class Tomcat9TestApp {
    private static final AtomicInteger FILTERED = new AtomicInteger();
    private static final AtomicInteger SERVED = new AtomicInteger();

    private Tomcat9TestApp() {}

    public static void main(String[] args) throws Exception {
        EmbeddedTomcat.serve(CountingFilter.class.getName(), WorkServlet.class.getName());
    }

    /** Counts the {@code /work} requests that reach the application's filters. */
    public static final class CountingFilter implements javax.servlet.Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            if ("/work".equals(((HttpServletRequest) request).getRequestURI())) {
                FILTERED.incrementAndGet();
            }
            chain.doFilter(request, response);
        }
    }

    /** {@code /work}: counted, then the exit's body; {@code /counts}: {@code filter=<n> servlet=<n>}. */
    public static final class WorkServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String body;
            if ("/counts".equals(request.getRequestURI())) {
                body = "filter=" + FILTERED.get() + " servlet=" + SERVED.get();
            } else {
                SERVED.incrementAndGet();
                body = "exit=" + GateExit.call();
            }
            response.setContentType("text/plain");
            response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
        }
    }
}
