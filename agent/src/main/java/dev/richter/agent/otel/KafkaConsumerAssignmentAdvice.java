package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import java.util.Set;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.common.TopicPartition;

/**
 * Inlined at the end of {@code KafkaConsumer.assignment()} and {@code paused()}: the shadow consumer's partitions are
 * added to the answer, so a service (spring-kafka's container) that pauses its whole assignment pauses the shadow's
 * too.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerAssignmentAdvice {
    private KafkaConsumerAssignmentAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This Object consumer, @Advice.Origin("#m") String method,
                            @Advice.Return(readOnly = false) Set<TopicPartition> partitions) {
        partitions = ShadowConsumers.withShadow(consumer, partitions, "paused".equals(method));
    }
}
