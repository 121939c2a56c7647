package dev.richter.agent.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.StubGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.agent.isolation.IsolationMode;
import dev.richter.agent.isolation.Shadows;
import dev.richter.agent.isolation.TopicPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Kafka producer's helper called as its advice calls it, with a marked guard installed by hand (no agent) that
 * decides topics by the isolation's own {@link TopicPolicy}.
 */
class KafkaExitsTest {
    private static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    /** A guard whose current work is marked and whose topic rule is {@link TopicPolicy} over {@code topics}. */
    private static void installMarked(Map<String, String> topics) {
        Shadows shadows = new Shadows(Map.of(), Map.of(), Map.of(), topics);
        IsolationBridge.install(new StubGuard(true) {
            @Override
            public ShadowDecision decideTopic(String topic) {
                return TopicPolicy.decide(topic, shadows, IsolationMode.ENFORCE);
            }
        });
    }

    private static List<String> headers(ProducerRecord<?, ?> record) {
        List<String> out = new ArrayList<>();
        for (Header h : record.headers()) {
            out.add(h.key() + ": " + new String(h.value(), StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The corpus case: its {@code # Topic shadows:} line, topic, key and headers in order. */
    private record Case(Map<String, String> topics, String topic, String key, RecordHeaders headers) {
        static Case read(String relative) throws IOException {
            Map<String, String> topics = new LinkedHashMap<>();
            String topic = null;
            String key = null;
            RecordHeaders headers = new RecordHeaders();
            boolean inHeaders = false;
            for (String line : Files.readAllLines(CORPUS.resolve(relative))) {
                if (line.startsWith("# Topic shadows:")) {
                    for (JsonNode s : new ObjectMapper().readTree(line.substring("# Topic shadows:".length()))) {
                        topics.put(s.get("production").asText(), s.get("shadow").asText());
                    }
                } else if (line.startsWith("#")) {
                    inHeaders = false;
                } else if (line.startsWith("topic:")) {
                    topic = line.substring(6).strip();
                } else if (line.startsWith("key:")) {
                    key = line.substring(4).strip();
                } else if (line.startsWith("headers:") || (inHeaders && line.startsWith(" "))) {
                    inHeaders = true;
                    String h = line.startsWith("headers:") ? line.substring(8).strip() : line.strip();
                    int colon = h.indexOf(':');
                    headers.add(h.substring(0, colon).strip(), h.substring(colon + 1).strip().getBytes(StandardCharsets.UTF_8));
                }
            }
            return new Case(topics, topic, key, headers);
        }
    }

    /**
     * Corpus bug 47: the marker is in the first of two {@code baggage} headers (W3C Baggage: "Multiple baggage headers
     * are allowed"); the record is seen marked and goes to the shadow with its headers as they were.
     */
    @Test
    void bug47EveryBaggageHeaderIsReadAndTheHeadersAreKept() throws IOException {
        Case c = Case.read("bugs/47-kafka-two-baggage-headers.txt");
        installMarked(c.topics());
        ProducerRecord<String, String> record = new ProducerRecord<>(c.topic(), null, 1_700_000_000_000L, c.key(), "{}", c.headers());
        List<String> before = headers(record);

        ProducerRecord<?, ?> sent = assertInstanceOf(ProducerRecord.class, KafkaExits.beforeSend(record));
        assertEquals("orders_shadow", sent.topic());
        assertEquals(before, headers(sent));
        assertEquals(List.of("baggage: richter-loadtest=1",
                "traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "baggage: tenant=acme"), headers(sent));
        assertEquals("order-1", sent.key());
        assertEquals(1_700_000_000_000L, sent.timestamp());

        ProducerRecord<String, String> toShadow = new ProducerRecord<>("orders_shadow", null, 1L, c.key(), "{}", c.headers());
        assertNull(KafkaExits.beforeSend(toShadow), "sent to the shadow itself: unchanged");
        assertEquals(before, headers(toShadow));
    }

    /**
     * The kind of bug 47: the marker is read as a W3C Baggage member (W3C Baggage §3.3: list members separated by
     * {@code ,}, optional whitespace, properties after {@code ;}, values percent-encoded) in any of the record's
     * {@code baggage} headers, header names compared without case as HTTP does; a record that has it keeps its headers
     * as they were; one without it gets one more {@code baggage} header holding the marker alone, its own baggage
     * headers untouched.
     */
    @ParameterizedTest
    @CsvSource(delimiterString = " | ", value = {
            // carries the marker: headers kept as they were
            "baggage=richter-loadtest=1 | true",
            "baggage=tenant=acme;baggage=richter-loadtest=1 | true",
            "baggage=tenant=acme , richter-loadtest = 1 ;ttl=5, user=x | true",
            "baggage=richter-loadtest=%31 | true",
            "Baggage=richter-loadtest=1;baggage=tenant=acme | true",
            "baggage=;baggage=a=b,richter-loadtest=1 | true",
            // does not: one more header with the marker alone
            "baggage=tenant=acme | false",
            "baggage=xrichter-loadtest=1 | false",
            "baggage=richter-loadtest=10 | false",
            "baggage=tenant=richter-loadtest=1 | false",
            "baggage=richter-loadtest=0;baggage=tenant=acme | false",
            "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 | false",
            "'' | false"})
    void theMarkerIsAnyBaggageHeadersMemberAndTheRecordsHeadersAreKept(String given, boolean carries) {
        installMarked(Map.of("orders", "orders_shadow"));
        RecordHeaders headers = new RecordHeaders();
        List<String> before = new ArrayList<>();
        for (String h : given.isEmpty() ? new String[0] : given.split(";(?=[A-Za-z]+=)")) {
            int eq = h.indexOf('=');
            headers.add(h.substring(0, eq), h.substring(eq + 1).getBytes(StandardCharsets.UTF_8));
            before.add(h.substring(0, eq) + ": " + h.substring(eq + 1));
        }
        ProducerRecord<String, String> record = new ProducerRecord<>("orders", 3, 5L, "k", "v", headers);
        ProducerRecord<?, ?> sent = assertInstanceOf(ProducerRecord.class, KafkaExits.beforeSend(record));
        assertEquals("orders_shadow", sent.topic());
        assertNull(sent.partition(), "the partition was the production topic's");
        List<String> expected = new ArrayList<>(before);
        if (!carries) {
            expected.add("baggage: richter-loadtest=1");
        }
        assertEquals(expected, headers(sent), given);

        ProducerRecord<String, String> toShadow = new ProducerRecord<>("orders_shadow", 3, 5L, "k", "v", new RecordHeaders(headers.toArray()));
        Object answer = KafkaExits.beforeSend(toShadow);
        if (carries) {
            assertNull(answer, given);
        } else {
            ProducerRecord<?, ?> marked = assertInstanceOf(ProducerRecord.class, answer);
            assertEquals(expected, headers(marked), given);
            assertEquals(3, marked.partition());
        }
    }

    @Test
    void aRecordToATopicWithoutAShadowIsRefusedUnsent() {
        installMarked(Map.of("orders", "orders_shadow"));
        assertInstanceOf(org.apache.kafka.common.KafkaException.class,
                KafkaExits.beforeSend(new ProducerRecord<>("payments", "k", "v")));
    }

    @Test
    void anUnmarkedRecordIsNotLookedAt() {
        assertNull(KafkaExits.beforeSend(new ProducerRecord<>("payments", "k", "v")));
    }
}
