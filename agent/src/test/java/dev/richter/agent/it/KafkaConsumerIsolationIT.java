package dev.richter.agent.it;

import static dev.richter.agent.it.KafkaConsumerFixture.MOCK_BODY;
import static dev.richter.agent.it.KafkaConsumerFixture.group;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Kafka's consumer side in a real child JVM ({@link KafkaConsumerFixture}: the agent, the built extension, kafka-clients
 * 3.9.1 and spring-kafka 3.3.10 as Spring Boot 3.5.7 pins them, against a 4.1.1 KRaft broker): a plain poll loop and a
 * {@code @KafkaListener} each consume {@code orders}, whose shadow is {@code orders-shadow}, and charge the payment
 * exit for each record. Counted at the receivers: the exit's requests (a marked charge is answered by the mock and
 * never reaches it) and the broker's committed offsets per group ({@code Admin.listConsumerGroupOffsets}). One child
 * serves every case, in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaConsumerIsolationIT {
    private KafkaConsumerFixture world;

    @BeforeAll
    void start() throws Exception {
        world = service();
    }

    /** The service under test: the poll loop and the {@code @KafkaListener} on Spring Boot 3.5's kafka-clients. */
    KafkaConsumerFixture service() throws Exception {
        return new KafkaConsumerFixture();
    }

    @AfterAll
    void stop() {
        ChildJvm.closeAll(world);
    }

    @Test
    @Order(1)
    void anUnmarkedRecordOnTheProductionTopicIsProcessedAsProductionByBothConsumers() throws Exception {
        int before = world.charges();
        world.send("orders", "u1", null);
        for (String by : world.consumers) {
            assertEquals("orders status=200 body=real-charge", world.consumed(by, "u1"), by);
            assertEquals(1, world.awaitCommitted(group(by), "orders", 1), by);
        }
        assertEquals(before + world.consumers.size(), world.charges(), "each consumer charged the real exit once");
    }

    @Test
    @Order(2)
    void aMarkedRecordOnTheShadowTopicIsProcessedWithTheMarkerOnAndCommittedOnTheShadowGroupOnly() throws Exception {
        int before = world.charges();
        world.send("orders-shadow", "m1", KafkaConsumerFixture.signedMarker());
        for (String by : world.consumers) {
            assertEquals("orders-shadow status=201 body=" + MOCK_BODY, world.consumed(by, "m1"), by);
            assertEquals(1, world.awaitCommitted(group(by) + "-richter-shadow", "orders-shadow", 1), by);
        }
        assertEquals(before, world.charges(), "a marked record's charge reached the real exit");
        for (String by : world.consumers) {
            assertEquals(Set.of("orders"), world.committedTopics(group(by)), by + "'s production group");
            assertEquals(1, world.committed(group(by), "orders"), by + "'s production offsets moved");
            assertEquals(Set.of("orders-shadow"), world.committedTopics(group(by) + "-richter-shadow"), by);
        }
        // the loop's assignment() holds the shadow's partitions too; pause, resume, position and committed of them
        // are the shadow consumer's (its group's offset of m1's partition is 1)
        String assignment = world.app.get("/consumed?by=loop&value=assignment", null).body();
        assertTrue(assignment.matches("paused=\\[orders-0, orders-1, orders-shadow-0, orders-shadow-1\\] positions=\\{.*"
                + "orders-shadow-0=\\d, orders-shadow-1=\\d\\} committed=\\{.*orders-shadow-\\d=1.*"), assignment);
        // the marker ends with the shadow's records: the next production record runs as production
        world.send("orders", "u2", null);
        for (String by : world.consumers) {
            assertEquals("orders status=200 body=real-charge", world.consumed(by, "u2"), by);
            assertEquals(2, world.awaitCommitted(group(by), "orders", 2), by);
        }
        assertEquals(before + world.consumers.size(), world.charges());
    }

    @Test
    @Order(3)
    void aShadowRecordWithoutAnAcceptedMarkerIsSkippedNotRunAsProduction() throws Exception {
        int before = world.charges();
        // one partition: the service's commit of m2 (spring-kafka commits the offsets of the records it processed)
        // covers the two skipped before it
        world.send("orders-shadow", "k", "f1", KafkaConsumerFixture.forgedMarker());
        world.send("orders-shadow", "k", "n1", null);
        world.send("orders-shadow", "k", "m2", KafkaConsumerFixture.signedMarker());
        for (String by : world.consumers) {
            assertEquals("orders-shadow status=201 body=" + MOCK_BODY, world.consumed(by, "m2"), by);
            assertEquals(4, world.awaitCommitted(group(by) + "-richter-shadow", "orders-shadow", 4), by);
            assertEquals("none", world.app.get("/consumed?by=" + by + "&value=f1", null).body(), by);
            assertEquals("none", world.app.get("/consumed?by=" + by + "&value=n1", null).body(), by);
        }
        assertEquals(before, world.charges());
        assertTrue(world.app.output().contains("without an accepted marker"), world.app.output());
    }

    @Test
    @Order(4)
    void aMarkedRecordOnTheProductionTopicRunsMarkedAndAForgedOneAsProduction() throws Exception {
        int before = world.charges();
        world.send("orders", "pm1", KafkaConsumerFixture.signedMarker());
        for (String by : world.consumers) {
            assertEquals("orders status=201 body=" + MOCK_BODY, world.consumed(by, "pm1"), by);
        }
        assertEquals(before, world.charges(), "a marked record's charge reached the real exit");
        world.send("orders", "pf1", KafkaConsumerFixture.forgedMarker());
        for (String by : world.consumers) {
            assertEquals("orders status=200 body=real-charge", world.consumed(by, "pf1"), by);
            assertEquals(4, world.awaitCommitted(group(by), "orders", 4), by);
            assertEquals(Set.of("orders"), world.committedTopics(group(by)), by + "'s production group");
        }
        assertEquals(before + world.consumers.size(), world.charges(), "a forged marker runs as production, as on HTTP");
    }
}
