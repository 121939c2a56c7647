package dev.richter.agent.kafka;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The isolation at Kafka's producer ({@code KafkaProducer.send(record, callback)}, tested with kafka-clients 4.1.1):
 * a marked
 * record goes to the shadow of its topic ({@code decideTopic}, {@code kind: topic}) and carries the marker in its
 * headers ({@code baggage: richter-loadtest=1}, unless the agent's propagation already put it there), so its consumer
 * sees it marked; a record to a topic with no shadow is refused with Kafka's own {@link KafkaException}, unsent.
 * Unmarked records are not looked at. Injected by the agent as a helper next to kafka-clients; no lambdas.
 */
public final class KafkaExits {
    /** The marker as a baggage header value: Richter's default member. */
    static final String MARKER = "richter-loadtest=1";

    private KafkaExits() {}

    /**
     * @return {@code null}: send as it is; a {@code ProducerRecord}: send that instead (the shadow topic, the marker
     *     header; the partition dropped when the topic changed); a {@code KafkaException}: throw it, nothing is sent
     */
    public static Object beforeSend(ProducerRecord<?, ?> record) {
        IsolationGuard guard = IsolationBridge.guard();
        if (record == null || !guard.marked()) {
            return null;
        }
        ShadowDecision decision = guard.decideTopic(record.topic());
        guard.record(decision);
        if (decision.refused()) {
            return new KafkaException(decision.refusal());
        }
        boolean moved = decision.rewritten().isPresent();
        Header baggage = record.headers().lastHeader("baggage");
        boolean carriesMarker = baggage != null && baggage.value() != null
                && new String(baggage.value(), StandardCharsets.UTF_8).contains(MARKER);
        if (!moved && carriesMarker) {
            return null;
        }
        RecordHeaders headers = new RecordHeaders(record.headers().toArray());
        if (!carriesMarker) {
            headers.add("baggage", (baggage == null || baggage.value() == null ? MARKER
                    : new String(baggage.value(), StandardCharsets.UTF_8) + "," + MARKER).getBytes(StandardCharsets.UTF_8));
        }
        return new ProducerRecord<Object, Object>(decision.rewritten().orElse(record.topic()),
                moved ? null : record.partition(), record.timestamp(), record.key(), record.value(), headers);
    }
}
