package dev.richter.agent.it;

import dev.richter.sdk.MarkerProof;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * The world of {@link KafkaConsumerTestApp}, for {@link KafkaConsumerIsolationIT} and the leak matrix's {@code
 * kafka-consumer} section: an embedded KRaft broker ({@code KafkaClusterTestKit}, kafka 4.1.1; topics {@code orders},
 * its shadow {@code orders-shadow}, each of two partitions), the payment exit each consumer of the
 * service charges ({@link CountingServer}s, mocked for marked calls by the document), a document that signs markers with the team's key
 * ({@code marker}), and the service in a child JVM ({@link ChildJvm}) on kafka-clients 3.9.1 and spring-kafka 3.3.10
 * (or its poll loop alone on kafka-clients 4.1.1 with the consumer group protocol).
 * Records are sent by this JVM's own producer (no agent here), counts read by its own {@code Admin}.
 */
final class KafkaConsumerFixture implements AutoCloseable {
    static final String KEY = MarkerProof.newKey();
    static final String TEAM = "shop-team";
    static final String MOCK_BODY = "{\"id\":\"ch_mock\"}";
    /** The consumers of the app: {@code loop}, and {@code spring} unless it runs the loop alone. */
    final List<String> consumers;
    /** What the extension appends to a production group's id for its shadow group. */
    static final String SHADOW_GROUP_SUFFIX = "-richter-shadow";

    final KafkaClusterTestKit kafka;
    final Admin admin;
    /** The payment exit of each consumer ({@link #consumers}), mocked for marked calls. */
    final Map<String, CountingServer> exits;
    final ChildJvm app;
    private final KafkaProducer<String, String> producer;

    /** The plain loop and the {@code @KafkaListener} on kafka-clients 3.9.1, classic group protocol. */
    KafkaConsumerFixture() throws Exception {
        this(true);
    }

    /**
     * @param springBoot35 the plain loop and the {@code @KafkaListener} on kafka-clients 3.9.1 (Spring Boot 3.5's);
     *                     else the plain loop alone on kafka-clients 4.1.1 with {@code group.protocol=consumer}
     */
    KafkaConsumerFixture(boolean springBoot35) throws Exception {
        consumers = springBoot35 ? List.of("loop", "spring") : List.of("loop");
        KafkaClusterTestKit k = null;
        CountingServer e = null;
        CountingServer e2 = null;
        ChildJvm a = null;
        Admin ad = null;
        KafkaProducer<String, String> p = null;
        try {
            k = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1)
                    .setNumControllerNodes(1).build())
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    .setConfigProp("offsets.topic.num.partitions", "1").build();
            k.format();
            k.startup();
            k.waitForReadyBrokers();
            ad = Admin.create(Map.of("bootstrap.servers", k.bootstrapServers()));
            ad.createTopics(List.of(new NewTopic("orders", 2, (short) 1), new NewTopic("orders-shadow", 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            p = new KafkaProducer<>(Map.of("bootstrap.servers", k.bootstrapServers(),
                    "key.serializer", StringSerializer.class.getName(),
                    "value.serializer", StringSerializer.class.getName()));
            e = new CountingServer(200, "real-charge");
            e2 = new CountingServer(200, "real-charge");
            Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                    "isolation", ".json"), """
                    {"mode": "enforce", "scope": [],
                     "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}"},
                               {"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}"}],
                     "shadows": [{"kind": "topic", "production": "orders", "shadow": "orders-shadow"}],
                     "marker": {"team": "%s", "keys": ["%s"]}}
                    """.formatted(e.port(), e2.port(), TEAM, KEY));
            List<String> flags = List.of("-Drichter.isolation.file=" + document,
                    "-Dapp.kafka.bootstrap=" + k.bootstrapServers(), "-Dapp.exit.loop=" + e.url("/charge"),
                    "-Dapp.exit.spring=" + e2.url("/charge"), "-Dapp.consumers=" + String.join(",", consumers),
                    "-Dapp.group.protocol=" + (springBoot35 ? "classic" : "consumer"));
            a = springBoot35
                    ? new ChildJvm(ChildJvm.serviceJava(), flags, KafkaConsumerTestApp.class, List.of(kafka39Jar()),
                            List.of(org.springframework.kafka.annotation.KafkaListener.class,
                                    org.springframework.retry.RetryPolicy.class))
                    : new ChildJvm(ChildJvm.serviceJava(), flags, KafkaConsumerTestApp.class, List.of(),
                            List.of(org.apache.kafka.clients.consumer.KafkaConsumer.class));
        } catch (Exception | Error failed) {
            ChildJvm.closeAll(a, e, e2, p, ad, k);
            throw failed;
        }
        kafka = k;
        admin = ad;
        exits = Map.of("loop", e, "spring", e2);
        app = a;
        producer = p;
    }

    private static String kafka39Jar() {
        String jar = System.getProperty("richter.kafka39.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("richter.kafka39.jar must name kafka-clients 3.9 (run through mvn verify), got "
                    + jar);
        }
        return jar;
    }

    /** The marker with a proof the document's key verifies, as Richter mints it for a run. */
    static String signedMarker() {
        return "richter-loadtest=1,richter-proof="
                + MarkerProof.mint(KEY, TEAM, "run-1", System.currentTimeMillis() / 1000 + 3600);
    }

    /** The marker with a proof signed by another key: a forgery. */
    static String forgedMarker() {
        return "richter-loadtest=1,richter-proof="
                + MarkerProof.mint(MarkerProof.newKey(), TEAM, "run-1", System.currentTimeMillis() / 1000 + 3600);
    }

    /** Sends {@code value} to {@code topic} (key {@code value}), with a {@code baggage} header unless null. */
    void send(String topic, String value, String baggage) throws Exception {
        send(topic, value, value, baggage);
    }

    /** Sends {@code value} with {@code key} (its partition) to {@code topic}, with a {@code baggage} header unless null. */
    void send(String topic, String key, String value, String baggage) throws Exception {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, key, value);
        if (baggage != null) {
            r.headers().add("baggage", baggage.getBytes(StandardCharsets.UTF_8));
        }
        producer.send(r).get(10, TimeUnit.SECONDS);
    }

    /** What {@code by} ({@code loop}, {@code spring}) answered for the record {@code value}, waiting up to 60 s. */
    String consumed(String by, String value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String answer = app.get("/consumed?by=" + by + "&value=" + value, null).body();
        while (answer.equals("none") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            answer = app.get("/consumed?by=" + by + "&value=" + value, null).body();
        }
        return answer.equals("none") ? "error=not processed in 60 s" : answer;
    }

    /** The group's committed offsets, by partition (Admin.listConsumerGroupOffsets); empty for an unknown group. */
    Map<TopicPartition, OffsetAndMetadata> committed(String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
    }

    /** The sum of the group's committed offsets of {@code topic}'s partitions: how many of its records it has done. */
    long committed(String group, String topic) throws Exception {
        long sum = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed(group).entrySet()) {
            if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                sum += e.getValue().offset();
            }
        }
        return sum;
    }

    /** The topics the group has committed offsets of. */
    Set<String> committedTopics(String group) throws Exception {
        Set<String> topics = new TreeSet<>();
        committed(group).keySet().forEach(p -> topics.add(p.topic()));
        return topics;
    }

    /** Waits up to 60 s until {@code group} has committed {@code offsets} records of {@code topic}; answers its sum. */
    long awaitCommitted(String group, String topic, long offsets) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long now = committed(group, topic);
        while (now < offsets && System.nanoTime() < deadline) {
            Thread.sleep(100);
            now = committed(group, topic);
        }
        return now;
    }

    /** The charges that reached the payment exits, of both consumers. */
    int charges() {
        return exits.get("loop").count() + exits.get("spring").count();
    }

    /**
     * Sends a record and waits until both consumers have processed it and committed it on their groups (the shadow
     * groups for {@code orders-shadow}): no effect of it comes later.
     *
     * @return what {@code by} answered for it
     */
    String deliver(String topic, String key, String value, String baggage, String by) throws Exception {
        String suffix = topic.equals("orders") ? "" : SHADOW_GROUP_SUFFIX;
        Map<String, Long> before = new java.util.HashMap<>();
        for (String c : consumers) {
            before.put(c, committed(group(c) + suffix, topic));
        }
        send(topic, key, value, baggage);
        String answer = null;
        for (String c : consumers) {
            String a = consumed(c, value);
            answer = c.equals(by) ? a : answer;
            awaitCommitted(group(c) + suffix, topic, before.get(c) + 1);
        }
        return answer;
    }

    /**
     * Sends a record without an accepted marker ({@code baggage}) to {@code orders-shadow}, then a signed one of the
     * same key (partition) after it, and waits until both consumers have processed the second and committed both.
     *
     * @return what {@code by} answered for the first, {@code skipped} when it never processed it
     */
    String deliverUnaccepted(String value, String baggage, String by) throws Exception {
        Map<String, Long> before = new java.util.HashMap<>();
        for (String c : consumers) {
            before.put(c, committed(group(c) + SHADOW_GROUP_SUFFIX, "orders-shadow"));
        }
        send("orders-shadow", value, value, baggage);
        send("orders-shadow", value, value + "-after", signedMarker());
        for (String c : consumers) {
            consumed(c, value + "-after");
            awaitCommitted(group(c) + SHADOW_GROUP_SUFFIX, "orders-shadow", before.get(c) + 2);
        }
        String answer = app.get("/consumed?by=" + by + "&value=" + value, null).body();
        return answer.equals("none") ? "skipped" : answer;
    }

    /** The production group of a consumer of the app ({@code loop}, {@code spring}). */
    static String group(String by) {
        return "orders-" + by;
    }

    @Override
    public void close() {
        ChildJvm.closeAll(app, exits.get("loop"), exits.get("spring"), producer, admin, kafka);
    }
}
