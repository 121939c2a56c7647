package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.net.AllowedNetworks;
import dev.richter.common.secrets.SecretSealer;
import dev.richter.runs.InputProblem;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /notifications}: the team's subscription to its runs' progress ({@link TeamNotifier}): a webhook
 * ({@code {url, secret}}, the body signed with the secret) and/or an SNS topic. The secret is never answered back, and
 * is stored sealed for the team ({@code webhook.secretSealed}, purpose {@link SecretSealer#WEBHOOK_SECRET}; docs/aws.md
 * "Secrets"), never in plain text.
 */
final class NotificationResource {
    /** How many delivery records {@code GET /notifications} answers, newest first. */
    static final int DELIVERIES_SHOWN = 50;

    private final Repositories repositories;
    private final AuditLog audit;
    private final InputValidator validator;
    private final AllowedNetworks networks;

    NotificationResource(Repositories repositories, AuditLog audit, InputValidator validator, AllowedNetworks networks) {
        this.networks = networks;
        this.repositories = repositories;
        this.audit = audit;
        this.validator = validator;
    }

    /**
     * {@code PUT /notifications} ({@code NotificationConfig}): stores the team's subscription, replacing the previous
     * one, the webhook's secret sealed ({@code kms:Encrypt}); 201 when new, 200 when replaced; audited (secrets redacted).
     *
     * @throws ApiException 400 {@code ValidationFailed}: the schema's problems (at least one channel; a secret of 16 to
     *                      256 characters; an SNS topic ARN named {@code richter-*}), or {@code $.webhook.url} that is
     *                      not an absolute http(s) URL with a host, or whose host the deployment's networks refuse
     *                      ({@link AllowedNetworks#registrationRefusal})
     */
    ApiResponse put(ApiRequest req) {
        JsonNode doc = validator.parse("NotificationConfig", req.body());
        List<InputProblem> problems = new ArrayList<>();
        if (doc.path("webhook").path("url").isTextual()) {
            String url = doc.path("webhook").path("url").asText();
            try {
                URI u = URI.create(url);
                if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                    problems.add(new InputProblem("$.webhook.url", "must be an absolute http or https URL with a host"));
                } else {
                    networks.registrationRefusal(u.getHost()).ifPresent(r -> problems.add(new InputProblem("$.webhook.url", r)));
                }
            } catch (IllegalArgumentException e) {
                problems.add(new InputProblem("$.webhook.url", "is not a URL: " + e.getMessage()));
            }
        }
        if (!problems.isEmpty()) {
            throw ApiException.validationFailed(problems);
        }
        Optional<JsonNode> before = TeamNotifier.config(repositories, req.teamId());
        repositories.putRegistryDoc(req.teamId(), TeamNotifier.CONFIG_KEY, sealed(repositories, req.teamId(), doc));
        audit.record(req.teamId(), req.caller(), "PutNotifications", TeamNotifier.CONFIG_KEY,
                before.map(NotificationResource::redacted).orElse(null), redacted(doc));
        return ApiResponse.json(before.isEmpty() ? 201 : 200, redacted(doc));
    }

    /**
     * {@code GET /notifications}: {@code {webhook?: {url, secretSet}, snsTopicArn?, deliveries: [{eventId, type, runId,
     * channel, status, attempts, error, atMs}]}}, the last {@value #DELIVERIES_SHOWN} deliveries newest first.
     *
     * @throws ApiException 404 when the team has no subscription
     */
    ApiResponse get(ApiRequest req) {
        JsonNode doc = TeamNotifier.config(repositories, req.teamId()).orElseThrow(() -> new ApiException(404, "NotFound",
                "team " + req.teamId() + " has no notification subscription (PUT /notifications)"));
        Map<String, Object> out = new LinkedHashMap<>(Json.MAPPER.convertValue(redacted(doc), Map.class));
        out.put("deliveries", repositories.latestRegistryDocs(req.teamId(), TeamNotifier.DELIVERY_PREFIX, DELIVERIES_SHOWN)
                .stream().map(d -> Json.read(d, JsonNode.class)).toList());
        return ApiResponse.json(200, out);
    }

    /**
     * The subscription as stored: the webhook's {@code secret} replaced by {@code secretSealed}, the secret sealed for
     * the team ({@link SecretSealer#seal}, purpose {@link SecretSealer#WEBHOOK_SECRET}).
     */
    static JsonNode sealed(Repositories repositories, String teamId, JsonNode doc) {
        ObjectNode copy = doc.deepCopy();
        if (copy.path("webhook").path("secret").isTextual()) {
            ObjectNode hook = (ObjectNode) copy.get("webhook");
            hook.put("secretSealed", repositories.secrets().seal(teamId, SecretSealer.WEBHOOK_SECRET, hook.get("secret").asText()));
            hook.remove("secret");
        }
        return copy;
    }

    /** The subscription with the webhook's secret (plain or sealed) replaced by {@code secretSet: true}. */
    static JsonNode redacted(JsonNode doc) {
        ObjectNode copy = doc.deepCopy();
        if (copy.path("webhook").isObject()) {
            ObjectNode hook = (ObjectNode) copy.get("webhook");
            hook.remove("secret");
            hook.remove("secretSealed");
            hook.put("secretSet", true);
        }
        return copy;
    }
}
