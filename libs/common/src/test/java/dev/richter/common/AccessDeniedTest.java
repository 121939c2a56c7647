package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.metrics.MetricsCapture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/** A call the role may not make is told from a failed one, and a handler failing on it is counted (issue 28). */
class AccessDeniedTest {
    static AwsServiceException error(String code, int status) {
        return AwsServiceException.builder().statusCode(status).message(code)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage("User: x is not authorized").build()).build();
    }

    @Test
    void deniedCallsAreToldFromFailedOnesThroughCauses() {
        assertTrue(AccessDenied.isAccessDenied(error("AccessDeniedException", 400)));
        assertTrue(AccessDenied.isAccessDenied(error("AccessDenied", 403)), "S3's code");
        assertTrue(AccessDenied.isAccessDenied(new IllegalStateException("wrapped", error("AccessDeniedException", 400))));
        assertFalse(AccessDenied.isAccessDenied(error("ThrottlingException", 400)));
        assertFalse(AccessDenied.isAccessDenied(new IllegalStateException("no AWS error")));
        RuntimeException denied = error("AccessDeniedException", 400);
        assertSame(denied, assertThrows(RuntimeException.class, () -> AccessDenied.rethrowIfDenied(denied)));
        AccessDenied.rethrowIfDenied(error("ThrottlingException", 400));   // a fallback may take it
    }

    @Test
    void aHandlerFailingOnADeniedCallIsCountedInRichtersMetrics() {
        Context context = (Context) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Context.class},
                (p, m, a) -> m.getName().equals("getFunctionName") ? "richter-ReportFunction-1AbC2" : null);
        JsonStreamHandler<JsonNode, JsonNode> handler = new JsonStreamHandler<>(JsonNode.class) {
            @Override
            protected JsonNode handle(JsonNode input, Context c) {
                throw error(input.path("code").asText(), 400);
            }
        };
        try (MetricsCapture metrics = new MetricsCapture()) {
            for (String code : List.of("ThrottlingException", "AccessDeniedException")) {
                assertThrows(AwsServiceException.class, () -> handler.handleRequest(
                        new ByteArrayInputStream(("{\"code\":\"" + code + "\"}").getBytes(StandardCharsets.UTF_8)),
                        new ByteArrayOutputStream(), context));
            }
            List<JsonNode> lines = metrics.lines();
            assertEquals(1, lines.size(), "only the denial is counted: " + lines);
            assertEquals(1, lines.get(0).path("AccessDenied").asInt());
            assertEquals("report", lines.get(0).path("Function").asText());
        }
        assertEquals("plan-api", JsonStreamHandler.metricsFunction("PlanApiFunction"));
        assertEquals("load-driver", JsonStreamHandler.metricsFunction("richter-LoadDriverFunction-9ZyX"));
    }
}
