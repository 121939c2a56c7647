package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The integration tests' OpenAPI check itself: it passes what the document describes and fails what it does not. */
class OpenApiConformanceTest {
    private static ApiClient.Exchange exchange(String method, String path, String requestBody, int status, String contentType,
                                               String body) throws Exception {
        JsonNode json = contentType.startsWith("application/json") && !body.isEmpty() ? Json.MAPPER.readTree(body) : null;
        HttpHeaders headers = HttpHeaders.of(Map.of("content-type", List.of(contentType)), (a, b) -> true);
        return new ApiClient.Exchange(method, path, Map.of(), requestBody, new ApiClient.Response(status, body, json, headers));
    }

    @Test
    void describedExchangesPass() throws Exception {
        OpenApiConformance.check(exchange("GET", "/nothing", "", 404, "application/json",
                "{\"error\":\"NoSuchRoute\",\"message\":\"no route GET /nothing\"}"));
        OpenApiConformance.check(exchange("GET", "/services?limit=2", "", 200, "application/json",
                "{\"items\":[{\"teamId\":\"t\",\"name\":\"a\",\"baseUrl\":\"http://x\",\"datastores\":[]}],\"nextCursor\":\"abc\"}"));
        OpenApiConformance.check(exchange("DELETE", "/plans/plan-1", "", 204, "application/json", ""));
    }

    @Test
    void undescribedExchangesFail() throws Exception {
        List<ApiClient.Exchange> bad = List.of(
                exchange("GET", "/nothing", "", 200, "application/json", "{}"),
                exchange("GET", "/nothing", "", 404, "application/json", "{\"message\":\"Not Found\"}"),
                exchange("GET", "/plans/plan-1", "", 200, "application/json", "{\"planId\":\"plan-1\"}"),
                exchange("GET", "/plans/plan-1", "", 418, "text/plain", "teapot"),
                exchange("POST", "/services", "{\"name\":\"a b\"}", 201, "application/json",
                        "{\"teamId\":\"t\",\"name\":\"a\",\"baseUrl\":\"http://x\",\"datastores\":[]}"),
                exchange("DELETE", "/plans/plan-1", "", 204, "application/json", "{}"));
        for (ApiClient.Exchange e : bad) {
            AssertionError err = assertThrows(AssertionError.class, () -> OpenApiConformance.check(e), e.toString());
            assertTrue(err.getMessage().startsWith("OpenAPI conformance of "), err.getMessage());
        }
    }
}
