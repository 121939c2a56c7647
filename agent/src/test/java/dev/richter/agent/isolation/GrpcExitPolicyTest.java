package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.richter.agent.bootstrap.ExitDecision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The document's {@code grpcMocks} ({@link GrpcMock}) and the rule of a gRPC call ({@link GrpcExitPolicy}). */
class GrpcExitPolicyTest {
    private static IsolationConfig parse(String json) {
        return IsolationConfig.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String grpcMocks) {
        return assertThrows(IllegalArgumentException.class,
                () -> parse("{\"mocks\": [], \"grpcMocks\": " + grpcMocks + "}")).getMessage();
    }

    private static Optional<IsolationConfig> config(String mode) {
        return Optional.of(parse("""
                {"mode": "%s", "scope": ["inventory.internal:9090"], "mocks": [],
                 "grpcMocks": [{"method": "shop.Payments/Charge", "response": "CgdjaF9tb2Nr", "latencyMs": 20},
                               {"method": "shop.Payments/Charge", "authority": "payments.internal:9090",
                                "response": "CgNvbmU="},
                               {"method": "shop.Stock/Reserve", "status": "RESOURCE_EXHAUSTED",
                                "description": "sold out"},
                               {"method": "shop.Stock/Get", "authority": "inventory.internal"}]}
                """.formatted(mode)));
    }

    private static ExitDecision marked(String host, int port, String method) {
        return GrpcExitPolicy.decide(true, host, port, method, config("enforce"));
    }

    @Test
    void readsTheEntriesWithTheirDefaults() {
        List<GrpcMock> mocks = config("enforce").orElseThrow().grpcMocks();

        assertEquals(new GrpcMock("shop.Payments/Charge", null, 0, "CgdjaF9tb2Nr", "", 20), mocks.get(0));
        assertEquals(new GrpcMock("shop.Payments/Charge", HostPort.parse("payments.internal:9090"), 0, "CgNvbmU=", "",
                0), mocks.get(1));
        assertEquals(new GrpcMock("shop.Stock/Reserve", null, 8, "", "sold out", 0), mocks.get(2));
        assertEquals(List.of(), parse("{\"mocks\": []}").grpcMocks());
    }

    @Test
    void unmarkedCallsPassAndMarkedOnesAreRefusedUntilADocumentLoads() {
        assertEquals(ExitDecision.PASS, GrpcExitPolicy.decide(false, "payments.internal", 9090, "shop.Payments/Charge",
                Optional.empty()));
        assertEquals(new ExitDecision.Refuse("payments.internal:9090/shop.Payments/Charge",
                "isolation configuration not loaded"),
                GrpcExitPolicy.decide(true, "payments.internal", 9090, "shop.Payments/Charge", Optional.empty()));
    }

    @Test
    void aMockedMethodIsAnsweredTheMockNamingTheAuthorityFirstInScopeOrNot() {
        assertEquals(new ExitDecision.Mock("payments.internal:9090/shop.Payments/Charge", 0, Map.of(), "CgNvbmU=", 0),
                marked("Payments.Internal", 9090, "shop.Payments/Charge"));
        assertEquals(new ExitDecision.Mock("shop.Payments/Charge", 0, Map.of(), "CgdjaF9tb2Nr", 20),
                marked("payments.internal", 443, "shop.Payments/Charge"));
        assertEquals(new ExitDecision.Mock("shop.Payments/Charge", 0, Map.of(), "CgdjaF9tb2Nr", 20),
                marked("inventory.internal", 9090, "shop.Payments/Charge"));
        assertEquals(new ExitDecision.Mock("shop.Stock/Reserve", 8, Map.of(), "sold out", 0),
                marked("anywhere.example", 443, "shop.Stock/Reserve"));
        assertEquals(new ExitDecision.Mock("inventory.internal/shop.Stock/Get", 0, Map.of(), "", 0),
                marked("inventory.internal", 8443, "shop.Stock/Get"));
    }

    @Test
    void aMarkedCallInScopePassesAndAnyOtherIsRefusedOrInReportModeRecorded() {
        assertEquals(ExitDecision.PASS, marked("inventory.internal", 9090, "shop.Stock/List"));
        String reason = "orders.internal:9090 is outside the test's scope and no gRPC mock answers shop.Orders/Place";
        assertEquals(new ExitDecision.Refuse("orders.internal:9090/shop.Orders/Place", reason),
                marked("orders.internal", 9090, "shop.Orders/Place"));
        assertEquals(new ExitDecision.WouldRefuse("orders.internal:9090/shop.Orders/Place", reason),
                GrpcExitPolicy.decide(true, "orders.internal", 9090, "shop.Orders/Place", config("report")));
    }

    @Test
    void namesTheFieldOfAMalformedEntry() {
        assertEquals("grpcMocks: must be an array of {\"method\", \"response\", ...}", error("{}"));
        assertEquals("grpcMocks[0]: must be an object", error("[\"shop.Stock/Get\"]"));
        assertEquals("grpcMocks[0].method: required text", error("[{\"response\": \"\"}]"));
        assertEquals("grpcMocks[0].method: must be text", error("[{\"method\": 1}]"));
        for (String method : List.of("Charge", "/shop.Payments/Charge", "shop.Payments/", "a/b/c", "shop.Payments/Ch arge")) {
            assertEquals("grpcMocks[0].method: must be '<package>.<Service>/<Method>', got '" + method + "'",
                    error("[{\"method\": \"" + method + "\"}]"));
        }
        assertEquals("grpcMocks[1].authority: port: must be 1-65535 in 'payments:0'",
                error("[{\"method\": \"a.B/C\"}, {\"method\": \"a.B/C\", \"authority\": \"payments:0\"}]"));
        assertEquals("grpcMocks[0].status: must be a gRPC status code name (OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT,"
                + " DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED,"
                + " FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS,"
                + " UNAUTHENTICATED), got '404'", error("[{\"method\": \"a.B/C\", \"status\": \"404\"}]"));
        assertEquals("grpcMocks[0].response: must be base64 (RFC 4648, padded): Illegal base64 character 2d",
                error("[{\"method\": \"a.B/C\", \"response\": \"a-b\"}]"));
        assertEquals("grpcMocks[0].response: only with status OK (a call closed with NOT_FOUND answers no message)",
                error("[{\"method\": \"a.B/C\", \"status\": \"NOT_FOUND\", \"response\": \"CgA=\"}]"));
        assertEquals("grpcMocks[0].description: only with a status other than OK",
                error("[{\"method\": \"a.B/C\", \"description\": \"why\"}]"));
        assertEquals("grpcMocks[0].latencyMs: must be an integer from 0 to 60000",
                error("[{\"method\": \"a.B/C\", \"latencyMs\": -1}]"));
        assertEquals("grpcMocks[0].body: unknown field; a gRPC mock has method, authority, status, response,"
                + " description, latencyMs", error("[{\"method\": \"a.B/C\", \"body\": \"{}\"}]"));
        assertEquals("grpcMocks[1]: duplicate method 'a.B/C' for authority 'any'",
                error("[{\"method\": \"a.B/C\"}, {\"method\": \"a.B/C\", \"latencyMs\": 1}]"));
        assertEquals("grpcMocks[1]: duplicate method 'a.B/C' for authority 'h:1'",
                error("[{\"method\": \"a.B/C\", \"authority\": \"h:1\"}, {\"method\": \"a.B/C\", \"authority\": \"H:1\"}]"));
    }
}
