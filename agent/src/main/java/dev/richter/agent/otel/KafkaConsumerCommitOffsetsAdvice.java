package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import java.time.Duration;
import java.util.Map;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;

/**
 * Inlined at the start of {@code KafkaConsumer.commitSync(Map[, Duration])} and {@code commitAsync(Map,
 * OffsetCommitCallback)}: the offsets of the shadow topics' partitions are committed by the shadow consumer on the
 * shadow group, the same way, and taken out of what the production consumer commits, so the production group never
 * holds an offset of a shadow topic.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerCommitOffsetsAdvice {
    private KafkaConsumerCommitOffsetsAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.This Object consumer, @Advice.Origin("#m") String method,
                             @Advice.AllArguments Object[] arguments,
                             @Advice.Argument(value = 0, readOnly = false) Map<TopicPartition, OffsetAndMetadata> offsets) {
        Object second = arguments.length > 1 ? arguments[1] : null;
        offsets = ShadowConsumers.commitOffsets(consumer, offsets, "commitSync".equals(method),
                second instanceof Duration ? (Duration) second : null,
                second instanceof OffsetCommitCallback ? (OffsetCommitCallback) second : null);
    }
}
