package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ServerOperation}: gateway server spans named by route id read as the path an entry names. */
class ServerOperationTest {

    @Test
    void theSpringCloudGatewaysRouteNamedSpanIsTheEntryOfThePathItServed() throws IOException {
        // one marked order through the demo shop: Spring Cloud Gateway 4.3 on agent 2.22 names its SERVER span
        // 'POST orders' (http.route = the route id 'orders', url.path '/orders'); order's Tomcat span is 'POST /orders'
        byte[] doc;
        try (InputStream in = getClass().getResourceAsStream("/trace/shop-spring-one-order.otlp.json")) {
            doc = in.readAllBytes();
        }
        for (boolean streamed : List.of(true, false)) {
            List<Span> servers = TraceDocuments.parse("shop", doc, streamed).spans().stream()
                    .filter(s -> s.kind() == SpanKind.SERVER).toList();
            assertEquals(List.of("gateway POST /orders", "inventory POST /reserve", "order POST /orders"),
                    servers.stream().map(s -> s.service() + " " + s.operation()).sorted().toList(),
                    streamed ? "streamed" : "tree");
        }
    }

    @Test
    void aNameThatIsAlreadyAPathOrNotHttpIsKept() {
        assertEquals("GET /orders/{id}", ServerOperation.of(SpanKind.SERVER, "GET /orders/{id}",
                Map.of("http.route", "/orders/{id}", "url.path", "/orders/7")));
        assertEquals("POST /orders", ServerOperation.of(SpanKind.SERVER, "POST orders",
                Map.of("http.route", "orders", "url.path", "/orders")));
        assertEquals("POST /orders", ServerOperation.of(SpanKind.SERVER, "POST orders",
                Map.of("http.target", "/orders?src=x")), "old semconv: the target without its query");
        assertEquals("GET /orders/{id}", ServerOperation.of(SpanKind.SERVER, "GET orders",
                Map.of("http.route", "/orders/{id}", "url.path", "/orders/7")), "a route that is a path wins");
        assertEquals("shop.Order/Place", ServerOperation.of(SpanKind.SERVER, "shop.Order/Place", Map.of("rpc.system", "grpc")));
        assertEquals("POST", ServerOperation.of(SpanKind.CLIENT, "POST", Map.of("url.path", "/orders")));
        assertEquals("POST orders", ServerOperation.of(SpanKind.SERVER, "POST orders", Map.of()), "no path known");
        assertEquals("process order", ServerOperation.of(SpanKind.SERVER, "process order", Map.of("url.path", "/x")),
                "not a method");
    }
}
