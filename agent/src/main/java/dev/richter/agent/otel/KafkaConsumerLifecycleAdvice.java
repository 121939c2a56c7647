package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/**
 * Inlined at the end of {@code KafkaConsumer.subscribe(Collection[, ConsumerRebalanceListener])}, {@code
 * unsubscribe()}, {@code assign(Collection)}, {@code wakeup()} and every {@code close}: tells the consumer's shadow
 * ({@code ShadowConsumers}) the new subscription (none after {@code unsubscribe} and {@code assign}), wakes it, or
 * closes it. A method that threw changes nothing, but {@code close}, whose shadow closes all the same.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerLifecycleAdvice {
    private KafkaConsumerLifecycleAdvice() {}

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.This Object consumer, @Advice.Origin("#m") String method,
                            @Advice.AllArguments Object[] arguments, @Advice.Thrown Throwable thrown) {
        if ("close".equals(method)) {
            ShadowConsumers.closed(consumer);
        } else if (thrown != null) {
            return;
        } else if ("wakeup".equals(method)) {
            ShadowConsumers.wakeup(consumer);
        } else if ("subscribe".equals(method)) {
            @SuppressWarnings("unchecked")
            Collection<String> topics = (Collection<String>) arguments[0];
            ShadowConsumers.subscribed(consumer, topics);
        } else {
            ShadowConsumers.subscribed(consumer, null);
        }
    }
}
