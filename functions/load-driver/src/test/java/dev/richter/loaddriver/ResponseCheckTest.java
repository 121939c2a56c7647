package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.Expectation;
import dev.richter.common.model.Expectation.CheckKind;
import dev.richter.common.model.Expectation.JsonCheck;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ResponseCheck} on the answers the demo shop's order service gives (examples/shop/order): a placed order
 * ({@code 201}) and the Resilience4j fallback's degraded {@code 200} when inventory fails.
 */
class ResponseCheckTest {
    static final String PLACED = "{\"orderId\":\"o-2\",\"reservationId\":\"r-2\",\"chargeId\":\"mock\",\"status\":\"PLACED\"}";
    static final String DEGRADED = "{\"orderId\":\"o-1\",\"status\":\"ACCEPTED\",\"degraded\":true,"
            + "\"reason\":\"inventory circuit breaker open\"}";

    private static JsonCheck check(String path, CheckKind kind, String valueJson) {
        return new JsonCheck(path, kind, valueJson == null ? null : Json.read(valueJson, JsonNode.class));
    }

    private static Expectation json(JsonCheck... checks) {
        return new Expectation(List.of(), List.of(checks), Map.of(), 0);
    }

    private static HttpTransport.ResponseHead answer(int status, String body, Map<String, String> headers) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return HttpTransport.ResponseHead.of(status).with(new HttpTransport.Kept(headers, bytes, bytes.length));
    }

    private static String judged(Expectation e, HttpTransport.ResponseHead answer) {
        ResponseCheck.Judgement j = ResponseCheck.of(e).judge(answer);
        return j.kind() + (j.reason().isEmpty() ? "" : ": " + j.reason());
    }

    @Test
    void theShopsPlanTellsAPlacedOrderFromADegradedOne() {
        Expectation shop = new Expectation(List.of(201), List.of(check("$.status", CheckKind.EQUALS, "\"PLACED\"")), Map.of(), 0);
        assertEquals("OK", judged(shop, answer(201, PLACED, Map.of())));
        assertEquals("CHECK_FAILED: status 200, expected 201", judged(shop, answer(200, DEGRADED, Map.of())));
        assertEquals("CHECK_FAILED: $.status is \"ACCEPTED\", expected \"PLACED\"", judged(shop, answer(201, DEGRADED, Map.of())));
        // a status outside 2xx/304 the expectation does not list stays an HTTP error (shedding evidence for a 429)
        assertEquals("HTTP_ERROR", judged(shop, answer(429, "", Map.of())));
        assertEquals("HTTP_ERROR", judged(shop, answer(503, DEGRADED, Map.of())));
    }

    @Test
    void eachKindOfJsonCheckOnBothAnswers() {
        assertEquals("CHECK_FAILED: $.degraded is present (true), expected absent",
                judged(json(check("$.degraded", CheckKind.ABSENT, null)), answer(200, DEGRADED, Map.of())));
        assertEquals("OK", judged(json(check("$.degraded", CheckKind.ABSENT, null)), answer(201, PLACED, Map.of())));
        assertEquals("OK", judged(json(check("$.reservationId", CheckKind.PRESENT, null)), answer(201, PLACED, Map.of())));
        assertEquals("CHECK_FAILED: $.reservationId is absent",
                judged(json(check("$.reservationId", CheckKind.PRESENT, null)), answer(200, DEGRADED, Map.of())));
        assertEquals("OK", judged(json(check("$.orderId", CheckKind.MATCHES, "\"o-[0-9]+\"")), answer(201, PLACED, Map.of())));
        assertEquals("CHECK_FAILED: $.chargeId \"mock\" does not match ch-[0-9a-f]+",
                judged(json(check("$.chargeId", CheckKind.MATCHES, "\"ch-[0-9a-f]+\"")), answer(201, PLACED, Map.of())));
        assertEquals("CHECK_FAILED: $.chargeId is absent, expected a match of ch-.*",
                judged(json(check("$.chargeId", CheckKind.MATCHES, "\"ch-.*\"")), answer(200, DEGRADED, Map.of())));
        assertEquals("OK", judged(json(check("$.reason", CheckKind.NON_EMPTY, null)), answer(200, DEGRADED, Map.of())));
        assertEquals("CHECK_FAILED: $.reason is absent",
                judged(json(check("$.reason", CheckKind.NON_EMPTY, null)), answer(201, PLACED, Map.of())));
        assertEquals("CHECK_FAILED: $.items is empty ([])",
                judged(json(check("$.items", CheckKind.NON_EMPTY, null)), answer(200, "{\"items\":[]}", Map.of())));
        // every check must hold: the first that fails is the reason
        assertEquals("CHECK_FAILED: $.status is \"ACCEPTED\", expected \"PLACED\"", judged(json(
                check("$.orderId", CheckKind.NON_EMPTY, null), check("$.status", CheckKind.EQUALS, "\"PLACED\""),
                check("$.degraded", CheckKind.ABSENT, null)), answer(200, DEGRADED, Map.of())));
    }

    @Test
    void numbersCompareByValueAndAPathSelectingSeveralValuesIsCheckedOnEach() {
        String cart = "{\"total\":12.50,\"items\":[{\"sku\":\"a\",\"qty\":1},{\"sku\":\"b\",\"qty\":0}]}";
        assertEquals("OK", judged(json(check("$.total", CheckKind.EQUALS, "12.5")), answer(200, cart, Map.of())));
        assertEquals("OK", judged(json(check("$.items[0].qty", CheckKind.EQUALS, "1.0")), answer(200, cart, Map.of())));
        assertEquals("CHECK_FAILED: $.items[*].qty is 0, expected 1",
                judged(json(check("$.items[*].qty", CheckKind.EQUALS, "1")), answer(200, cart, Map.of())));
        assertEquals("OK", judged(json(check("$.items[*].sku", CheckKind.MATCHES, "\"[a-z]\"")), answer(200, cart, Map.of())));
        assertEquals("OK", judged(json(check("$.items[?(@.qty == 5)]", CheckKind.ABSENT, null)), answer(200, cart, Map.of())));
        // a member whose value is null is present, and null is empty
        assertEquals("CHECK_FAILED: $.coupon is present (null), expected absent",
                judged(json(check("$.coupon", CheckKind.ABSENT, null)), answer(200, "{\"coupon\":null}", Map.of())));
        assertEquals("OK", judged(json(check("$.coupon", CheckKind.EQUALS, "null")), answer(200, "{\"coupon\":null}", Map.of())));
    }

    @Test
    void bodiesThatAreNotJsonFailTheJsonChecksAndOnesOverRichtersLimitAreUnchecked() {
        Expectation e = json(check("$.status", CheckKind.EQUALS, "\"PLACED\""));
        assertEquals("CHECK_FAILED: body is not JSON", judged(e, answer(200, "<html>busy</html>", Map.of())));
        assertEquals("CHECK_FAILED: body is empty, not JSON", judged(e, answer(200, "", Map.of())));
        byte[] kept = new byte[HttpTransport.MAX_KEPT_BODY_BYTES];
        HttpTransport.ResponseHead big = HttpTransport.ResponseHead.of(200).with(new HttpTransport.Kept(Map.of(), kept, 70_000));
        assertEquals("UNCHECKED: body over 65536 bytes, Richter's kept-body limit", judged(e, big),
                "the limit is Richter's: no failure of the target");
        Expectation small = new Expectation(List.of(), List.of(), Map.of(), 64);
        assertEquals("CHECK_FAILED: body of 70000 bytes, over maxBytes 64", judged(small, big));
        assertEquals("OK", judged(small, answer(201, "{\"status\":\"PLACED\"}", Map.of())));
    }

    @Test
    void headersMatchTheirPatternAsAWhole() {
        Expectation e = new Expectation(List.of(), List.of(), Map.of("Content-Type", "application/json(;.*)?"), 0);
        assertEquals("OK", judged(e, answer(201, PLACED, Map.of("content-type", "application/json;charset=UTF-8"))));
        assertEquals("CHECK_FAILED: header Content-Type \"text/html\" does not match application/json(;.*)?",
                judged(e, answer(200, "", Map.of("content-type", "text/html"))));
        assertEquals("CHECK_FAILED: header Content-Type is absent", judged(e, answer(200, "", Map.of())));
        assertEquals(new HttpTransport.Capture(List.of("content-type"), false), ResponseCheck.of(e).capture());
    }

    @Test
    void noExpectationIsTheSharedNoneThatKeepsNothing() {
        assertSame(ResponseCheck.NONE, ResponseCheck.of(Expectation.NONE));
        assertSame(HttpTransport.Capture.NONE, ResponseCheck.NONE.capture());
        assertEquals(new HttpTransport.Capture(List.of(), true),
                ResponseCheck.of(json(check("$.a", CheckKind.ABSENT, null))).capture());
        assertThrows(IllegalArgumentException.class, () -> ResponseCheck.of(json(check("$.a", CheckKind.MATCHES, "\"(\""))));
    }
}
