package dev.richter.local;

import com.nimbusds.jose.JWSAlgorithm;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Prints a JWT of the local identity provider ({@code ./richter token}): what a client of the local HTTP API sends as
 * {@code Authorization: Bearer <token>}. The keys are the stack's ({@code build/local/idp}), created when absent, so
 * the token works with a stack started before or after.
 *
 * <p>Options: {@code --team <team>} (default {@value Demo#TEAM}), {@code --sub <caller>} (default {@code $USER}),
 * {@code --ttl-s <seconds>} (default 8 h), {@code --alg RS256|ES256} (default RS256), {@code --issuer <url>} (default
 * {@value LocalIdentityProvider#ISSUER}; the LocalStack path sets its discovery server's URL).
 */
public final class TokenMain {
    private TokenMain() {}

    public static void main(String[] args) {
        String team = Demo.TEAM;
        String sub = System.getenv().getOrDefault("USER", "local-user");
        long ttlS = LocalIdentityProvider.DEFAULT_TTL.toSeconds();
        JWSAlgorithm alg = JWSAlgorithm.RS256;
        String issuer = LocalIdentityProvider.ISSUER;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--team" -> team = require(args[i], value);
                case "--sub" -> sub = require(args[i], value);
                case "--issuer" -> issuer = require(args[i], value);
                case "--ttl-s" -> ttlS = Long.parseLong(require(args[i], value));
                case "--alg" -> alg = switch (require(args[i], value)) {
                    case "RS256" -> JWSAlgorithm.RS256;
                    case "ES256" -> JWSAlgorithm.ES256;
                    default -> usage("--alg takes RS256 or ES256");
                };
                default -> usage("unknown option " + args[i]);
            }
            i++;
        }
        Path root = LocalAwsStack.rootFromEnv();
        System.out.println(LocalIdentityProvider.loadOrCreate(root.resolve("build/local/idp")).withIssuer(issuer)
                .token(team, sub, Duration.ofSeconds(ttlS), alg));
    }

    private static String require(String option, String value) {
        if (value == null || value.isBlank()) {
            usage(option + " needs a value");
        }
        return value;
    }

    private static <T> T usage(String problem) {
        System.err.println(problem + "\nusage: ./richter token [--team <team>] [--sub <caller>] [--ttl-s <seconds>] [--alg RS256|ES256] [--issuer <url>]");
        System.exit(2);
        return null;
    }
}
