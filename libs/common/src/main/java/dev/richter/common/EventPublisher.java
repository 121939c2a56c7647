package dev.richter.common;

import java.util.Map;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;

/**
 * Puts Richter's events on the custom bus ({@code EVENT_BUS_NAME}), source {@code richter}.
 * Detail-types (DESIGN.md §3): {@code Run Started}, {@code Step Completed}, {@code Verdict Changed},
 * {@code Run Aborted}, {@code Run Completed}, {@code Run Start Failed}, {@code Check Regressed}.
 *
 * <p>The EventBridge SDK module is an optional dependency of {@code libs/common}: a function that publishes declares
 * {@code software.amazon.awssdk:eventbridge} in its own pom, so only those functions' Lambda jars carry it.
 */
public final class EventPublisher {
    /** The {@code source} of every Richter event. */
    public static final String SOURCE = "richter";
    private final EventBridgeClient eventBridge;
    private final String busName;

    /** Uses the given client and bus name. */
    public EventPublisher(EventBridgeClient eventBridge, String busName) {
        this.eventBridge = eventBridge;
        this.busName = busName;
    }

    /** Publisher on the bus named by {@code EVENT_BUS_NAME} (default {@code richter}). */
    public static EventPublisher fromEnv() {
        String bus = System.getenv("EVENT_BUS_NAME");
        return new EventPublisher(SharedClient.EVENT_BRIDGE, bus == null || bus.isBlank() ? "richter" : bus);
    }

    /** The container's EventBridge client (URL-connection HTTP client, region {@link AwsClients#region()}), built on first use. */
    private static final class SharedClient {
        static final EventBridgeClient EVENT_BRIDGE = EventBridgeClient.builder()
                .region(AwsClients.region())
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
    }

    /**
     * Publishes one event.
     *
     * @param detailType e.g. {@code "Run Completed"}
     * @param detail     JSON-serializable detail
     * @throws IllegalStateException when EventBridge reports the entry failed
     */
    public void publish(String detailType, Map<String, ?> detail) {
        PutEventsResponse r = eventBridge.putEvents(PutEventsRequest.builder().entries(PutEventsRequestEntry.builder()
                .eventBusName(busName).source(SOURCE).detailType(detailType).detail(Json.write(detail)).build()).build());
        if (r.failedEntryCount() != null && r.failedEntryCount() > 0) {
            throw new IllegalStateException("PutEvents failed: " + r.entries());
        }
    }
}
