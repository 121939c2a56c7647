package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import java.time.Duration;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.common.TopicPartition;

/**
 * Inlined into {@code KafkaConsumer.position(TopicPartition[, Duration])}: a shadow topic's partition is answered by
 * the shadow consumer, and the production call skipped.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerPositionAdvice {
    private KafkaConsumerPositionAdvice() {}

    /** @return the shadow consumer's position: skip the production call and answer it; null: ask production */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static Long enter(@Advice.This Object consumer, @Advice.AllArguments Object[] arguments) {
        return ShadowConsumers.position(consumer, (TopicPartition) arguments[0],
                arguments.length > 1 ? (Duration) arguments[1] : null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Enter Long shadow, @Advice.Return(readOnly = false) long position) {
        if (shadow != null) {
            position = shadow.longValue();
        }
    }
}
