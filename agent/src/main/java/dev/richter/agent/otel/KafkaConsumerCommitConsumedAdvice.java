package dev.richter.agent.otel;

import dev.richter.agent.kafkaconsumer.ShadowConsumers;
import java.time.Duration;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;

/**
 * Inlined at the end of {@code KafkaConsumer.commitSync()}, {@code commitSync(Duration)}, {@code commitAsync()} and
 * {@code commitAsync(OffsetCommitCallback)}: the shadow consumer commits, on the shadow group, what it has handed the
 * service, the same way.
 */
@SuppressWarnings("unused")
public final class KafkaConsumerCommitConsumedAdvice {
    private KafkaConsumerCommitConsumedAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This Object consumer, @Advice.Origin("#m") String method,
                            @Advice.AllArguments Object[] arguments) {
        Object first = arguments.length > 0 ? arguments[0] : null;
        ShadowConsumers.commitConsumed(consumer, "commitSync".equals(method),
                first instanceof Duration ? (Duration) first : null,
                first instanceof OffsetCommitCallback ? (OffsetCommitCallback) first : null);
    }
}
