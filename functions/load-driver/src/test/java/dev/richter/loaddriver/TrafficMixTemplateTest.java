package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Scenarios that draw from data sets and generators: parsed once, rendered per send, rows by mode. */
class TrafficMixTemplateTest {
    private static final class Recording implements HttpTransport {
        final List<OutboundRequest> prepared = new ArrayList<>();

        @Override
        public PreparedRequest prepare(OutboundRequest request) {
            prepared.add(request);
            return () -> CompletableFuture.completedFuture(ResponseHead.of(200));
        }

        @Override
        public void close() {}
    }

    private static Scenario.DataRows buyers(String mode, int n) {
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(List.of("b-" + i, "tok " + i, "a" + i + "@shadow.example"));
        }
        return new Scenario.DataRows("buyers", mode, List.of("buyerId", "token", "email"), rows);
    }

    private static ReplayRequest order() {
        String body = "{\"buyer\":\"{{data.buyers.buyerId}}\",\"orderRef\":\"{{gen.uuid}}\",\"seq\":{{gen.seq}}}";
        return new ReplayRequest("POST", "/orders?email={{data.buyers.email}}&t={{gen.timestampMs}}",
                Map.of("authorization", "Bearer {{data.buyers.token}}", "baggage", "tenant=t1"),
                Base64.getEncoder().encodeToString(body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void uniqueRowsGoOutOnceEachAcrossTheRequestThenStartOver() {
        Recording t = new Recording();
        TrafficMix mix = new TrafficMix(List.of(new Scenario("order", "shop", "http://shop:8080/", 1, List.of(order()),
                List.of(buyers("unique", 3)))), Marker.DEFAULT, 900, t);
        int prepared = t.prepared.size();
        long before = System.currentTimeMillis();
        List<OutboundRequest> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            mix.next();
            sent.add(t.prepared.get(prepared + i));
        }
        assertEquals(0, mix.rowsReused(), "three rows, three sends");
        mix.next();
        sent.add(t.prepared.get(prepared + 3));
        OutboundRequest first = sent.get(0);
        assertEquals("POST", first.method());
        assertTrue(first.uri().toString().startsWith("http://shop:8080/orders?email=a0%40shadow.example&t="), first.uri().toString());
        long ts = Long.parseLong(first.uri().toString().substring(first.uri().toString().indexOf("&t=") + 3));
        assertTrue(ts >= before && ts <= System.currentTimeMillis());
        assertEquals("Bearer tok 0", first.headers().get("authorization"));
        assertEquals("richter-loadtest=1,tenant=t1", first.headers().get("baggage"));
        String body = new String(first.body(), StandardCharsets.UTF_8);
        assertTrue(body.matches("\\{\"buyer\":\"b-0\",\"orderRef\":\"[0-9a-f-]{36}\",\"seq\":0}"), body);
        assertEquals("{\"buyer\":\"b-1\"", new String(sent.get(1).body(), StandardCharsets.UTF_8).substring(0, 14));
        assertTrue(new String(sent.get(2).body(), StandardCharsets.UTF_8).contains("\"seq\":2"));
        assertEquals("Bearer tok 0", sent.get(3).headers().get("authorization"), "the worker's rows ran out: starts over");
        assertEquals(1, mix.rowsReused());
        Set<String> uuids = new HashSet<>();
        sent.forEach(r -> uuids.add(new String(r.body(), StandardCharsets.UTF_8).replaceAll(".*orderRef\":\"([^\"]+)\".*", "$1")));
        assertEquals(4, uuids.size(), "a new UUID per send");
    }

    @Test
    void randomDrawsFromAllRowsAndPlainScenariosStayPreparedOnce() {
        Recording t = new Recording();
        TrafficMix mix = new TrafficMix(List.of(
                new Scenario("order", "shop", "http://shop", 1, List.of(order()), List.of(buyers("random", 5))),
                new Scenario("home", "shop", "http://shop", 1, List.of(new ReplayRequest("GET", "/", Map.of(), null)))),
                Marker.DEFAULT, 900, t);
        int prepared = t.prepared.size();
        assertEquals(2, prepared, "one sample for the templated request, one prepared request for the plain one");
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < 400; i++) {
            if (mix.next().scenario().equals("order")) {
                tokens.add(t.prepared.get(t.prepared.size() - 1).headers().get("authorization"));
            }
        }
        assertEquals(prepared + 200, t.prepared.size(), "only the templated scenario's sends are prepared per send");
        assertEquals(Set.of("Bearer tok 0", "Bearer tok 1", "Bearer tok 2", "Bearer tok 3", "Bearer tok 4"), tokens);
        assertEquals(0, mix.rowsReused());
    }

    @Test
    void placeholdersMustNameABoundSetAndColumn() {
        var e = assertThrows(IllegalArgumentException.class, () -> new TrafficMix(List.of(new Scenario("o", "s", "http://h", 1,
                List.of(new ReplayRequest("GET", "/x/{{data.buyers.phone}}", Map.of(), null)), List.of(buyers("unique", 1)))),
                Marker.DEFAULT, 900, new Recording()));
        assertEquals("scenario 'o': {{data.buyers.phone}} names no column of data set 'buyers' (columns: buyerId, token, email)", e.getMessage());
        var e2 = assertThrows(IllegalArgumentException.class, () -> new TrafficMix(List.of(new Scenario("o", "s", "http://h", 1,
                List.of(new ReplayRequest("GET", "/x/{{data.carts.id}}", Map.of(), null)), List.of())), Marker.DEFAULT, 900, new Recording()));
        assertEquals("scenario 'o': {{data.carts.id}} names data set 'carts', which the scenario does not bind", e2.getMessage());
    }

    @Test
    void percentEncodingKeepsUnreservedAndEncodesUtf8() {
        assertEquals("a.b_c-d~e", RequestTemplate.percentEncode("a.b_c-d~e"));
        assertEquals("a%40b%20c%2F%C3%A9", RequestTemplate.percentEncode("a@b c/é"));
    }
}
