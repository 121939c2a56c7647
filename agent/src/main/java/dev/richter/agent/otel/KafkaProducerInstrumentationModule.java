package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Collections;
import java.util.List;

/**
 * The isolation at Kafka's producer ({@link KafkaSendAdvice} on {@code KafkaProducer.send(ProducerRecord, Callback)}),
 * shadow topics; its helper {@code
 * dev.richter.agent.kafka.KafkaExits} is injected next to kafka-clients. Instrumentation name {@code
 * richter-kafka-producer}.
 */
public final class KafkaProducerInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.kafka} (held so by a test). */
    static final List<String> HELPERS = Collections.singletonList("dev.richter.agent.kafka.KafkaExits");

    public KafkaProducerInstrumentationModule() {
        super("richter-kafka-producer");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.singletonList(new OneMethodInstrumentation(
                "org.apache.kafka.clients.producer.KafkaProducer", "send", 2,
                "org.apache.kafka.clients.producer.ProducerRecord", KafkaSendAdvice.class.getName()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
