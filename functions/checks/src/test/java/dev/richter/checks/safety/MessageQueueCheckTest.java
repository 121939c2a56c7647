package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.trace.ParsedTraces;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MessageQueueCheckTest {
    @Test
    void usagesFromTracesAndRegistryAreCheckedAgainstTheSwitches() {
        ParsedTraces t = SafetyFixtures.corpus("bugs/03-kafka-link-not-parent.otlp.json");
        List<QueueUsage> usages = new ArrayList<>(QueueUsage.fromSpans(t.spans(), Set.of("order-svc", "billing-svc")));
        assertEquals(List.of(new QueueUsage("order-svc", "orders", QueueUsage.Direction.PRODUCE),
                new QueueUsage("billing-svc", "orders", QueueUsage.Direction.CONSUME)), usages);
        usages.addAll(QueueUsage.fromRegistry(List.of(new RegisteredService("t", "order-svc", "http://x", "/h", null,
                List.of(new RegisteredService.Datastore("topic", "orders", "orders-shadow"),
                        new RegisteredService.Datastore("topic", "audit", "audit-shadow"))))));

        List<CheckResult> r = SafetyChecks.messageQueues(usages, List.of(
                new QueueShadowConfig("order-svc", "orders", true, "orders-shadow"),
                new QueueShadowConfig("billing-svc", "orders", false, "orders-shadow")));
        // order-svc produce orders: PASS; billing-svc consume orders: switch off; order-svc produce audit: no config
        assertEquals(List.of(Outcome.PASS, Outcome.FAIL, Outcome.FAIL), r.stream().map(CheckResult::outcome).toList(),
                r.toString());
        assertEquals("billing-svc consume orders", r.get(1).subject());
        assertEquals("shadow switch is off for topic 'orders' (mapped to 'orders-shadow')", r.get(1).evidence());
    }

    @Test
    void unmappedOrSelfMappedShadowTopicFails() {
        List<QueueUsage> u = List.of(new QueueUsage("a", "t1", QueueUsage.Direction.PRODUCE),
                new QueueUsage("a", "t2", QueueUsage.Direction.PRODUCE));
        List<CheckResult> r = SafetyChecks.messageQueues(u, List.of(new QueueShadowConfig("a", "t1", true, ""),
                new QueueShadowConfig("a", "t2", true, "t2")));
        assertEquals(List.of(Outcome.FAIL, Outcome.FAIL), r.stream().map(CheckResult::outcome).toList());
        assertEquals(Outcome.PASS, CheckResult.worst(SafetyChecks.messageQueues(List.of(), List.of())));
    }
}
