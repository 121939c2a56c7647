package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import java.util.Collection;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.common.TopicPartition;

/**
 * Inlined at the start of {@code KafkaConsumer.pause}, {@code resume}, {@code seekToBeginning} and {@code seekToEnd}
 * (each of a {@code Collection<TopicPartition>}): the shadow topics' partitions go to the shadow consumer, the others
 * to the production consumer.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerPartitionsAdvice {
    private KafkaConsumerPartitionsAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.This Object consumer, @Advice.Origin("#m") String method,
                             @Advice.Argument(value = 0, readOnly = false) Collection<TopicPartition> partitions) {
        partitions = ShadowConsumers.partitions(consumer, method, partitions);
    }
}
