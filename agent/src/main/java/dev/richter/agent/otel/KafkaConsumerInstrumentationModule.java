package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Kafka's consumer side (kafka-clients 3.9 and 4.x; tested with 3.9.1 and 4.1.1): a shadow consumer beside each
 * production {@code org.apache.kafka.clients.consumer.KafkaConsumer} that subscribes to a topic with a {@code kind:
 * topic} shadow, driven by the production consumer's own methods (the helper {@code
 * dev.richter.agent.kafkaconsumer.ShadowConsumers}, injected next to kafka-clients; the rules are its). Advices on
 * {@code KafkaConsumer}: its configuration constructor ({@link KafkaConsumerCreatedAdvice}); {@code subscribe},
 * {@code unsubscribe}, {@code assign}, {@code wakeup}, {@code close} ({@link KafkaConsumerLifecycleAdvice}); {@code
 * poll(Duration)} ({@link KafkaConsumerPollAdvice}); the commits ({@link KafkaConsumerCommitOffsetsAdvice}, {@link
 * KafkaConsumerCommitConsumedAdvice}); {@code pause}, {@code resume}, {@code seekToBeginning}, {@code seekToEnd}
 * ({@link KafkaConsumerPartitionsAdvice}); {@code seek} ({@link KafkaConsumerSeekAdvice}); {@code position} ({@link
 * KafkaConsumerPositionAdvice}); {@code committed} ({@link KafkaConsumerCommittedAdvice}); {@code assignment} and
 * {@code paused} ({@link KafkaConsumerAssignmentAdvice}). Instrumentation name {@code richter-kafka-consumer}.
 */
public final class KafkaConsumerInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.kafkaconsumer} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.kafkaconsumer.ShadowConsumer", "dev.richter.agent.kafkaconsumer.ShadowConsumers"));

    static final String CONSUMER = "org.apache.kafka.clients.consumer.KafkaConsumer";

    public KafkaConsumerInstrumentationModule() {
        super("richter-kafka-consumer");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.<TypeInstrumentation>singletonList(new ConsumerInstrumentation());
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    /** The advices on {@code KafkaConsumer}'s methods. */
    static final class ConsumerInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<ClassLoader> classLoaderOptimization() {
            return AgentElementMatchers.hasClassesNamed(CONSUMER);
        }

        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named(CONSUMER);
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isConstructor().and(takesArguments(3))
                    .and(takesArgument(0, named("org.apache.kafka.clients.consumer.ConsumerConfig"))),
                    KafkaConsumerCreatedAdvice.class.getName());
            transformer.applyAdviceToMethod(publicMethod("subscribe").and(takesArgument(0, named("java.util.Collection")))
                    .or(publicMethod("assign").and(takesArguments(1)))
                    .or(publicMethod("unsubscribe").and(takesArguments(0)))
                    .or(publicMethod("wakeup").and(takesArguments(0)))
                    .or(publicMethod("close")), KafkaConsumerLifecycleAdvice.class.getName());
            transformer.applyAdviceToMethod(publicMethod("poll").and(takesArguments(1))
                    .and(takesArgument(0, named("java.time.Duration"))), KafkaConsumerPollAdvice.class.getName());
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(namedOneOf("commitSync", "commitAsync"))
                    .and(takesArgument(0, named("java.util.Map"))), KafkaConsumerCommitOffsetsAdvice.class.getName());
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(namedOneOf("commitSync", "commitAsync"))
                    .and(takesArguments(0).or(takesArguments(1).and(takesArgument(0, named("java.time.Duration"))
                            .or(takesArgument(0, named("org.apache.kafka.clients.consumer.OffsetCommitCallback")))))),
                    KafkaConsumerCommitConsumedAdvice.class.getName());
            transformer.applyAdviceToMethod(isMethod().and(isPublic())
                    .and(namedOneOf("pause", "resume", "seekToBeginning", "seekToEnd")).and(takesArguments(1))
                    .and(takesArgument(0, named("java.util.Collection"))), KafkaConsumerPartitionsAdvice.class.getName());
            transformer.applyAdviceToMethod(publicMethod("seek").and(takesArguments(2))
                    .and(takesArgument(0, named("org.apache.kafka.common.TopicPartition"))),
                    KafkaConsumerSeekAdvice.class.getName());
            transformer.applyAdviceToMethod(publicMethod("position")
                    .and(takesArgument(0, named("org.apache.kafka.common.TopicPartition"))),
                    KafkaConsumerPositionAdvice.class.getName());
            transformer.applyAdviceToMethod(publicMethod("committed").and(takesArgument(0, named("java.util.Set"))),
                    KafkaConsumerCommittedAdvice.class.getName());
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(namedOneOf("assignment", "paused"))
                    .and(takesArguments(0)), KafkaConsumerAssignmentAdvice.class.getName());
        }

        private static ElementMatcher.Junction<MethodDescription> publicMethod(String name) {
            return isMethod().and(isPublic()).and(named(name));
        }
    }
}
