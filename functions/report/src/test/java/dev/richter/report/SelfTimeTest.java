package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.Marker;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.TraceDocuments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Self-time per service ({@link TraceEvidence#selfNanosByService}, {@link TraceEvidence.StepTraces#selfMsPerRequest})
 * on a real trace: one marked order through the demo shop, exported by the OpenTelemetry Java agent 2.22
 * (Spring Cloud Gateway → order → inventory with JDBC and Jedis spans), the links module's fixture.
 */
class SelfTimeTest {
    static final Path SHOP_ORDER = Path.of("../../libs/links/src/test/resources/trace/shop-spring-one-order.otlp.json");

    static List<Span> shopOrder() throws Exception {
        return TraceDocuments.parse("shop-spring-one-order.otlp.json", Files.readAllBytes(SHOP_ORDER)).spans();
    }

    @Test
    void eachServicesSpansLessTheTimeTheirChildrenCover() throws Exception {
        Map<String, Long> self = TraceEvidence.selfNanosByService(shopOrder());

        // gateway: SERVER 845.428430 ms; its CLIENT child ends 0.608 ms after it, so only 645.957452 ms is covered
        // (clipped): 199.470978; the CLIENT 646.565569 less order's SERVER 619.115772 inside it: 27.449797
        assertEquals(226.920775, self.get("gateway") / 1e6, 1e-6);
        // order: SERVER 619.115772 less its two sequential CLIENTs 511.263509 + 20.285792: 87.566471; the first CLIENT
        // less inventory's SERVER 451.357453: 59.906056; the second has no instrumented child: 20.285792
        assertEquals(167.758319, self.get("order") / 1e6, 1e-6);
        // inventory: SERVER 451.357453 less the union of its children: the Redis CLIENT 7.308887 covers the
        // 0.031868 and SETEX 0.042824 spans started inside it, so 3.25698 + 1.235264 + 0.386296 + 7.308887 =
        // 12.187427 → 439.170026; plus each child's own (all leaves): 12.262119
        assertEquals(451.432145, self.get("inventory") / 1e6, 1e-6);
    }

    @Test
    void aStepsSelfTimeIsPerMarkedRequest() throws Exception {
        List<Span> spans = shopOrder();
        long rootMs = spans.stream().filter(s -> !s.hasParent()).findFirst().orElseThrow().startEpochNanos() / 1_000_000;
        var window = new TraceEvidence.StepWindow("formal", 0, rootMs - 1000, rootMs + 1000);

        TraceEvidence ev = TraceEvidence.of("fixture", spans, List.of(window), Marker.DEFAULT);

        Map<String, Double> perRequest = ev.step("formal", 0).orElseThrow().selfMsPerRequest();
        assertEquals(List.of("gateway", "inventory", "order"), List.copyOf(perRequest.keySet()));
        assertEquals(451.432145, perRequest.get("inventory"), 1e-6, "one marked request");
    }
}
