package dev.richter.checks.safety;

import static dev.richter.checks.safety.SafetyFixtures.span;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.Exit;
import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MockedExitsCheckTest {
    static final Set<String> SCOPE = Set.of("order", "inventory");
    static final Exit PAYMENT = new Exit("inventory", "inventory POST /reserve", "payment", "payment POST /charge", 2, 0,
            true, true, "ops");

    @Test
    void realShopCaptureReachesPaymentForRealUnderMarkedTraffic() {
        ParsedTraces t = SafetyFixtures.traces("shop-healthy.otlp.json");
        List<CheckResult> r = SafetyChecks.mockedExits(t, SCOPE, List.of(PAYMENT), Marker.DEFAULT);
        assertEquals(1, r.size());
        assertEquals(Outcome.FAIL, r.get(0).outcome());
        // the marked trace only: the unmarked order in the capture is real traffic and may reach payment
        String marked = t.spans().stream().filter(s -> MarkerOnSpan.carries(s, Marker.DEFAULT)).findFirst().orElseThrow()
                .traceId();
        assertTrue(r.get(0).evidence().startsWith("1 marked calls reached payment POST /charge for real"), r.get(0).evidence());
        assertTrue(r.get(0).evidence().contains("trace " + marked + " (inventory 'POST' -> payment 'POST /charge')"),
                r.get(0).evidence());
    }

    @Test
    void realShopCaptureWithExitMocksPasses() {
        // inventory consulted dev.richter.sdk.ExitMocks (SHOP_MOCKS_URL) and marked its span richter.mock=true
        ParsedTraces t = SafetyFixtures.traces("shop-mocked-payment.otlp.json");
        List<CheckResult> r = SafetyChecks.mockedExits(t, SCOPE, List.of(PAYMENT), Marker.DEFAULT);
        assertEquals(List.of(Outcome.PASS), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertEquals("1 marked calls answered by the mock (richter.mock=true), 0 real", r.get(0).evidence());
        assertEquals(Outcome.PASS, CheckResult.worst(SafetyChecks.markerPropagation(t, SCOPE, Marker.DEFAULT)));
    }

    @Test
    void theExtensionsMocksNamedByTheExitsAddressCountForTheExit() {
        // two marked orders of the Spring Boot shop (gateway -> order -> inventory), captured from ./richter demo: the
        // agent extension answered order's RestClient call to payment with the mock it serves as
        // '127.0.0.1:18083 POST /charge' (the exit declared with baseUrl http://127.0.0.1:18083)
        ParsedTraces t = SafetyFixtures.traces("shop-spring-extension-mocked-payment.otlp.json");
        Exit payment = new Exit("order", "order POST /orders", "payment", "payment POST /charge", 2, 0, true, true, "ops");
        Set<String> scope = Set.of("gateway", "order", "inventory");
        List<CheckResult> r = SafetyChecks.mockedExits(t, scope, List.of(payment), Marker.DEFAULT,
                Map.of("payment", "127.0.0.1:18083"));
        assertEquals(List.of(Outcome.PASS), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertEquals("2 marked calls answered by the mock (richter.mock=true), 0 real", r.get(0).evidence());
        // without the address the mocks name no exit: the exit looks unexercised
        assertTrue(SafetyChecks.mockedExits(t, scope, List.of(payment), Marker.DEFAULT).get(0).evidence()
                .contains("none mocked either"));
    }

    @Test
    void mockedCallPassesAndExitWithoutMockRequirementIsIgnored() {
        Map<String, String> mk = Map.of("richter-loadtest", "1");
        List<Span> spans = List.of(
                span("t1", "a", "", "inventory", "POST /reserve", SpanKind.SERVER, "", Map.of("richter-loadtest", "1",
                        MockedExitsCheck.MOCK_ATTRIBUTE, "true", MockedExitsCheck.MOCK_EXIT_ATTRIBUTE, "payment POST /charge"),
                        0, 10),
                span("t1", "b", "a", "inventory", "GET", SpanKind.CLIENT, "", mk, 1, 5),
                span("t1", "c", "b", "geo", "GET /ip", SpanKind.SERVER, "", mk, 2, 2));
        Exit geo = new Exit("inventory", "inventory POST /reserve", "geo", "geo GET /ip", 1, 0, false, false, "");
        List<CheckResult> r = MockedExitsCheck.check(spans, SCOPE, List.of(PAYMENT, geo), Marker.DEFAULT);
        assertEquals(List.of(Outcome.PASS), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertTrue(r.get(0).evidence().startsWith("1 marked calls answered by the mock"), r.get(0).evidence());
    }

    @Test
    void uninstrumentedPeerCalledForRealFailsUnlessMarkedMocked() {
        Map<String, String> mk = Map.of("richter-loadtest", "1");
        Exit stripe = new Exit("inventory", "inventory POST /reserve", "api.stripe.com", "api.stripe.com", 1, 0, true,
                false, "");
        List<Span> real = List.of(
                span("t1", "a", "", "inventory", "POST /reserve", SpanKind.SERVER, "", mk, 0, 10),
                span("t1", "b", "a", "inventory", "POST", SpanKind.CLIENT, "api.stripe.com", mk, 1, 5));
        assertEquals(Outcome.FAIL, CheckResult.worst(MockedExitsCheck.check(real, SCOPE, List.of(stripe), Marker.DEFAULT)));
        List<Span> mocked = List.of(real.get(0), SafetyFixtures.with(real.get(1), MockedExitsCheck.MOCK_ATTRIBUTE, "true"));
        List<CheckResult> r = MockedExitsCheck.check(mocked, SCOPE, List.of(stripe), Marker.DEFAULT);
        assertEquals(Outcome.PASS, CheckResult.worst(r), r.toString());
        // unmarked traffic may call the real exit
        List<Span> unmarked = List.of(
                span("t2", "a", "", "inventory", "POST /reserve", SpanKind.SERVER, "", Map.of(), 0, 10),
                span("t2", "b", "a", "inventory", "POST", SpanKind.CLIENT, "api.stripe.com", Map.of(), 1, 5));
        assertEquals(Outcome.PASS, CheckResult.worst(MockedExitsCheck.check(unmarked, SCOPE, List.of(stripe), Marker.DEFAULT)));
    }
}
