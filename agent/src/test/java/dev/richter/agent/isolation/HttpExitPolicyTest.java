package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HttpExitPolicyTest {
    private static Optional<IsolationConfig> config(String mode) {
        return Optional.of(IsolationConfig.parse(("""
                {"mode": "%s", "scope": ["orders.internal:8080", "inventory.internal"],
                 "mocks": [{"exit": "api.stripe.com/v1/charges", "status": 201, "body": "ok", "latencyMs": 5,
                            "headers": {"Content-Type": "application/json"}},
                           {"exit": "payment.internal:8443 POST /charge", "status": 200, "body": "paid"},
                           {"exit": "inventory.internal/reserve", "status": 202},
                           {"exit": "payment POST /charge", "status": 200}]}
                """).formatted(mode).getBytes(StandardCharsets.UTF_8)));
    }

    private static ExitDecision marked(String method, String host, int port, String path) {
        return HttpExitPolicy.decide(true, method, host, port, path, config("enforce"));
    }

    @Test
    void unmarkedCallsPassWithOrWithoutAConfiguration() {
        assertEquals(ExitDecision.PASS, HttpExitPolicy.decide(false, "POST", "api.stripe.com", 443, "/v1/charges",
                config("enforce")));
        assertEquals(ExitDecision.PASS, HttpExitPolicy.decide(false, "GET", "anywhere.example", 80, "/", Optional.empty()));
    }

    @Test
    void markedCallsAreRefusedUntilAConfigurationHasLoaded() {
        ExitDecision d = HttpExitPolicy.decide(true, "GET", "orders.internal", 8080, "/orders", Optional.empty());

        assertEquals(new ExitDecision.Refuse("orders.internal:8080 GET /orders", "isolation configuration not loaded"), d);
    }

    @Test
    void markedCallToAConfiguredExitGetsItsMockOnAnyPortAndMethodTheExitLeavesOpen() {
        ExitDecision.Mock expected = new ExitDecision.Mock("api.stripe.com/v1/charges", 201,
                Map.of("Content-Type", "application/json"), "ok", 5);

        assertEquals(expected, marked("POST", "api.stripe.com", 443, "/v1/charges"));
        assertEquals(expected, marked("GET", "API.Stripe.com", 8443, "/v1/charges"));
    }

    @Test
    void anExitNamingAMethodAndPortAnswersOnlyThat() {
        assertInstanceOf(ExitDecision.Mock.class, marked("POST", "payment.internal", 8443, "/charge"));
        assertInstanceOf(ExitDecision.Refuse.class, marked("GET", "payment.internal", 8443, "/charge"));
        assertInstanceOf(ExitDecision.Refuse.class, marked("POST", "payment.internal", 443, "/charge"));
        assertInstanceOf(ExitDecision.Refuse.class, marked("POST", "payment.internal", 8443, "/charge/1"));
    }

    @Test
    void aMockAnswersEvenInsideTheScope() {
        ExitDecision d = marked("POST", "inventory.internal", 80, "/reserve");

        assertEquals(202, assertInstanceOf(ExitDecision.Mock.class, d).status());
    }

    @Test
    void markedCallsInsideTheScopePass() {
        assertEquals(ExitDecision.PASS, marked("GET", "orders.internal", 8080, "/orders"));
        assertEquals(ExitDecision.PASS, marked("GET", "inventory.internal", 9999, "/stock"));
    }

    @Test
    void markedCallOutsideTheScopeIsRefusedInEnforceModeNamingTheExit() {
        ExitDecision d = marked("DELETE", "orders.internal", 9090, "/orders/1");

        ExitDecision.Refuse r = assertInstanceOf(ExitDecision.Refuse.class, d);
        assertEquals("orders.internal:9090 DELETE /orders/1", r.exit());
        assertEquals("Richter isolation refused a marked call to exit 'orders.internal:9090 DELETE /orders/1': "
                + "orders.internal:9090 is outside the test's scope and no mock answers the exit", r.message());
    }

    @Test
    void markedCallOutsideTheScopePassesAndIsRecordedInReportMode() {
        ExitDecision d = HttpExitPolicy.decide(true, "GET", "crm.example", 443, "/customers", config("report"));

        ExitDecision.WouldRefuse w = assertInstanceOf(ExitDecision.WouldRefuse.class, d);
        assertEquals("crm.example:443 GET /customers", w.exit());
        assertTrue(w.reason().contains("outside the test's scope"));
        assertInstanceOf(ExitDecision.Mock.class,
                HttpExitPolicy.decide(true, "POST", "api.stripe.com", 443, "/v1/charges", config("report")));
    }
}
