package dev.richter.api;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import dev.richter.common.Env;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.PublishRequest;

/**
 * Lambda handler of {@code NotifierFunction} (in plan-api's jar), the target of {@code NotificationRule}: one Richter
 * event as EventBridge delivers it → {@link TeamNotifier#deliver} → {@code {eventId, deliveries: [{channel, status,
 * attempts, error}]}}. A failed delivery is recorded, never thrown (EventBridge would deliver the event again, and the
 * claim would then send nothing).
 */
public final class NotifyHandler extends JsonStreamHandler<JsonNode, Map<String, Object>> {
    private final TeamNotifier notifier;

    /** Lambda's constructor: tables, the SNS client and {@code RICHTER_API_URL} from the environment, built once. */
    public NotifyHandler() {
        this(Repositories.fromEnv(), webhookTransport(), topicTransport(), Env.get("RICHTER_API_URL").orElse(""));
    }

    /** For tests and the local stack. */
    NotifyHandler(Repositories repositories, TeamNotifier.WebhookTransport webhook, TeamNotifier.TopicTransport topic,
                  String apiUrl) {
        super(JsonNode.class);
        this.notifier = new TeamNotifier(repositories, webhook, topic, apiUrl, System::currentTimeMillis, ms -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /**
     * Posts with the JDK client: a 2 s connect and {@value TeamNotifier.WebhookTransport#TIMEOUT_MS} ms overall
     * deadline, and no redirect followed (a 3xx is the answer, a failed delivery): a redirect would lead past the
     * network check the delivery passed.
     */
    static TeamNotifier.WebhookTransport webhookTransport() {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
                .followRedirects(HttpClient.Redirect.NEVER).build();
        return (url, headers, body) -> {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofMillis(TeamNotifier.WebhookTransport.TIMEOUT_MS))
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            headers.forEach(b::header);
            return client.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        };
    }

    /** Publishes with SNS ({@code AWS_ENDPOINT_URL_SNS} when set), the client built on first use. */
    static TeamNotifier.TopicTransport topicTransport() {
        return new TeamNotifier.TopicTransport() {
            private SnsClient sns;

            @Override
            public synchronized void publish(String topicArn, String subject, String message) {
                if (sns == null) {
                    sns = SnsClient.builder().region(AwsClients.region()).httpClientBuilder(UrlConnectionHttpClient.builder()).build();
                }
                sns.publish(PublishRequest.builder().topicArn(topicArn).subject(subject).message(message).build());
            }
        };
    }

    @Override
    protected Map<String, Object> handle(JsonNode event, Context context) {
        List<TeamNotifier.Delivery> deliveries = notifier.deliver(event);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("eventId", event.path("id").asText(""));
        out.put("deliveries", deliveries);
        return out;
    }
}
