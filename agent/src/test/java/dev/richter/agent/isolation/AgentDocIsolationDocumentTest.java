package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The isolation document of docs/agent.md ("The isolation document") reads, and decides, the way the page says. */
class AgentDocIsolationDocumentTest {
    /** The page, from the module directory surefire runs in. */
    static final Path PAGE = Path.of("../docs/agent.md");

    @Test
    void thePagesDocumentMocksTheStripeExitAndLetsTheScopeThrough() throws Exception {
        String page = Files.readString(PAGE);
        int section = page.indexOf("\n## The isolation document\n");
        assertTrue(section >= 0, "docs/agent.md has a section 'The isolation document'");
        Matcher json = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(page.substring(section));
        assertTrue(json.find(), "the section shows the document");

        Optional<IsolationConfig> config = Optional.of(IsolationConfig.parse(json.group(1).getBytes(StandardCharsets.UTF_8)));

        assertEquals(IsolationMode.ENFORCE, config.get().mode());
        assertEquals(Optional.of("visits_shadow"), config.get().shadows().shadowTable("visits"));
        assertEquals("shadow:stock:", config.get().shadows().cachePrefixes().get("stock:"));
        assertEquals("api.stripe.com/v1/charges", ((ExitDecision.Mock) HttpExitPolicy.decide(true, "POST",
                "api.stripe.com", 443, "/v1/charges", config)).exit());
        assertEquals(ExitDecision.PASS, HttpExitPolicy.decide(true, "GET", "orders.internal", 8080, "/orders", config));
        assertEquals("shop-team", config.get().marker().team(), "the team whose signed markers the service accepts");
        assertTrue(config.get().marker().required());
        // the gRPC mocks: StringValue("ch_test")'s bytes (field 1, length 7, the text) for its authority; a status for any
        assertEquals(new ExitDecision.Mock("payments.internal:9090/shop.Payments/Charge", 0, Map.of(),
                "CgdjaF90ZXN0", 20), GrpcExitPolicy.decide(true, "payments.internal", 9090, "shop.Payments/Charge", config));
        assertEquals(new ExitDecision.Mock("shop.Stock/Reserve", 8, Map.of(), "sold out", 0),
                GrpcExitPolicy.decide(true, "orders.internal", 8080, "shop.Stock/Reserve", config));
    }
}
