package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The local EventBridge: answers {@code AWSEvents.PutEvents} (AWS JSON 1.1, as the SDK's
 * {@code EventBridgeClient} sends it through {@code AWS_ENDPOINT_URL_EVENTBRIDGE}) and keeps every
 * event as the bus would deliver it ({@code {version, id, detail-type, source, account, time, region,
 * resources, detail}}), in memory and appended to a JSON-lines file.
 *
 * <p>Faults ({@link LocalFaults}, rule {@code events.PutEvents}): {@code fail} answers HTTP 500
 * {@code {"__type":"InternalException","message":"..."}} and delivers nothing; {@code partial} answers HTTP 200 with the
 * first entry and every second one after it failed ({@code {"ErrorCode":"InternalFailure","ErrorMessage":"..."}}, not
 * delivered) and {@code FailedEntryCount} their number, as EventBridge reports entries it could not ingest
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevents.html). The fault's target is the first entry's
 * {@code EventBusName} ({@code default} when absent).
 */
public final class EventBusCapture implements AutoCloseable {
    private final List<JsonNode> events = new CopyOnWriteArrayList<>();
    private final Path file;
    private final FaultInjector faults;
    private HttpServer server;
    private final List<Consumer<JsonNode>> listeners = new CopyOnWriteArrayList<>();

    /** @param file JSON-lines file every event is appended to */
    public EventBusCapture(Path file) {
        this(file, FaultInjector.none());
    }

    /**
     * @param file   JSON-lines file every delivered event is appended to
     * @param faults whose {@code events} rules this bus applies
     */
    public EventBusCapture(Path file, FaultInjector faults) {
        this.file = file;
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /** Starts on loopback {@code port}. */
    public void start(int port) throws IOException {
        Files.createDirectories(file.getParent());
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        server.createContext("/", this::serve);
        server.start();
    }

    /** Calls {@code listener} with every event received from now on, after it is recorded (e.g. rule delivery). */
    public void addListener(Consumer<JsonNode> listener) {
        listeners.add(listener);
    }

    /** Every event received so far, in order, in the shape EventBridge delivers to targets. */
    public List<JsonNode> events() {
        return List.copyOf(events);
    }

    private void serve(HttpExchange ex) throws IOException {
        try (ex) {
            String target = ex.getRequestHeaders().getFirst("X-Amz-Target");
            JsonNode req = Json.MAPPER.readTree(ex.getRequestBody());
            byte[] body;
            int status = 200;
            FaultInjector.Selected fault = "AWSEvents.PutEvents".equals(target)
                    ? faults.select(LocalFaults.Component.EVENTS, req.path("Entries").path(0).path("EventBusName").asText("default"), "PutEvents")
                            .orElse(null)
                    : null;
            if (fault != null) {
                faults.fire(fault, "PutEvents");
            }
            if (fault != null && fault.rule().kind() == LocalFaults.Kind.FAIL) {
                status = 500;
                body = Json.write(Map.of("__type", "InternalException", "message", "fault injected by the local stack (" + fault.rule() + ")"))
                        .getBytes(StandardCharsets.UTF_8);
            } else if ("AWSEvents.PutEvents".equals(target)) {
                List<Map<String, String>> results = new ArrayList<>();
                int failed = 0;
                for (JsonNode entry : req.path("Entries")) {
                    if (fault != null && results.size() % 2 == 0) {
                        results.add(Map.of("ErrorCode", "InternalFailure",
                                "ErrorMessage", "fault injected by the local stack (" + fault.rule() + ")"));
                        failed++;
                        continue;
                    }
                    String id = UUID.randomUUID().toString();
                    Map<String, Object> delivered = new LinkedHashMap<>();
                    delivered.put("version", "0");
                    delivered.put("id", id);
                    delivered.put("detail-type", entry.path("DetailType").asText());
                    delivered.put("source", entry.path("Source").asText());
                    delivered.put("account", SamTemplate.ACCOUNT);
                    delivered.put("time", Instant.now().toString());
                    delivered.put("region", SamTemplate.REGION);
                    List<String> resources = new ArrayList<>();
                    entry.path("Resources").forEach(r -> resources.add(r.asText()));
                    delivered.put("resources", resources);
                    delivered.put("event-bus-name", entry.path("EventBusName").asText("default"));
                    delivered.put("detail", Json.MAPPER.readTree(entry.path("Detail").asText("{}")));
                    JsonNode node = Json.MAPPER.valueToTree(delivered);
                    events.add(node);
                    Files.writeString(file, Json.write(node) + "\n", StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    results.add(Map.of("EventId", id));
                    listeners.forEach(l -> l.accept(node));
                }
                body = Json.write(Map.of("FailedEntryCount", failed, "Entries", results)).getBytes(StandardCharsets.UTF_8);
            } else {
                status = 400;
                body = Json.write(Map.of("__type", "UnknownOperationException", "message", "unsupported " + target))
                        .getBytes(StandardCharsets.UTF_8);
            }
            ex.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.1");
            ex.sendResponseHeaders(status, body.length);
            ex.getResponseBody().write(body);
        }
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
    }
}
