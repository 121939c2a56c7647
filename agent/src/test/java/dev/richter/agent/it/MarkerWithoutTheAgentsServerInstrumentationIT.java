package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The marker still counts when the agent does not put it in the context: its {@code java-http-server} instrumentation
 * off (as under {@code otel.instrumentation.common.default-enabled=false}), so no baggage is extracted from inbound
 * requests, and the document read from a file ({@code -Drichter.isolation.file}).
 */
class MarkerWithoutTheAgentsServerInstrumentationIT {

    @Test
    void markedCallsAreStillMockedAndRefusedAndUnmarkedOnesStillPass(@TempDir Path dir) throws Exception {
        try (CountingServer exit = new CountingServer(200, "real"); CountingServer outside = new CountingServer(200, "prod")) {
            Path document = Files.writeString(dir.resolve("isolation.json"),
                    "{\"mocks\":[{\"exit\":\"127.0.0.1:" + exit.port() + "/pay\",\"status\":202,\"body\":\"mocked\"}]}");
            try (ChildJvm app = new ChildJvm(List.of("-Dotel.instrumentation.java-http-server.enabled=false",
                    "-Drichter.isolation.file=" + document))) {

                assertEquals("status=202 body=mocked", app.call(exit.url("/pay"), "POST", false, MARKED));
                assertEquals("error=Richter isolation refused a marked call to exit '127.0.0.1:" + outside.port()
                        + " GET /x': 127.0.0.1:" + outside.port() + " is outside the test's scope and no mock answers the"
                        + " exit", app.call(outside.url("/x"), "GET", true, MARKED));
                assertEquals("status=200 body=real", app.call(exit.url("/pay"), "POST", false, null));
                assertEquals("status=200 body=prod", app.call(outside.url("/x"), "GET", false, null));
            }
            assertEquals(1, exit.count());
            assertEquals(1, outside.count());
        }
    }
}
