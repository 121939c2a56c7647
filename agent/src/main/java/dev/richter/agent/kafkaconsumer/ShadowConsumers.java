package dev.richter.agent.kafkaconsumer;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The shadow consumers of a service's Kafka consumers (kafka-clients 3.9 and 4.x; tested with 3.9.1, Spring Boot
 * 3.5.7's, and 4.1.1): what the advices on {@code org.apache.kafka.clients.consumer.KafkaConsumer} call. Each
 * production consumer with a {@code group.id} that subscribes ({@code subscribe(Collection)}) to a topic the loaded
 * document maps ({@code kind: topic}) gets a {@link ShadowConsumer}: a second {@code KafkaConsumer} of the same
 * configuration in the group {@code <group.id>}{@value ShadowConsumer#GROUP_SUFFIX}, subscribed to the shadow topics,
 * which the production consumer's own methods drive (its {@code poll(Duration)} hands the service the shadow's records
 * in turn with its own; commits, seeks, positions, pauses, {@code assignment()}, {@code wakeup()} and {@code close()}
 * of a shadow topic's partitions go to the shadow). The consumers are held weakly by their production consumer.
 * Injected by the agent as a helper next to kafka-clients; no lambdas. Every method returns what the advice hands on
 * and never throws but where it says so.
 */
public final class ShadowConsumers {
    private static final Map<KafkaConsumer<?, ?>, ShadowConsumer> PAIRS =
            Collections.synchronizedMap(new WeakHashMap<KafkaConsumer<?, ?>, ShadowConsumer>());
    /** Set while this thread builds a shadow consumer, so that it gets no shadow of its own. */
    private static final ThreadLocal<Boolean> BUILDING = new ThreadLocal<Boolean>();

    private ShadowConsumers() {}

    /**
     * After {@code KafkaConsumer(ConsumerConfig, Deserializer, Deserializer)}, which every public constructor calls:
     * remembers the configuration and deserializers of a consumer with a group, to build its shadow from.
     */
    public static void created(KafkaConsumer<?, ?> consumer, ConsumerConfig config, Deserializer<?> keys,
            Deserializer<?> values) {
        if (BUILDING.get() != null || consumer == null || config == null) {
            return;
        }
        Object group = config.originals().get(ConsumerConfig.GROUP_ID_CONFIG);
        if (group == null || group.toString().isEmpty()) {
            return;
        }
        PAIRS.put(consumer, new ShadowConsumer(new HashMap<String, Object>(config.originals()), group.toString(),
                keys, values));
    }

    /** Builds a {@code KafkaConsumer} that gets no shadow of its own. */
    static KafkaConsumer<Object, Object> build(Map<String, Object> config, Deserializer<?> keys,
            Deserializer<?> values) {
        BUILDING.set(Boolean.TRUE);
        try {
            @SuppressWarnings("unchecked")
            KafkaConsumer<Object, Object> c = new KafkaConsumer<Object, Object>(config, (Deserializer<Object>) keys,
                    (Deserializer<Object>) values);
            return c;
        } finally {
            BUILDING.remove();
        }
    }

    private static ShadowConsumer of(Object consumer) {
        return consumer instanceof KafkaConsumer ? PAIRS.get(consumer) : null;
    }

    /**
     * After {@code subscribe(Collection)} or {@code subscribe(Collection, ConsumerRebalanceListener)}; {@code topics}
     * empty after {@code unsubscribe()} and {@code assign(Collection)}.
     */
    public static void subscribed(Object consumer, Collection<String> topics) {
        ShadowConsumer pair = of(consumer);
        if (pair != null) {
            pair.subscribed(topics == null ? Collections.<String>emptySet() : new HashSet<String>(topics));
        }
    }

    /**
     * Before {@code poll(Duration)}: the shadow's records when it is the shadow's turn and it has some (the production
     * poll is then skipped and these are its answer), else null.
     */
    public static ConsumerRecords<?, ?> beforePoll(Object consumer) {
        ShadowConsumer pair = of(consumer);
        return pair == null ? null : pair.beforePoll();
    }

    /** After the production {@code poll(Duration)} answered {@code records}: what the service gets instead. */
    public static ConsumerRecords<?, ?> afterPoll(Object consumer, ConsumerRecords<?, ?> records) {
        ShadowConsumer pair = of(consumer);
        return pair == null || records == null ? records : pair.afterPoll(records);
    }

    /**
     * Before {@code commitSync(Map[, Duration])} and {@code commitAsync(Map, OffsetCommitCallback)}: commits the
     * offsets of the shadow's partitions on the shadow (sync when {@code sync}, else async with {@code callback}).
     *
     * @return the offsets for the production consumer: {@code offsets} itself when it names no shadow partition
     */
    public static Map<TopicPartition, OffsetAndMetadata> commitOffsets(Object consumer,
            Map<TopicPartition, OffsetAndMetadata> offsets, boolean sync, Duration timeout,
            OffsetCommitCallback callback) {
        ShadowConsumer pair = of(consumer);
        return pair == null || offsets == null ? offsets : pair.commitOffsets(offsets, sync, timeout, callback);
    }

    /**
     * After {@code commitSync()}, {@code commitSync(Duration)}, {@code commitAsync()} and {@code
     * commitAsync(OffsetCommitCallback)}: the shadow commits what it has handed the service, the same way.
     */
    public static void commitConsumed(Object consumer, boolean sync, Duration timeout, OffsetCommitCallback callback) {
        ShadowConsumer pair = of(consumer);
        if (pair != null) {
            pair.commitConsumed(sync, timeout, callback);
        }
    }

    /**
     * Before {@code pause}, {@code resume}, {@code seekToBeginning} or {@code seekToEnd} ({@code operation}, the
     * method's name) of {@code partitions}: does it on the shadow for the shadow's partitions.
     *
     * @return the partitions for the production consumer: {@code partitions} itself when it names no shadow partition
     */
    public static Collection<TopicPartition> partitions(Object consumer, String operation,
            Collection<TopicPartition> partitions) {
        ShadowConsumer pair = of(consumer);
        return pair == null || partitions == null ? partitions : pair.partitions(operation, partitions);
    }

    /**
     * Before {@code seek(TopicPartition, long)} and {@code seek(TopicPartition, OffsetAndMetadata)}: seeks the shadow
     * when it owns {@code partition}.
     *
     * @return true when the shadow took it (the production call is skipped)
     */
    public static boolean seek(Object consumer, TopicPartition partition, Object offset) {
        ShadowConsumer pair = of(consumer);
        return pair != null && pair.seek(partition, offset);
    }

    /**
     * Before {@code position(TopicPartition[, Duration])}: the shadow's position when it owns {@code partition}.
     *
     * @return null when the production consumer answers
     */
    public static Long position(Object consumer, TopicPartition partition, Duration timeout) {
        ShadowConsumer pair = of(consumer);
        return pair == null ? null : pair.position(partition, timeout);
    }

    /**
     * Before {@code committed(Set[, Duration])}: the shadow's committed offsets of its partitions among {@code
     * partitions}, or null when there are none.
     */
    public static Map<TopicPartition, OffsetAndMetadata> shadowCommitted(Object consumer,
            Set<TopicPartition> partitions, Duration timeout) {
        ShadowConsumer pair = of(consumer);
        return pair == null || partitions == null ? null : pair.committed(partitions, timeout);
    }

    /** {@code partitions} without the shadow's: what the production consumer is asked. */
    public static Set<TopicPartition> productionPartitions(Object consumer, Set<TopicPartition> partitions) {
        ShadowConsumer pair = of(consumer);
        return pair == null || partitions == null ? partitions : pair.productionOnly(partitions);
    }

    /**
     * After {@code assignment()} ({@code paused} false) or {@code paused()} (true): the production answer with the
     * shadow's partitions added.
     */
    public static Set<TopicPartition> withShadow(Object consumer, Set<TopicPartition> production, boolean paused) {
        ShadowConsumer pair = of(consumer);
        return pair == null || production == null ? production : pair.withShadow(production, paused);
    }

    /** After {@code wakeup()}: wakes the shadow too. */
    public static void wakeup(Object consumer) {
        ShadowConsumer pair = of(consumer);
        if (pair != null) {
            pair.wakeup();
        }
    }

    /** After {@code close}: closes the shadow, which leaves its group, and forgets the pair. */
    public static void closed(Object consumer) {
        ShadowConsumer pair = consumer instanceof KafkaConsumer ? PAIRS.remove(consumer) : null;
        if (pair != null) {
            pair.close();
        }
    }
}
