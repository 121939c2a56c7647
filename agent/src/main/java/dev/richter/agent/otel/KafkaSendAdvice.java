package dev.richter.agent.otel;

import dev.richter.agent.kafka.KafkaExits;
import net.bytebuddy.asm.Advice;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Inlined into {@code KafkaProducer.send(ProducerRecord, Callback)} (the one-argument form calls it): replaces the
 * record with its shadow one, or skips the send and throws the refusal's {@code KafkaException}. Names only the helper
 * and kafka-clients types.
 */
@SuppressWarnings("unused")
public final class KafkaSendAdvice {
    private KafkaSendAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static Object enter(@Advice.Argument(value = 0, readOnly = false) ProducerRecord<?, ?> record) {
        Object decided = KafkaExits.beforeSend(record);
        if (decided instanceof ProducerRecord) {
            record = (ProducerRecord<?, ?>) decided;
            return null;
        }
        return decided;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Object refusal, @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (refusal instanceof Throwable) {
            thrown = (Throwable) refusal;
        }
    }
}
