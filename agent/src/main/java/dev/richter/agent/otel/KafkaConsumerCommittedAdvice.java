package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Inlined into {@code KafkaConsumer.committed(Set[, Duration])}: the shadow topics' partitions are asked of the shadow
 * consumer (its group's offsets), the others of the production consumer, and the answers merged.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerCommittedAdvice {
    private KafkaConsumerCommittedAdvice() {}

    /** @return the shadow group's offsets of the shadow partitions asked for, or null */
    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static Map<TopicPartition, OffsetAndMetadata> enter(@Advice.This Object consumer,
            @Advice.AllArguments Object[] arguments,
            @Advice.Argument(value = 0, readOnly = false) Set<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> shadow = ShadowConsumers.shadowCommitted(consumer, partitions,
                arguments.length > 1 ? (Duration) arguments[1] : null);
        partitions = ShadowConsumers.productionPartitions(consumer, partitions);
        return shadow;
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Enter Map<TopicPartition, OffsetAndMetadata> shadow,
                            @Advice.Return(readOnly = false) Map<TopicPartition, OffsetAndMetadata> committed) {
        if (shadow != null && committed != null) {
            Map<TopicPartition, OffsetAndMetadata> all = new HashMap<TopicPartition, OffsetAndMetadata>(committed);
            all.putAll(shadow);
            committed = all;
        }
    }
}
