package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's isolation document reads, and decides, the way its section says. */
class ReadmeIsolationDocumentTest {

    @Test
    void theReadmesDocumentMocksTheStripeExitAndLetsTheScopeThrough() throws Exception {
        String readme = Files.readString(Path.of("../README.md"));
        int section = readme.indexOf("\n## Isolation without code changes");
        assertTrue(section >= 0, "README has the extension's section");
        Matcher json = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(readme.substring(section));
        assertTrue(json.find());

        Optional<IsolationConfig> config = Optional.of(IsolationConfig.parse(json.group(1).getBytes(StandardCharsets.UTF_8)));

        assertEquals(IsolationMode.ENFORCE, config.get().mode());
        assertEquals(Optional.of("visits_shadow"), config.get().shadows().shadowTable("visits"));
        assertEquals("shadow:stock:", config.get().shadows().cachePrefixes().get("stock:"));
        assertEquals("api.stripe.com/v1/charges", ((ExitDecision.Mock) HttpExitPolicy.decide(true, "POST",
                "api.stripe.com", 443, "/v1/charges", config)).exit());
        assertEquals(ExitDecision.PASS, HttpExitPolicy.decide(true, "GET", "orders.internal", 8080, "/orders", config));
    }
}
