package dev.richter.agent.it;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service on embedded Tomcat (10.1, as Spring Boot 3.5 runs it) with no Richter code, for {@link ServerGatesIT}:
 * one application filter and one servlet on an ephemeral port ({@link EmbeddedTomcat}; prints {@code READY <port>}),
 * answering
 * <ul>
 *   <li>{@code GET /work}: counted by the filter and by the servlet, which then calls {@code -Dapp.exit} ({@link
 *       GateExit}) and answers 200 {@code exit=<the exit's body>} (a mock's body when the request was marked and the
 *       isolation loaded);</li>
 *   <li>{@code GET /counts}: {@code filter=<n> servlet=<n>}, the {@code /work} requests that reached each.</li>
 * </ul>
 */
public final class TomcatTestApp {
    private static final AtomicInteger FILTERED = new AtomicInteger();
    private static final AtomicInteger SERVED = new AtomicInteger();

    private TomcatTestApp() {}

    public static void main(String[] args) throws Exception {
        EmbeddedTomcat.serve(CountingFilter.class.getName(), WorkServlet.class.getName());
    }

    /** Counts the {@code /work} requests that reach the application's filters. */
    public static final class CountingFilter implements Filter {
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
