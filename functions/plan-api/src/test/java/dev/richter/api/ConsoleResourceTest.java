package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /console} and {@code GET /console/{file}} through the Lambda handler, without a team: the console's
 * files, its sign-in configuration from the environment, and a Content-Security-Policy that forbids inline scripts.
 */
class ConsoleResourceTest {
    private final RegistryApiHarness api = new RegistryApiHarness();

    @SuppressWarnings("unchecked")
    private static Map<String, String> headers(Map<String, Object> response) {
        return (Map<String, String>) response.get("headers");
    }

    @Test
    void thePageAndItsFilesAreServedWithoutATeamUnderAPolicyThatAllowsOnlyThisOriginsScripts() {
        Map<String, Object> page = api.call(Routes.CONSOLE, "", Map.of(), Map.of(), null);
        assertEquals(200, page.get("statusCode"), String.valueOf(page));
        String html = (String) page.get("body");
        assertTrue(html.contains("<script type=\"module\" src=\"console/app.js\"></script>"), html);
        assertFalse(html.matches("(?s).*<script(?![^>]*\\bsrc=)[^>]*>.*"), "no inline script: " + html);
        String csp = headers(page).get("Content-Security-Policy");
        assertTrue(csp.contains("script-src 'self';") && csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"), csp);
        assertFalse(csp.contains("unsafe-inline") || csp.contains("unsafe-eval"), csp);
        assertEquals("text/html; charset=utf-8", headers(page).get("content-type"));
        assertEquals("nosniff", headers(page).get("X-Content-Type-Options"));

        for (String file : new String[] {"app.js", "style.css"}) {
            Map<String, Object> r = api.call(Routes.CONSOLE_FILE, "", Map.of("file", file), Map.of(), null);
            assertEquals(200, r.get("statusCode"), file);
            assertEquals(csp, headers(r).get("Content-Security-Policy"));
        }
        assertTrue(((String) api.call(Routes.CONSOLE_FILE, "", Map.of("file", "app.js"), Map.of(), null).get("body"))
                .contains("code_challenge_method: 'S256'"), "the console signs in with PKCE");
    }

    @Test
    void theRunChartsAreTheReportsOwnScriptAndUPlot() {
        Map<String, Object> page = api.call(Routes.CONSOLE, "", Map.of(), Map.of(), null);
        String html = (String) page.get("body");
        assertTrue(html.indexOf("src=\"console/uplot.js\"") < html.indexOf("src=\"console/run-charts.js\"")
                && html.indexOf("src=\"console/run-charts.js\"") > 0, "uPlot, then the charts, before the app: " + html);
        Map<String, String> shared = Map.of("uplot.js", dev.richter.report.UPlot.js(), "uplot.css", dev.richter.report.UPlot.css(),
                "run-charts.js", dev.richter.report.RunCharts.js());
        shared.forEach((file, text) -> {
            Map<String, Object> r = api.call(Routes.CONSOLE_FILE, "", Map.of("file", file), Map.of(), null);
            assertEquals(200, r.get("statusCode"), file);
            assertEquals(text, r.get("body"), file + " is the text the HTML report inlines");
        });
        assertTrue(dev.richter.report.RunCharts.js().contains("function fromReport(r)"), "the console draws a report's series");
    }

    @Test
    void aNameTheConsoleDoesNotHaveIs404() {
        for (String name : new String[] {"nope.js", "../openapi.json", "App.js", "index.html.bak", ""}) {
            Map<String, Object> r = api.call(Routes.CONSOLE_FILE, "", Map.of("file", name), Map.of(), null);
            assertEquals(404, r.get("statusCode"), name);
            assertEquals("NoSuchFile", RegistryApiHarness.body(r).path("error").asText(), name);
        }
    }

    @Test
    void configTellsTheConsoleHowToSignInAndThePolicyLetsItReachTheIssuer() {
        ConsoleResource aws = new ConsoleResource(Map.of("OIDC_ISSUER", "https://login.example.com/realms/shop",
                "OIDC_AUDIENCE", "richter-api")::get);
        ApiRequest req = new ApiRequest(Routes.CONSOLE_FILE, "GET", "/console/config.json", Map.of("file", "config.json"),
                Map.of(), Map.of(), new byte[0], "", "");
        JsonNode c = dev.richter.common.Json.read(aws.get(req).body(), JsonNode.class);
        assertEquals("https://login.example.com/realms/shop", c.path("issuer").asText());
        assertEquals("richter-api", c.path("clientId").asText(), "no client id: the API's audience");
        assertEquals("", c.path("authorizationEndpoint").asText(), "empty: the console reads the issuer's discovery");
        assertTrue(aws.policy().contains("connect-src 'self' https://login.example.com;"), aws.policy());
        assertEquals("no-store", aws.get(req).headers().get("Cache-Control"));

        ConsoleResource local = new ConsoleResource(Map.of("OIDC_ISSUER", "https://idp.richter.localhost", "OIDC_AUDIENCE",
                "richter-local", "CONSOLE_CLIENT_ID", "console", "CONSOLE_AUTHORIZATION_ENDPOINT", "/idp/authorize",
                "CONSOLE_TOKEN_ENDPOINT", "/idp/token")::get);
        JsonNode l = dev.richter.common.Json.read(local.get(req).body(), JsonNode.class);
        assertEquals("console", l.path("clientId").asText());
        assertEquals("/idp/token", l.path("tokenEndpoint").asText());
        assertTrue(local.policy().contains("form-action 'self';"), "relative endpoints are this origin: " + local.policy());
    }
}
