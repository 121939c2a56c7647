package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.net.AllowedNetworks;
import dev.richter.sdk.MarkerProof;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Check {@value #NAME}: before a formal step loads a service, its team has shown that it runs it (issue 41, "targets
 * a team owns"). Run in the dynamic gate, after the pre-test: a service may get the pre-test's few requests before it
 * has shown it, and nothing more. Per service, one of two pieces of evidence:
 * <ol>
 *   <li>the service's own Richter extension loaded the team's isolation document naming it ({@code GET
 *       /safety/isolation?service=<name>} with the team's token) within the last {@value #ISOLATION_LOAD_MAX_AGE_H}
 *       hours ({@code Repositories.isolationLoadedAtMs});</li>
 *   <li>or the service answers its ownership token ({@link MarkerProof#ownershipToken}, shown by {@code GET
 *       /services/<name>}) as the body of {@code GET <baseUrl>}{@value MarkerProof#OWNERSHIP_PATH}: the address
 *       itself vouches for the team, as a domain does for a certificate authority's HTTP challenge (RFC 8555 §8.3).
 *       The address is checked against the deployment's networks first; no redirect is followed.</li>
 * </ol>
 * FAIL per service that shows neither, naming what was tried; PASS naming the evidence.
 */
public final class TargetOwnedCheck {
    /** The check's name in reports. */
    public static final String NAME = "target-owned";
    /** How old an isolation load may be to count, hours. */
    public static final long ISOLATION_LOAD_MAX_AGE_H = 24;

    /** What a service answered at its ownership path: a status and a body, or why there was no answer. */
    public record OwnershipAnswer(int status, String body, String error) {}

    private TargetOwnedCheck() {}

    /**
     * @param teamId             the run's team
     * @param services           the services the run loads or watches
     * @param token              a service's expected ownership token
     * @param isolationLoadedAt  when a service's extension last loaded the team's isolation document, epoch ms
     * @param fetch              {@code GET <url>} of an ownership path ({@link #fetcher})
     * @param nowMs              epoch ms
     * @return one result per service, in order
     */
    public static List<CheckResult> check(String teamId, List<RegisteredService> services, Function<String, String> token,
                                          Function<String, Optional<Long>> isolationLoadedAt,
                                          Function<String, OwnershipAnswer> fetch, long nowMs) {
        List<CheckResult> out = new ArrayList<>();
        for (RegisteredService s : services) {
            Optional<Long> loaded = isolationLoadedAt.apply(s.name());
            if (loaded.isPresent() && loaded.get() >= nowMs - ISOLATION_LOAD_MAX_AGE_H * 3_600_000L) {
                out.add(new CheckResult(NAME, CheckResult.Outcome.PASS, s.name(), "its Richter extension loaded team "
                        + teamId + "'s isolation document at " + Instant.ofEpochMilli(loaded.get())));
                continue;
            }
            String url = stripSlash(s.baseUrl()) + MarkerProof.OWNERSHIP_PATH;
            OwnershipAnswer a = fetch.apply(url);
            String expected = token.apply(s.name());
            if (a.error().isEmpty() && a.status() == 200 && a.body().strip().equals(expected)) {
                out.add(new CheckResult(NAME, CheckResult.Outcome.PASS, s.name(), url + " answered team " + teamId
                        + "'s ownership token"));
                continue;
            }
            String answered = !a.error().isEmpty() ? "could not be read (" + a.error() + ")"
                    : a.status() != 200 ? "answered " + a.status() : "answered another text than the token";
            out.add(new CheckResult(NAME, CheckResult.Outcome.FAIL, s.name(), "team " + teamId + " has not shown that it"
                    + " runs " + s.name() + ": no Richter extension of it loaded the team's isolation document in the"
                    + " last " + ISOLATION_LOAD_MAX_AGE_H + " h" + loaded.map(at -> " (last at " + Instant.ofEpochMilli(at) + ")").orElse("")
                    + ", and " + url + " " + answered + "; serve the token of GET /services/" + s.name()
                    + " (ownership) there, or run its extension with the team's isolation document: the formal stage"
                    + " loads only services their team has shown it runs"));
        }
        return out;
    }

    /**
     * {@code GET <url>} with {@code http} (2 s, no redirect followed), after {@code networks} allowed its host on what
     * it resolves to now; the body is read up to 1 KiB.
     */
    public static Function<String, OwnershipAnswer> fetcher(HttpClient http, AllowedNetworks networks) {
        return url -> {
            try {
                URI uri = URI.create(url);
                Optional<String> refused = networks.refusal(uri.getHost());
                if (refused.isPresent()) {
                    return new OwnershipAnswer(0, "", "not called: " + refused.get());
                }
                HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                byte[] body = r.body();
                int n = Math.min(body.length, 1024);
                return new OwnershipAnswer(r.statusCode(), new String(body, 0, n, StandardCharsets.UTF_8), "");
            } catch (java.io.IOException | IllegalArgumentException e) {
                return new OwnershipAnswer(0, "", e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new OwnershipAnswer(0, "", "interrupted");
            }
        };
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
