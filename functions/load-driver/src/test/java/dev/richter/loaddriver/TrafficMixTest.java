package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class TrafficMixTest {
    /** Records prepared requests; "sending" returns the request's path. */
    private static final class Recording implements HttpTransport {
        final List<OutboundRequest> prepared = new ArrayList<>();

        @Override
        public PreparedRequest prepare(OutboundRequest request) {
            prepared.add(request);
            return () -> CompletableFuture.completedFuture(ResponseHead.of(prepared.indexOf(request)));
        }

        @Override
        public void close() {}
    }

    private static ReplayRequest get(String path) {
        return new ReplayRequest("GET", path, Map.of(), null);
    }

    @Test
    void weightedMixIsExactAndRequestsRoundRobin() {
        Recording transport = new Recording();
        TrafficMix mix = new TrafficMix(List.of(
                new Scenario("a", "s", "http://h", 3, List.of(get("/a1"), get("/a2"))),
                new Scenario("b", "s", "http://h", 1, List.of(get("/b1"))),
                new Scenario("zero", "s", "http://h", 0, List.of(get("/z"))),
                new Scenario("empty", "s", "http://h", 5, List.of())), Marker.DEFAULT, 1000, transport);
        Map<String, Integer> byScenario = new HashMap<>();
        Map<Integer, Integer> byRequest = new HashMap<>();
        for (int i = 0; i < 400; i++) {
            TrafficMix.Entry e = mix.next();
            byScenario.merge(e.scenario(), 1, Integer::sum);
            byRequest.merge(e.request().send().join().status(), 1, Integer::sum);
            if (i == 3) {
                assertEquals(Map.of("a", 3, "b", 1), byScenario, "exact within the first cycle");
            }
        }
        assertEquals(Map.of("a", 300, "b", 100), byScenario);
        assertEquals(Map.of(0, 150, 1, 150, 2, 100), byRequest);
    }

    @Test
    void outboundJoinsUrlsDecodesBodyAndSetsDeadline() {
        OutboundRequest r = TrafficMix.toOutbound("http://h:8080/", new ReplayRequest("PUT", "/x?q=a%20b",
                Map.of(), "AAH/"), Marker.DEFAULT, 750);
        assertEquals("http://h:8080/x?q=a%20b", r.uri().toString());
        assertEquals(List.of((byte) 0, (byte) 1, (byte) 0xff), List.of(r.body()[0], r.body()[1], r.body()[2]));
        assertEquals(750, r.timeoutMs());
        assertEquals("richter-loadtest=1", r.headers().get("baggage"));
        assertEquals("http://h/y", TrafficMix.toOutbound("http://h", get("y"), Marker.DEFAULT, 1).uri().toString());
    }

    @Test
    void noUsableScenarioIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new TrafficMix(List.of(
                new Scenario("zero", "s", "http://h", 0, List.of(get("/z")))), Marker.DEFAULT, 1000, new Recording()));
    }

    /** Targets on one Netty event loop share its send loop (http and https alike); the JDK client has none. */
    @Test
    void theMixHasASendLoopOnlyWhenEveryRequestSharesOne() {
        List<Scenario> twoTargets = List.of(new Scenario("a", "s", "http://127.0.0.1:1", 1, List.of(get("/a"))),
                new Scenario("b", "s", "https://127.0.0.1:2", 1, List.of(get("/b"))));
        try (NettyHttpTransport netty = new NettyHttpTransport(1, NettyHttpTransport.Options.DEFAULT
                .withTls(NettyHttpTransport.Protocol.HTTP_2));
             JdkHttpTransport jdk = new JdkHttpTransport()) {
            assertEquals(netty.nativeTransport(), new TrafficMix(twoTargets, Marker.DEFAULT, 1000, netty).sendLoop().isPresent());
            assertEquals(false, new TrafficMix(twoTargets, Marker.DEFAULT, 1000, jdk).sendLoop().isPresent());
            assertEquals(false, new TrafficMix(twoTargets, Marker.DEFAULT, 1000,
                    new SchemeRoutingTransport(netty, jdk)).sendLoop().isPresent(), "https through the JDK client");
        }
    }
}
