package dev.richter.agent.it;

import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * Starts an embedded Tomcat for {@link TomcatTestApp} (Tomcat 10.1, jakarta) and {@link Tomcat9TestApp} (Tomcat 9,
 * javax): one application filter on {@code /*} and one servlet on {@code /}, given by class name, on an ephemeral
 * loopback port; prints {@code READY <port>} and serves until the JVM ends. Compiled against Tomcat 10's {@code
 * Tomcat}, {@code Connector}, {@code Context}, {@code FilterDef} and {@code FilterMap}, calling only methods whose
 * signatures name no Servlet type, which Tomcat 9 has with the same descriptors: the one class runs on either.
 */
final class EmbeddedTomcat {
    private EmbeddedTomcat() {}

    /**
     * @param filterClass  a public filter class with a public no-argument constructor, of the container's Servlet API
     * @param servletClass a public servlet class, the same
     */
    static void serve(String filterClass, String servletClass) throws Exception {
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
        counting.setFilterClass(filterClass);
        context.addFilterDef(counting);
        FilterMap all = new FilterMap();
        all.setFilterName("counting");
        all.addURLPattern("/*");
        context.addFilterMap(all);
        Tomcat.addServlet(context, "app", servletClass);
        context.addServletMappingDecoded("/", "app");
        tomcat.start();
        System.out.println("READY " + connector.getLocalPort());
        tomcat.getServer().await();
    }
}
