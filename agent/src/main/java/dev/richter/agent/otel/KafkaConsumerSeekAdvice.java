package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.common.TopicPartition;

/**
 * Inlined into {@code KafkaConsumer.seek(TopicPartition, long)} and {@code seek(TopicPartition, OffsetAndMetadata)}:
 * a shadow topic's partition is sought on the shadow consumer, and the production call skipped.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerSeekAdvice {
    private KafkaConsumerSeekAdvice() {}

    /** @return true: the shadow consumer took it, skip the production call */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static boolean enter(@Advice.This Object consumer, @Advice.AllArguments Object[] arguments) {
        return ShadowConsumers.seek(consumer, (TopicPartition) arguments[0], arguments[1]);
    }
}
