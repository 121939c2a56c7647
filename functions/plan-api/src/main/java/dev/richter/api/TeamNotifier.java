package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.net.AllowedNetworks;
import dev.richter.common.secrets.SecretSealer;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Tells a team how its runs go (issue 26, progress broadcast): each Richter event of a run ({@link #EVENT_TYPES}),
 * delivered by EventBridge to the notifier function ({@code NotificationRule}), goes to the team's subscription
 * ({@code PUT /notifications}: a webhook, an SNS topic, or both).
 *
 * <p><b>Body</b> (the same for both channels): {@code {id, type, time, runId, planId, teamId, detail, reportUrl?}},
 * {@code id} the EventBridge event id (stable across redeliveries: a receiver de-duplicates on it), {@code reportUrl}
 * ({@code <RICHTER_API_URL>/runs/<runId>/report}) on {@code Run Completed}.
 *
 * <p><b>Webhook signature</b> (with the team's secret, stored sealed and opened per delivery attempt, a failure to open
 * it a failed attempt: nothing is sent unsigned), Stripe's scheme (https://docs.stripe.com/webhooks#verify-manually): header
 * {@code Richter-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>}; the receiver recomputes it
 * over the raw body and refuses an old {@code t} (replay). Also {@code Richter-Event-Id} and {@code Richter-Event-Type}.
 * A 2xx answer is delivered; anything else, or no answer in {@value WebhookTransport#TIMEOUT_MS} ms, fails the attempt.
 *
 * <p><b>Bounded retries, recorded, never in the run's path.</b> Each channel gets {@value #MAX_ATTEMPTS} attempts,
 * with exponential backoff and full jitter (a random wait in [0, {@value #BASE_BACKOFF_MS} ms × 2^(attempt−1)));
 * every delivery is recorded in the registry table ({@code notifydelivery#<atMs>#<eventId>#<channel>}: status
 * {@code DELIVERED} or {@code FAILED}, attempts, last error), readable at {@code GET /notifications}. An event is
 * delivered at most once per channel: a conditional put ({@code notifyclaim#<eventId>#<channel>}) claims it first,
 * so EventBridge's or Lambda's redelivery of the same event sends nothing again. The run never waits on any of it:
 * the events reach the notifier asynchronously, off the state machine's path.
 */
final class TeamNotifier {
    /** The detail-types a team is told about. */
    static final Set<String> EVENT_TYPES = Set.of("Run Started", "Step Completed", "Verdict Changed", "Run Aborted",
            "Run Completed", "Run Start Failed");
    /** Attempts per channel and event. */
    static final int MAX_ATTEMPTS = 3;
    /** The first retry's backoff bound, milliseconds. */
    static final long BASE_BACKOFF_MS = 500;
    /** The registry item of a team's subscription. */
    static final String CONFIG_KEY = "notifications#config";
    /** Prefix of delivery records. */
    static final String DELIVERY_PREFIX = "notifydelivery#";

    /** Posts a signed body to a webhook. */
    @FunctionalInterface
    interface WebhookTransport {
        /** How long one attempt may take, milliseconds. */
        long TIMEOUT_MS = 5000;

        /**
         * @return the HTTP status of the answer
         * @throws Exception when there is no answer (refused, timed out)
         */
        int post(String url, Map<String, String> headers, String body) throws Exception;
    }

    /** Publishes to an SNS topic. */
    @FunctionalInterface
    interface TopicTransport {
        /** @throws Exception when SNS refuses */
        void publish(String topicArn, String subject, String message) throws Exception;
    }

    /**
     * One channel's delivery of one event.
     *
     * @param channel  {@code webhook} or {@code sns}
     * @param status   {@code DELIVERED} or {@code FAILED}
     * @param attempts attempts made, 1..{@value #MAX_ATTEMPTS}
     * @param error    the last attempt's error, empty when delivered
     */
    record Delivery(String channel, String status, int attempts, String error) {}

    private final Repositories repositories;
    private final WebhookTransport webhook;
    private final TopicTransport topic;
    private final String apiUrl;
    private final LongSupplier clock;
    private final LongConsumer sleeper;
    private final AllowedNetworks networks;

    /**
     * @param apiUrl  the API's base URL, for report links ({@code RICHTER_API_URL}); empty for none
     * @param clock   epoch milliseconds (the signature's time, the records' time)
     * @param sleeper waits between attempts, milliseconds
     */
    TeamNotifier(Repositories repositories, WebhookTransport webhook, TopicTransport topic, String apiUrl,
                 LongSupplier clock, LongConsumer sleeper) {
        this(repositories, webhook, topic, apiUrl, clock, sleeper, AllowedNetworks.fromEnv());
    }

    /**
     * @param networks where a webhook may be: checked at each delivery, on what its host resolves to then; a refused
     *                 delivery is recorded {@code FAILED} with the reason and nothing is sent
     */
    TeamNotifier(Repositories repositories, WebhookTransport webhook, TopicTransport topic, String apiUrl,
                 LongSupplier clock, LongConsumer sleeper, AllowedNetworks networks) {
        this.networks = networks;
        this.repositories = repositories;
        this.webhook = webhook;
        this.topic = topic;
        this.apiUrl = apiUrl.endsWith("/") ? apiUrl.substring(0, apiUrl.length() - 1) : apiUrl;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /**
     * Delivers one EventBridge event ({@code {id, detail-type, source, time, detail: {teamId, runId, ...}}}) to its
     * team's subscription.
     *
     * @return the deliveries made: none for an event type not in {@link #EVENT_TYPES}, a team without a subscription,
     *         or an event already claimed
     */
    List<Delivery> deliver(JsonNode event) {
        String type = event.path("detail-type").asText();
        JsonNode detail = event.path("detail");
        String teamId = detail.path("teamId").asText("");
        String eventId = event.path("id").asText("");
        if (!EVENT_TYPES.contains(type) || teamId.isEmpty() || eventId.isEmpty()) {
            return List.of();
        }
        Optional<JsonNode> config = config(repositories, teamId);
        if (config.isEmpty()) {
            return List.of();
        }
        String body = Json.write(body(event, type, detail, teamId, eventId));
        List<Delivery> out = new ArrayList<>();
        JsonNode hook = config.get().path("webhook");
        if (hook.path("url").isTextual() && claim(teamId, eventId, "webhook")) {
            String url = hook.path("url").asText();
            out.add(record(teamId, eventId, type, detail, attempt("webhook", () -> {
                String secret = webhookSecret(teamId, hook);
                long t = clock.getAsLong() / 1000;
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put("Content-Type", "application/json");
                headers.put("Richter-Event-Id", eventId);
                headers.put("Richter-Event-Type", type);
                headers.put("Richter-Signature", "t=" + t + ",v1=" + sign(secret, t + "." + body));
                Optional<String> refused = networks.refusal(URI.create(url).getHost());
                if (refused.isPresent()) {
                    throw new IllegalStateException("refused, nothing sent: " + refused.get());
                }
                int status = webhook.post(url, headers, body);
                if (status < 200 || status > 299) {
                    throw new IllegalStateException("HTTP " + status + " from " + url);
                }
            })));
        }
        String topicArn = config.get().path("snsTopicArn").asText("");
        if (!topicArn.isEmpty() && claim(teamId, eventId, "sns")) {
            String subject = ("Richter " + type + " " + detail.path("runId").asText("")).strip();
            out.add(record(teamId, eventId, type, detail, attempt("sns",
                    () -> topic.publish(topicArn, subject.length() > 100 ? subject.substring(0, 100) : subject, body))));
        }
        return out;
    }

    private Map<String, Object> body(JsonNode event, String type, JsonNode detail, String teamId, String eventId) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("id", eventId);
        b.put("type", type);
        b.put("time", event.path("time").asText(""));
        b.put("runId", detail.path("runId").asText(""));
        b.put("planId", detail.path("planId").asText(""));
        b.put("teamId", teamId);
        b.put("detail", detail);
        if (type.equals("Run Completed") && !apiUrl.isEmpty()) {
            b.put("reportUrl", apiUrl + "/runs/" + detail.path("runId").asText("") + "/report");
        }
        return b;
    }

    /** One attempt of a channel; throws when it failed. */
    @FunctionalInterface
    private interface DeliveryAttempt {
        void run() throws Exception;
    }

    private Delivery attempt(String channel, DeliveryAttempt attempt) {
        String error = "";
        for (int n = 1; n <= MAX_ATTEMPTS; n++) {
            try {
                attempt.run();
                return new Delivery(channel, "DELIVERED", n, "");
            } catch (Exception e) {
                error = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                if (n < MAX_ATTEMPTS) {
                    sleeper.accept(ThreadLocalRandom.current().nextLong(BASE_BACKOFF_MS << (n - 1)));
                }
            }
        }
        return new Delivery(channel, "FAILED", MAX_ATTEMPTS, error);
    }

    /** The team's subscription ({@code PUT /notifications}), when it has one. */
    static Optional<JsonNode> config(Repositories repositories, String teamId) {
        List<String> docs = repositories.latestRegistryDocs(teamId, CONFIG_KEY, 1);
        return docs.isEmpty() ? Optional.empty() : Optional.of(Json.read(docs.get(0), JsonNode.class));
    }

    /**
     * The webhook's signing secret: {@code secretSealed} opened for the team ({@code kms:Decrypt}, cached per
     * container), or a subscription stored before sealing's plain {@code secret}.
     *
     * @throws IllegalStateException when the subscription holds neither (nothing is sent unsigned)
     * @throws SecretSealer.SecretNotOpenedException when the sealed secret is not the team's webhook secret
     */
    private String webhookSecret(String teamId, JsonNode hook) {
        if (hook.path("secretSealed").isTextual()) {
            return repositories.secrets().open(teamId, SecretSealer.WEBHOOK_SECRET, hook.get("secretSealed").asText());
        }
        if (hook.path("secret").isTextual()) {
            return hook.get("secret").asText();
        }
        throw new IllegalStateException("the webhook subscription of team " + teamId + " has no secret: nothing sent unsigned");
    }

    /** {@code HMAC-SHA256(secret, payload)} in lower-case hex. */
    static String sign(String secret, String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    private boolean claim(String teamId, String eventId, String channel) {
        try {
            repositories.dynamoDb().putItem(PutItemRequest.builder().tableName(repositories.tables().registry())
                    .item(Map.of("teamId", AttributeValue.fromS(teamId),
                            "itemKey", AttributeValue.fromS("notifyclaim#" + eventId + "#" + channel),
                            "doc", AttributeValue.fromS("{}")))
                    .conditionExpression("attribute_not_exists(itemKey)").build());
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private Delivery record(String teamId, String eventId, String type, JsonNode detail, Delivery d) {
        long now = clock.getAsLong();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("eventId", eventId);
        doc.put("type", type);
        doc.put("runId", detail.path("runId").asText(""));
        doc.put("channel", d.channel());
        doc.put("status", d.status());
        doc.put("attempts", d.attempts());
        doc.put("error", d.error());
        doc.put("atMs", now);
        repositories.putRegistryDoc(teamId, String.format("%s%013d#%s#%s", DELIVERY_PREFIX, now, eventId, d.channel()), doc);
        return d;
    }
}
