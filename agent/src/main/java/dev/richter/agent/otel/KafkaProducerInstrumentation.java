package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.kafka.KafkaExits;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * {@code org.apache.kafka.clients.producer.KafkaProducer.send(ProducerRecord, Callback)} (the one-argument form calls
 * it): the advice replaces the record with its shadow one, or skips the send and throws the refusal's {@code
 * KafkaException}.
 */
final class KafkaProducerInstrumentation implements TypeInstrumentation {

    @Override
    public ElementMatcher<ClassLoader> classLoaderOptimization() {
        return AgentElementMatchers.hasClassesNamed("org.apache.kafka.clients.producer.KafkaProducer");
    }

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return named("org.apache.kafka.clients.producer.KafkaProducer");
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("send")).and(takesArguments(2))
                        .and(takesArgument(0, named("org.apache.kafka.clients.producer.ProducerRecord"))),
                KafkaProducerInstrumentation.class.getName() + "$SendAdvice");
    }

    /** Inlined into the producer: names only the helper and kafka-clients types. */
    @SuppressWarnings("unused")
    public static final class SendAdvice {
        private SendAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(value = 0, readOnly = false) ProducerRecord<?, ?> record) {
            Object decided = KafkaExits.beforeSend(record);
            if (decided instanceof ProducerRecord<?, ?> shadow) {
                record = shadow;
                return null;
            }
            return decided;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object refusal, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (refusal instanceof Throwable t) {
                thrown = t;
            }
        }
    }
}
