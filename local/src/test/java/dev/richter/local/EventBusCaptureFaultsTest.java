package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.InternalException;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;

/** {@link EventBusCapture}'s {@code fail} and {@code partial} faults, as the SDK's {@link EventBridgeClient} sees them. */
class EventBusCaptureFaultsTest {
    @TempDir
    Path dir;
    FaultInjector faults;
    EventBusCapture bus;
    EventBridgeClient events;

    @BeforeEach
    void setUp() throws Exception {
        faults = new FaultInjector(LocalFaults.NONE, dir.resolve("faults.jsonl"), line -> { });
        bus = new EventBusCapture(dir.resolve("events.jsonl"), faults);
        int port = LambdaHostTest.freePort();
        bus.start(port);
        events = EventBridgeClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create("http://127.0.0.1:" + port))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    @AfterEach
    void tearDown() {
        events.close();
        bus.close();
    }

    private PutEventsResponse put(int n) {
        return events.putEvents(b -> b.entries(IntStream.range(0, n).mapToObj(i -> PutEventsRequestEntry.builder()
                .eventBusName("richter-local").source("richter.test").detailType("T").detail("{\"i\":" + i + "}").build()).toList()));
    }

    @Test
    void failFailsTheWholeCallWithInternalExceptionAndDeliversNothing() throws Exception {
        faults.set(LocalFaults.parse("events.PutEvents=fail@nth:2"));
        assertEquals(0, put(1).failedEntryCount());
        InternalException e = assertThrows(InternalException.class, () -> put(3));
        assertEquals(500, e.statusCode());
        assertEquals("InternalException", e.awsErrorDetails().errorCode());
        assertTrue(e.awsErrorDetails().errorMessage().contains("events.PutEvents=fail@nth:2"), e.getMessage());
        assertEquals(1, bus.events().size(), "only the first call's event was delivered");
        assertEquals(0, put(1).failedEntryCount());
        assertEquals(2, bus.events().size());
        var line = Json.MAPPER.readTree(Files.readAllLines(dir.resolve("faults.jsonl")).get(0));
        assertEquals(List.of("events", "richter-local", "PutEvents", "fail", "1"), List.of(line.path("component").asText(),
                line.path("target").asText(), line.path("operation").asText(), line.path("kind").asText(), line.path("n").asText()));
        assertEquals(Map.of("events.PutEvents", 1L), faults.fired());
    }

    @Test
    void partialFailsEveryOtherEntryWithInternalFailureAndDeliversOnlyTheOthers() throws Exception {
        faults.set(LocalFaults.parse("events.PutEvents=partial"));
        PutEventsResponse r = put(3);
        assertEquals(2, r.failedEntryCount());
        assertEquals(3, r.entries().size(), "one result per entry, in order");
        assertEquals("InternalFailure", r.entries().get(0).errorCode());
        assertNull(r.entries().get(0).eventId());
        assertTrue(r.entries().get(0).errorMessage().contains("events.PutEvents=partial"));
        assertNull(r.entries().get(1).errorCode());
        assertTrue(r.entries().get(1).eventId() != null);
        assertEquals("InternalFailure", r.entries().get(2).errorCode());
        assertEquals(1, bus.events().size(), "failed entries are not delivered");
        assertEquals(1, bus.events().get(0).path("detail").path("i").asInt(), "the one that went through");
        assertEquals(1, Files.readAllLines(dir.resolve("events.jsonl")).size());
        assertEquals(1, put(1).failedEntryCount(), "a one-entry call fails its entry");

        faults.clear();
        assertEquals(0, put(2).failedEntryCount());
        assertEquals(3, bus.events().size());
    }
}
