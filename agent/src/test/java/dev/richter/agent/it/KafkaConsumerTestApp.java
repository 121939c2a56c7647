package dev.richter.agent.it;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * A service with no Richter code that consumes the topic {@code orders} ({@code -Dapp.kafka.bootstrap}) twice, for
 * {@link KafkaConsumerIsolationIT}: a plain {@code KafkaConsumer} poll loop in group {@code orders-loop} ({@code
 * poll(Duration)}, a for-each over the records, {@code commitSync()} after each batch, then its whole {@code
 * assignment()} paused and resumed, its positions and committed offsets read: {@code /consumed?by=loop&value=assignment}
 * answers them) and a spring-kafka
 * {@code @KafkaListener} in group {@code orders-spring} (spring-kafka's defaults: a record listener, batch acks
 * committed with {@code commitSync(Map, Duration)}). For each record each charges its payment exit ({@code POST
 * -Dapp.exit.loop}, {@code -Dapp.exit.spring}) with the JDK {@code HttpClient} and keeps the answer. A JDK {@code HttpServer} on an ephemeral port (prints {@code READY
 * <port>}) answers {@code /consumed?by=loop|spring&value=<record value>} with {@code <topic> status=<status>
 * body=<body>} for the record of that value, or {@code none} while there is none. {@code -Dapp.consumers=loop} runs
 * the loop alone; {@code -Dapp.group.protocol=consumer} sets both consumers' {@code group.protocol} (kafka-clients 4's
 * consumer protocol, KIP-848).
 */
public final class KafkaConsumerTestApp {
    static final Map<String, String> CONSUMED = new ConcurrentHashMap<>();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private KafkaConsumerTestApp() {}

    public static void main(String[] args) throws Exception {
        List<String> consumers = List.of(System.getProperty("app.consumers", "loop,spring").split(","));
        if (consumers.contains("loop")) {
            Thread loop = new Thread(KafkaConsumerTestApp::pollLoop, "orders-loop");
            loop.setDaemon(true);
            loop.start();
        }
        if (consumers.contains("spring")) {
            new AnnotationConfigApplicationContext(SpringConfig.class).registerShutdownHook();
        }
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/consumed", exchange -> {
            Map<String, String> q = new HashMap<>();
            for (String pair : exchange.getRequestURI().getRawQuery().split("&")) {
                String[] kv = pair.split("=", 2);
                q.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
            }
            CountingServer.answer(exchange, 200, CONSUMED.getOrDefault(q.get("by") + ":" + q.get("value"), "none"));
        });
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }

    private static Map<String, Object> config() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", System.getProperty("app.kafka.bootstrap"));
        config.put("key.deserializer", StringDeserializer.class.getName());
        config.put("value.deserializer", StringDeserializer.class.getName());
        config.put("auto.offset.reset", "earliest");
        String protocol = System.getProperty("app.group.protocol");
        if (protocol != null) {
            config.put("group.protocol", protocol);
        }
        return config;
    }

    private static void pollLoop() {
        Map<String, Object> config = config();
        config.put("group.id", "orders-loop");
        config.put("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of("orders"));
            while (true) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<String, String> r : records) {
                    process("loop", r);
                }
                consumer.commitSync();
                // what a loop does with its whole assignment: pause and resume it, read positions and commits
                Set<TopicPartition> assigned = consumer.assignment();
                consumer.pause(assigned);
                String paused = new TreeSet<>(consumer.paused().stream().map(TopicPartition::toString).toList()).toString();
                consumer.resume(assigned);
                Map<String, String> positions = new TreeMap<>();
                for (TopicPartition p : assigned) {
                    positions.put(p.toString(), String.valueOf(consumer.position(p)));
                }
                Map<String, String> committed = new TreeMap<>();
                consumer.committed(assigned).forEach((p, o) -> committed.put(p.toString(), o == null ? "-" : String.valueOf(o.offset())));
                CONSUMED.put("loop:assignment", "paused=" + paused + " positions=" + positions + " committed=" + committed);
            }
        }
    }

    /** What the service does with a record: one charge at the payment exit. */
    static void process(String by, ConsumerRecord<String, String> r) {
        String answer;
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(System.getProperty("app.exit." + by)))
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(r.value())).build(),
                    HttpResponse.BodyHandlers.ofString());
            answer = "status=" + response.statusCode() + " body=" + response.body();
        } catch (Exception e) {
            answer = "error=" + e;
        }
        CONSUMED.put(by + ":" + r.value(), r.topic() + " " + answer);
    }

    /** The spring-kafka application: a listener container factory over a {@code DefaultKafkaConsumerFactory}. */
    @Configuration
    @EnableKafka
    public static class SpringConfig {
        @Bean
        public ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory() {
            ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
            factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(config()));
            return factory;
        }

        @Bean
        public Listener listener() {
            return new Listener();
        }
    }

    /** The {@code @KafkaListener}. */
    public static class Listener {
        @KafkaListener(id = "orders-spring", topics = "orders", groupId = "orders-spring")
        public void onOrder(ConsumerRecord<String, String> record) {
            process("spring", record);
        }
    }
}
