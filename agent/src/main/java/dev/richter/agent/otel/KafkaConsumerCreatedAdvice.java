package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Inlined at the end of {@code KafkaConsumer(ConsumerConfig, Deserializer, Deserializer)} (every public constructor
 * calls it): remembers the consumer's configuration for its shadow ({@code ShadowConsumers.created}).
 */
@SuppressWarnings("unused")
public final class KafkaConsumerCreatedAdvice {
    private KafkaConsumerCreatedAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This KafkaConsumer<?, ?> consumer, @Advice.Argument(0) ConsumerConfig config,
                            @Advice.Argument(1) Deserializer<?> keys, @Advice.Argument(2) Deserializer<?> values) {
        ShadowConsumers.created(consumer, config, keys, values);
    }
}
