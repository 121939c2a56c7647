package dev.richter.agent.it;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * A service on embedded Tomcat (10.1, as Spring Boot 3.5 runs it) with no Richter code, for {@link ServerGatesIT}:
 * one application filter and one servlet on an ephemeral port (prints {@code READY <port>}), answering
 * <ul>
 *   <li>{@code GET /work}: counted by the filter and by the servlet, which then calls {@code -Dapp.exit} (a URL) with
 *       the JDK's {@code HttpClient} and answers 200 {@code exit=<the exit's body>} (a mock's body when the request
 *       was marked and the isolation loaded);</li>
 *   <li>{@code GET /counts}: {@code filter=<n> servlet=<n>}, the {@code /work} requests that reached each.</li>
 * </ul>
 */
public final class TomcatTestApp {
    private static final AtomicInteger FILTERED = new AtomicInteger();
    private static final AtomicInteger SERVED = new AtomicInteger();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TomcatTestApp() {}

    public static void main(String[] args) throws Exception {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("tomcat-test-app").toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        FilterDef counting = new FilterDef();
        counting.setFilterName("counting");
        counting.setFilter((Filter) (request, response, chain) -> {
            if ("/work".equals(((HttpServletRequest) request).getRequestURI())) {
                FILTERED.incrementAndGet();
            }
            chain.doFilter(request, response);
        });
        context.addFilterDef(counting);
        FilterMap all = new FilterMap();
        all.setFilterName("counting");
        all.addURLPattern("/*");
        context.addFilterMap(all);
        Tomcat.addServlet(context, "app", new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                String body;
                if ("/counts".equals(request.getRequestURI())) {
                    body = "filter=" + FILTERED.get() + " servlet=" + SERVED.get();
                } else {
                    SERVED.incrementAndGet();
                    body = "exit=" + callExit();
                }
                response.setContentType("text/plain");
                response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
            }
        });
        context.addServletMappingDecoded("/", "app");
        tomcat.start();
        System.out.println("READY " + connector.getLocalPort());
        tomcat.getServer().await();
    }

    /** The body {@code -Dapp.exit} answers, or {@code error=<message>}. */
    static String callExit() {
        try {
            return CLIENT.send(HttpRequest.newBuilder(URI.create(System.getProperty("app.exit")))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "error=" + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "error=interrupted";
        }
    }
}
