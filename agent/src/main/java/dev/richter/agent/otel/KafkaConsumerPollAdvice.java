package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * Inlined into {@code KafkaConsumer.poll(Duration)}: on the shadow's turn, the production poll is skipped and answers
 * the shadow consumer's records ({@code ShadowConsumers.beforePoll}); a production poll that answered none answers
 * the shadow's instead when it has some ({@code afterPoll}). An exception of the production poll is left as it is.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerPollAdvice {
    private KafkaConsumerPollAdvice() {}

    /** @return the shadow's records: skip the production poll and answer them; null: poll production */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static ConsumerRecords<?, ?> enter(@Advice.This Object consumer) {
        return ShadowConsumers.beforePoll(consumer);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.This Object consumer, @Advice.Enter ConsumerRecords<?, ?> shadow,
                            @Advice.Return(readOnly = false) ConsumerRecords<?, ?> records,
                            @Advice.Thrown Throwable thrown) {
        if (shadow != null) {
            records = shadow;
        } else if (thrown == null) {
            records = ShadowConsumers.afterPoll(consumer, records);
        }
    }
}
