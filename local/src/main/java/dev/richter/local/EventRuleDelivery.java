package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import software.amazon.event.ruler.Machine;

/**
 * The local EventBridge's rules with Lambda targets ({@link SamTemplate#eventRules()}): each event the bus receives is
 * matched against every rule of its bus with event-ruler (the matcher EventBridge's patterns follow), and every
 * matching rule's functions are invoked asynchronously with the event as delivered
 * ({@code {version, id, detail-type, source, account, time, region, resources, detail}}), as EventBridge invokes a
 * Lambda target ({@code InvocationType: Event}). One line per delivery goes to the log; a failed invocation is logged
 * (EventBridge would retry it for up to 24 h; locally the event is not retried).
 */
final class EventRuleDelivery implements Consumer<JsonNode>, AutoCloseable {
    private final List<SamTemplate.EventRule> rules;
    private final Machine machine = new Machine();
    private final LambdaHost lambdas;
    private final Consumer<String> log;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "eventbridge-delivery");
        t.setDaemon(true);
        return t;
    });

    /**
     * @throws IllegalArgumentException when a rule's pattern is not a valid event pattern
     */
    EventRuleDelivery(List<SamTemplate.EventRule> rules, LambdaHost lambdas, Consumer<String> log) {
        this.rules = List.copyOf(rules);
        this.lambdas = lambdas;
        this.log = log;
        for (SamTemplate.EventRule rule : rules) {
            try {
                machine.addRule(rule.logicalId(), rule.pattern());
            } catch (Exception e) {
                throw new IllegalArgumentException("template.yaml: " + rule.logicalId() + ".EventPattern: " + e.getMessage(), e);
            }
        }
    }

    /** Delivers one event (as the bus keeps it, with {@code event-bus-name}) to the functions of every matching rule. */
    @Override
    public void accept(JsonNode event) {
        String bus = event.path("event-bus-name").asText("default");
        ObjectNode delivered = event.deepCopy();
        delivered.remove("event-bus-name");
        String json = Json.write(delivered);
        List<String> matched;
        try {
            matched = machine.rulesForJSONEvent(json);
        } catch (Exception e) {
            log.accept("eventbridge: event not matched against rules: " + e.getMessage());
            return;
        }
        for (SamTemplate.EventRule rule : rules) {
            if (!matched.contains(rule.logicalId()) || !rule.eventBusName().equals(bus)) {
                continue;
            }
            for (String function : rule.functionTargets()) {
                executor.execute(() -> {
                    LambdaHost.Invocation inv = lambdas.invoke(function, json.getBytes(StandardCharsets.UTF_8));
                    log.accept("eventbridge: " + rule.logicalId() + " delivered " + event.path("detail-type").asText()
                            + " to " + function + (inv.functionError() == null && inv.status() == 200 ? ""
                            : " FAILED: " + new String(inv.payload(), StandardCharsets.UTF_8)));
                });
            }
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
