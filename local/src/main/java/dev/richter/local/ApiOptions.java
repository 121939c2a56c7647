package dev.richter.local;

import com.nimbusds.jose.JWSAlgorithm;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Where a command of {@code ./richter} sends, and as whom (a picocli mixin of {@code run}, {@code import} and
 * {@code shop}): {@code --api}, {@code --token}, and {@code --team} for a token of the local identity provider.
 */
final class ApiOptions {
    @Option(names = "--api", description = "the API's base URL (default: $RICHTER_API_URL, else " + ImportMain.LOCAL_API + ")")
    String api;

    @Option(names = "--token", description = "a JWT of the deployment's issuer (default: $RICHTER_TOKEN, else a local token)")
    String token;

    @Option(names = "--team", description = "the team of the local token when no token is given (default: " + Demo.TEAM + ")")
    String team = Demo.TEAM;

    /**
     * The API's base URL with no trailing slash: {@code --api} when given, else {@code $RICHTER_API_URL} of {@code env},
     * else {@value ImportMain#LOCAL_API}.
     */
    String base(Map<String, String> env) {
        String base = api != null ? api : env.getOrDefault("RICHTER_API_URL", ImportMain.LOCAL_API);
        return base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    }

    /**
     * The JWT to send: {@code --token} when given, else {@code $RICHTER_TOKEN} of {@code env}, else a new RS256 token of
     * the local identity provider ({@code build/local/idp}) for {@code --team}, caller {@code $USER} (else {@code ci}),
     * good for 2 hours.
     */
    String bearer(Map<String, String> env) {
        String t = token != null ? token : env.getOrDefault("RICHTER_TOKEN", "");
        if (!t.isBlank()) {
            return t;
        }
        return LocalIdentityProvider.loadOrCreate(LocalAwsStack.rootFromEnv().resolve("build/local/idp"))
                .token(team, env.getOrDefault("USER", "ci"), Duration.ofHours(2), JWSAlgorithm.RS256);
    }
}
