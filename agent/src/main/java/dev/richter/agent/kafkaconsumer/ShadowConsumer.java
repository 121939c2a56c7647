package dev.richter.agent.kafkaconsumer;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * One production {@code KafkaConsumer}'s shadow: a {@code KafkaConsumer} built from the production consumer's own
 * configuration and deserializers, with {@code group.id} (and {@code client.id}, {@code group.instance.id} when set)
 * suffixed {@value #GROUP_SUFFIX} and {@code auto.offset.reset=earliest} (a shadow group's first consumer reads the
 * shadow topic from its start: records sent there before it joined are marked work still to do), subscribed to the
 * shadow topics of the production subscription's mapped topics
 * ({@link IsolationGuard#topicShadows()}, re-read at each poll, so a document that loads or changes later takes
 * effect at the next poll). It is built at the first poll that finds a mapped topic, driven only from the production
 * consumer's methods on the production consumer's thread ({@code wakeup} excepted, which Kafka allows from any), and
 * closed with it.
 *
 * <p>Turns: a production poll that answered records gives the next poll to the shadow first, which polls with a zero
 * timeout and, when it has records, answers them instead of the production poll; a production poll that answered none
 * is answered the shadow's records, polled then, if it has any. A poll answers records of one consumer only, so a
 * service's batch never mixes production and shadow records, and neither consumer waits longer than one production
 * poll's timeout between two of its polls.
 *
 * <p>A shadow record is handed to the service only when it carries a marker this service accepts ({@link
 * IsolationGuard#acceptsMarker}: the marker, with a proof the document's keys verify), and the poll that answers
 * shadow records makes the marker current until the next poll ({@link #handOver}), so that they run as marked work;
 * inside it the agent makes each record's own propagated context current where it instruments the processing (a
 * record iterated from {@code ConsumerRecords}, a spring-kafka record listener). A record of a shadow
 * topic without one would run as production, and is skipped (logged), its offset committed on the shadow group by
 * the service's next commit of its partition: {@code commitSync()}/{@code commitAsync()} of the consumed positions,
 * or the offset of a later record of that partition.
 */
final class ShadowConsumer {
    /** Appended to the production consumer's {@code group.id}, {@code client.id} and {@code group.instance.id}. */
    static final String GROUP_SUFFIX = "-richter-shadow";

    private static final Logger LOG = Logger.getLogger(ShadowConsumer.class.getName());

    private final Map<String, Object> config;
    private final String group;
    private final Deserializer<?> keys;
    private final Deserializer<?> values;
    /** The production consumer's subscription, as {@code subscribe(Collection)} named it. */
    private Set<String> subscription = new HashSet<String>();
    /** The topics the shadow is subscribed to (empty: none). */
    private volatile Set<String> shadowTopics = new HashSet<String>();
    private volatile KafkaConsumer<Object, Object> shadow;
    /** The marker made current by the last poll that answered shadow records, and the thread it is current on. */
    private MarkerScope marked;
    private Thread markedOn;
    /** Whether the next poll is the shadow's to answer first. */
    private boolean shadowNext;
    private long skipped;

    ShadowConsumer(Map<String, Object> config, String group, Deserializer<?> keys, Deserializer<?> values) {
        this.config = config;
        this.group = group;
        this.keys = keys;
        this.values = values;
    }

    void subscribed(Set<String> topics) {
        subscription = topics;
        refresh();
    }

    /** Subscribes the shadow (built when first needed) to the shadow topics the production subscription asks for. */
    private void refresh() {
        Map<String, String> shadows = IsolationBridge.guard().topicShadows();
        Set<String> wanted = new TreeSet<String>();
        for (String topic : subscription) {
            String s = shadows.get(topic);
            if (s != null && !subscription.contains(s)) {
                wanted.add(s);
            }
        }
        if (wanted.equals(shadowTopics)) {
            return;
        }
        KafkaConsumer<Object, Object> c = shadow;
        if (wanted.isEmpty()) {
            if (c != null) {
                c.unsubscribe();
            }
        } else {
            if (c == null) {
                Map<String, Object> copy = new HashMap<String, Object>(config);
                copy.put(ConsumerConfig.GROUP_ID_CONFIG, group + GROUP_SUFFIX);
                copy.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                suffix(copy, ConsumerConfig.CLIENT_ID_CONFIG);
                suffix(copy, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
                c = ShadowConsumers.build(copy, keys, values);
                shadow = c;
            }
            c.subscribe(wanted);
            LOG.info("Richter isolation: the Kafka consumer of group " + group + " reads shadow topics " + wanted
                    + " in group " + group + GROUP_SUFFIX);
        }
        shadowTopics = wanted;
    }

    private static void suffix(Map<String, Object> config, String key) {
        Object v = config.get(key);
        if (v != null && !v.toString().isEmpty()) {
            config.put(key, v + GROUP_SUFFIX);
        }
    }

    ConsumerRecords<?, ?> beforePoll() {
        endMarked();
        refresh();
        if (!shadowNext || shadow == null) {
            return null;
        }
        shadowNext = false;
        ConsumerRecords<?, ?> r = pollShadow();
        return r == null || r.isEmpty() ? null : handOver(r);
    }

    ConsumerRecords<?, ?> afterPoll(ConsumerRecords<?, ?> production) {
        if (!production.isEmpty()) {
            shadowNext = shadow != null;
            return production;
        }
        ConsumerRecords<?, ?> r = shadow == null ? null : pollShadow();
        return r == null || r.isEmpty() ? production : handOver(r);
    }

    /**
     * Makes the marker of the first of {@code records} (all accepted) current on this thread until the next poll or
     * {@code close}: the service processes the records a poll answered before it polls again, so each shadow record
     * runs marked also where nothing makes its own context current (a batch listener; the agent's kafka
     * instrumentation off, or its process spans linked to a receive span instead of parented by the record), and
     * where something does, the record's own marker is current inside it.
     */
    private ConsumerRecords<?, ?> handOver(ConsumerRecords<?, ?> records) {
        // the first record by index, not through the iterator: the agent's iterator would make the record's context
        // current until its next call, which never comes
        ConsumerRecord<?, ?> first = records.records(records.partitions().iterator().next()).get(0);
        marked = IsolationBridge.guard().markInbound(baggage(first.headers().toArray()));
        markedOn = Thread.currentThread();
        return records;
    }

    /** Closes the marker {@link #handOver} made current, on the thread it was made current on (else drops it). */
    private void endMarked() {
        MarkerScope m = marked;
        if (m != null) {
            if (markedOn == Thread.currentThread()) {
                m.close();
            }
            marked = null;
            markedOn = null;
        }
    }

    /**
     * The shadow's records, polled without waiting, those without an accepted marker left out; null when the poll
     * failed (a {@code WakeupException} among them: the production consumer, woken too, throws its own).
     */
    private ConsumerRecords<?, ?> pollShadow() {
        ConsumerRecords<Object, Object> records;
        try {
            records = shadow.poll(Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.warning("Richter isolation: the shadow consumer of group " + group + " could not poll: " + e);
            return null;
        }
        if (records.isEmpty()) {
            return records;
        }
        IsolationGuard guard = IsolationBridge.guard();
        Map<TopicPartition, List<ConsumerRecord<Object, Object>>> kept =
                new HashMap<TopicPartition, List<ConsumerRecord<Object, Object>>>();
        long dropped = 0;
        for (TopicPartition p : records.partitions()) {
            List<ConsumerRecord<Object, Object>> list = new ArrayList<ConsumerRecord<Object, Object>>();
            List<ConsumerRecord<Object, Object>> of = records.records(p);
            // by index: the agent's list makes each record's context current while it is iterated
            for (int i = 0; i < of.size(); i++) {
                ConsumerRecord<Object, Object> r = of.get(i);
                if (guard.acceptsMarker(baggage(r.headers().toArray()))) {
                    list.add(r);
                } else {
                    dropped++;
                }
            }
            if (!list.isEmpty()) {
                kept.put(p, list);
            }
        }
        if (dropped == 0) {
            return records;
        }
        skipped += dropped;
        LOG.warning("Richter isolation: skipped " + dropped + " record(s) of shadow topics " + shadowTopics
                + " without an accepted marker (no marker, or a proof that does not verify); they would run as"
                + " production traffic (skipped so far: " + skipped + ")");
        @SuppressWarnings("deprecation")
        ConsumerRecords<Object, Object> filtered = new ConsumerRecords<Object, Object>(kept);
        return filtered;
    }

    /** Every {@code baggage} header's value (name in any case), joined with {@code ,}. */
    static String baggage(Header[] headers) {
        StringBuilder b = new StringBuilder();
        for (Header h : headers) {
            if (h != null && h.value() != null && "baggage".equalsIgnoreCase(h.key())) {
                if (b.length() > 0) {
                    b.append(',');
                }
                b.append(new String(h.value(), StandardCharsets.UTF_8));
            }
        }
        return b.toString();
    }

    private boolean owns(TopicPartition p) {
        return p != null && shadowTopics.contains(p.topic());
    }

    Map<TopicPartition, OffsetAndMetadata> commitOffsets(Map<TopicPartition, OffsetAndMetadata> offsets, boolean sync,
            Duration timeout, OffsetCommitCallback callback) {
        Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<TopicPartition, OffsetAndMetadata>();
        Map<TopicPartition, OffsetAndMetadata> theirs = new HashMap<TopicPartition, OffsetAndMetadata>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            (owns(e.getKey()) ? mine : theirs).put(e.getKey(), e.getValue());
        }
        if (mine.isEmpty()) {
            return offsets;
        }
        KafkaConsumer<Object, Object> c = shadow;
        try {
            if (!sync) {
                c.commitAsync(mine, callback);
            } else if (timeout == null) {
                c.commitSync(mine);
            } else {
                c.commitSync(mine, timeout);
            }
        } catch (RuntimeException e) {
            LOG.warning("Richter isolation: the shadow consumer of group " + group + " could not commit " + mine
                    + ": " + e);
        }
        return theirs;
    }

    void commitConsumed(boolean sync, Duration timeout, OffsetCommitCallback callback) {
        KafkaConsumer<Object, Object> c = shadow;
        if (c == null || shadowTopics.isEmpty()) {
            return;
        }
        try {
            if (!sync) {
                c.commitAsync(callback);
            } else if (timeout == null) {
                c.commitSync();
            } else {
                c.commitSync(timeout);
            }
        } catch (RuntimeException e) {
            LOG.warning("Richter isolation: the shadow consumer of group " + group + " could not commit: " + e);
        }
    }

    Collection<TopicPartition> partitions(String operation, Collection<TopicPartition> partitions) {
        List<TopicPartition> mine = new ArrayList<TopicPartition>();
        List<TopicPartition> theirs = new ArrayList<TopicPartition>();
        for (TopicPartition p : partitions) {
            (owns(p) ? mine : theirs).add(p);
        }
        if (mine.isEmpty()) {
            return partitions;
        }
        KafkaConsumer<Object, Object> c = shadow;
        if ("pause".equals(operation)) {
            c.pause(mine);
        } else if ("resume".equals(operation)) {
            c.resume(mine);
        } else if ("seekToBeginning".equals(operation)) {
            c.seekToBeginning(mine);
        } else if ("seekToEnd".equals(operation)) {
            c.seekToEnd(mine);
        }
        return theirs;
    }

    boolean seek(TopicPartition partition, Object offset) {
        if (!owns(partition)) {
            return false;
        }
        if (offset instanceof OffsetAndMetadata) {
            shadow.seek(partition, (OffsetAndMetadata) offset);
        } else {
            shadow.seek(partition, ((Number) offset).longValue());
        }
        return true;
    }

    Long position(TopicPartition partition, Duration timeout) {
        if (!owns(partition)) {
            return null;
        }
        return timeout == null ? shadow.position(partition) : shadow.position(partition, timeout);
    }

    Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
        Set<TopicPartition> mine = new HashSet<TopicPartition>();
        for (TopicPartition p : partitions) {
            if (owns(p)) {
                mine.add(p);
            }
        }
        if (mine.isEmpty()) {
            return null;
        }
        return timeout == null ? shadow.committed(mine) : shadow.committed(mine, timeout);
    }

    Set<TopicPartition> productionOnly(Set<TopicPartition> partitions) {
        Set<TopicPartition> theirs = new HashSet<TopicPartition>();
        for (TopicPartition p : partitions) {
            if (!owns(p)) {
                theirs.add(p);
            }
        }
        return theirs.size() == partitions.size() ? partitions : theirs;
    }

    Set<TopicPartition> withShadow(Set<TopicPartition> production, boolean paused) {
        KafkaConsumer<Object, Object> c = shadow;
        if (c == null || shadowTopics.isEmpty()) {
            return production;
        }
        Set<TopicPartition> all = new HashSet<TopicPartition>(production);
        all.addAll(paused ? c.paused() : c.assignment());
        return all;
    }

    void wakeup() {
        KafkaConsumer<Object, Object> c = shadow;
        if (c != null) {
            c.wakeup();
        }
    }

    void close() {
        endMarked();
        KafkaConsumer<Object, Object> c = shadow;
        shadow = null;
        shadowTopics = new HashSet<String>();
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.warning("Richter isolation: the shadow consumer of group " + group + " did not close: " + e);
            }
        }
    }
}
