package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.links.Exit;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class MocksPresentCheckTest {
    static Exit exit(String toService, String toNode, boolean mockRequired) {
        return new Exit("inventory", "inventory POST /reserve", toService, toNode, 10, 0, mockRequired, false, "ops");
    }

    static List<MockDefinition> doc(String json) {
        return MockDefinition.parseDocument(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void configuredMockPassesAndMissingMockFails() {
        List<MockDefinition> mocks = doc("""
                {"mocks":[{"exit":"payment POST /charge","status":200,"body":"{\\"chargeId\\":\\"mock-1\\"}",
                           "headers":{"content-type":"application/json"},"latencyMs":50}]}""");
        List<CheckResult> r = SafetyChecks.mocksPresent(List.of(exit("payment", "payment POST /charge", true),
                exit("fraud", "fraud POST /score", true), exit("geo", "geo GET /ip", false)), mocks);
        assertEquals(List.of(Outcome.PASS, Outcome.FAIL), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertEquals("payment POST /charge", r.get(0).subject());
        assertTrue(r.get(0).evidence().contains("status 200, latency 50 ms"), r.get(0).evidence());
        assertEquals("fraud POST /score", r.get(1).subject());
    }

    @Test
    void mockWithoutStatusFailsWithoutLatencyWarnsAndHostPathMatchesAServiceExit() {
        List<MockDefinition> mocks = doc("""
                {"mocks":[{"exit":"payment","body":"{}","latencyMs":5},
                          {"exit":"api.stripe.com/v1/charges","status":200,"body":"{}"}]}""");
        List<CheckResult> r = SafetyChecks.mocksPresent(List.of(exit("payment", "payment POST /charge", true),
                exit("api.stripe.com", "api.stripe.com", true)), mocks);
        assertEquals(List.of(Outcome.FAIL, Outcome.WARN), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertEquals("mock 'payment' has no status", r.get(0).evidence());
        assertTrue(r.get(1).evidence().contains("has no simulated latency"), r.get(1).evidence());
    }

    @Test
    void malformedDocumentNamesTheField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> doc("{\"mocks\":[{\"exit\":\"a\",\"latencyMs\":-3}]}"));
        assertEquals("mocks[0].latencyMs: must be an integer from 0 to 60000", e.getMessage());
    }

    /** The check reads the document with the SDK's reader: what the SDK would refuse at run time is refused here. */
    @Test
    void aDocumentTheSdkRefusesIsRefused() {
        assertEquals("mocks[1].exit: duplicate 'payment'", assertThrows(IllegalArgumentException.class,
                () -> doc("{\"mocks\":[{\"exit\":\"payment\",\"status\":200},{\"exit\":\"payment\",\"status\":503}]}"))
                .getMessage());
        assertEquals("mocks[0].headers.retry: must be text", assertThrows(IllegalArgumentException.class,
                () -> doc("{\"mocks\":[{\"exit\":\"payment\",\"headers\":{\"retry\":5}}]}")).getMessage());
    }
}
