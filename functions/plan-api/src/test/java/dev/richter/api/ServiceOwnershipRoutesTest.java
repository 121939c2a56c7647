package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 41, targets a team owns: {@code POST /services} refuses an address (host and port, {@code
 * TargetAddress.authority}) that another team registered, whatever the path or spelling, with a 409 that names the
 * address and not the team; the address is free again once its owner's last service there is gone.
 */
class ServiceOwnershipRoutesTest {
    private final RegistryApiHarness api = new RegistryApiHarness();
    private final Repositories repositories = new Repositories(api.dynamoDb(),
            new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit"), api.secrets());

    private Map<String, Object> register(String team, String name, String baseUrl) {
        return api.call("POST /services", team, Map.of(), Map.of(),
                Json.write(Map.of("name", name, "baseUrl", baseUrl)).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anotherTeamsAddressIsA409NamingTheAddressAndNothingIsStored() {
        assertEquals(201, register("t1", "orders", "http://orders.internal:8080").get("statusCode"));
        var taken = register("t2", "orders", "http://Orders.Internal:8080/v2");
        assertEquals(409, taken.get("statusCode"), String.valueOf(taken.get("body")));
        var body = RegistryApiHarness.body(taken);
        assertEquals("AddressOwned", body.path("error").asText());
        assertTrue(body.path("message").asText().contains("orders.internal:8080"), body.toString());
        assertTrue(!body.toString().contains("t1"), "the owner is not named: " + body);
        assertEquals(404, api.call("GET /services/{name}", "t2", Map.of("name", "orders"), Map.of(), null).get("statusCode"),
                "nothing stored for a refused service");
        assertEquals(Optional.of("t1"), repositories.addressOwner("orders.internal:8080"));
    }

    @Test
    void theAddressIsFreedWithItsOwnersLastServiceThereAndMovingAServiceFreesItsOldAddress() {
        assertEquals(201, register("t1", "orders", "http://orders.internal:8080").get("statusCode"));
        assertEquals(201, register("t1", "orders-v2", "http://orders.internal:8080/v2").get("statusCode"),
                "one team may have several services at its address");
        assertEquals(204, api.call("DELETE /services/{name}", "t1", Map.of("name", "orders"), Map.of(), null).get("statusCode"));
        assertEquals(Optional.of("t1"), repositories.addressOwner("orders.internal:8080"), "orders-v2 still loads it");
        assertEquals(200, register("t1", "orders-v2", "http://orders-v2.internal:8080").get("statusCode"));
        assertEquals(Optional.empty(), repositories.addressOwner("orders.internal:8080"), "moved away: freed");
        assertEquals(Optional.of("t1"), repositories.addressOwner("orders-v2.internal:8080"));
        assertEquals(201, register("t2", "orders", "http://orders.internal:8080").get("statusCode"));
        assertEquals(409, register("t1", "back", "http://orders.internal:8080").get("statusCode"), "now t2's");
    }

    /**
     * An address registered before ownership existed, then claimed by another team: the first team's plan naming it is
     * refused where it names the service, as its runs are.
     */
    @Test
    void aPlanNamingAServiceWhoseAddressAnotherTeamOwnsIsA400AtThatService() {
        assertEquals(201, register("t1", "orders", "http://orders.internal:8080").get("statusCode"));
        repositories.releaseAddress("t1", "orders.internal:8080");
        assertEquals(201, register("t2", "orders", "http://orders.internal:8080").get("statusCode"));
        var scenario = Map.of("name", "s", "service", "orders",
                "requests", java.util.List.of(Map.of("method", "GET", "path", "/")));
        String plan = Json.write(Map.of("name", "p", "scenarios", java.util.List.of(scenario),
                "preTest", Map.of("qps", 1, "durationS", 5),
                "formal", Map.of("steps", java.util.List.of(Map.of("qps", 1, "durationS", 5))),
                "coreModules", java.util.List.of("orders")));
        var refused = api.call("POST /plans", "t1", Map.of(), Map.of(), plan.getBytes(StandardCharsets.UTF_8));
        assertEquals(400, refused.get("statusCode"), String.valueOf(refused.get("body")));
        var errors = RegistryApiHarness.body(refused).path("errors");
        assertEquals("$.scenarios[0].service", errors.get(0).path("path").asText(), errors.toString());
        assertTrue(errors.get(0).path("reason").asText().contains("orders.internal:8080, which another team owns"), errors.toString());
        assertEquals("$.coreModules[0]", errors.get(1).path("path").asText(), errors.toString());
        assertEquals(201, api.call("POST /plans", "t2", Map.of(), Map.of(), plan.getBytes(StandardCharsets.UTF_8)).get("statusCode"),
                "the owner's plan is stored");
    }

    /**
     * How a service shows its team runs it ({@code target-owned}): the registration answers the path and the token
     * (the team's key, this service), and a read of the isolation document naming the service is recorded.
     */
    @Test
    void theRegistrationAnswersTheOwnershipTokenAndAnIsolationReadNamingTheServiceIsRecorded() {
        var created = register("t1", "orders", "http://orders.internal:8080");
        var ownership = RegistryApiHarness.body(created).path("ownership");
        assertEquals(dev.richter.sdk.MarkerProof.OWNERSHIP_PATH, ownership.path("path").asText());
        assertEquals(dev.richter.sdk.MarkerProof.ownershipToken(repositories.markerKeys("t1").get(0), "t1", "orders"),
                ownership.path("token").asText());
        api.assertConforms("Service", RegistryApiHarness.body(created));
        assertTrue(ownership.path("isolationLoadedAtMs").isMissingNode(), "no extension loaded anything yet");
        assertEquals(Optional.empty(), repositories.isolationLoadedAtMs("t1", "orders"));

        assertEquals(200, api.call("GET /safety/isolation", "t1", Map.of(), Map.of("service", "orders"), null).get("statusCode"));
        long at = repositories.isolationLoadedAtMs("t1", "orders").orElseThrow();
        assertTrue(at > 1_700_000_000_000L);
        var read = RegistryApiHarness.body(api.call("GET /services/{name}", "t1", Map.of("name", "orders"), Map.of(), null));
        assertEquals(at, read.path("ownership").path("isolationLoadedAtMs").asLong());
        assertEquals(Optional.empty(), repositories.isolationLoadedAtMs("t2", "orders"), "another team's read is its own");
        assertEquals(200, api.call("GET /safety/isolation", "t1", Map.of(), Map.of(), null).get("statusCode"));
    }

    @Test
    void aContainerRecordsAServicesIsolationLoadOnceAMinuteWhateverTheNumberOfFetches() {
        assertEquals(201, register("t1", "orders", "http://orders.internal:8080").get("statusCode"));
        assertEquals(201, register("t1", "payment", "http://payment.internal:8080").get("statusCode"));
        int before = api.updates.get();
        for (int i = 0; i < 20; i++) {
            assertEquals(200, api.call("GET /safety/isolation", "t1", Map.of(), Map.of("service", "orders"), null)
                    .get("statusCode"));
        }
        assertEquals(1, api.updates.get() - before, "20 refreshes of one service's JVMs in a minute: one write");
        assertEquals(200, api.call("GET /safety/isolation", "t1", Map.of(), Map.of("service", "payment"), null)
                .get("statusCode"));
        assertEquals(2, api.updates.get() - before, "another service is recorded on its own");
    }

    @Test
    void aRegistrationWhoseStoreFailsLeavesNoClaimOnTheAddress() {
        api.failingPutPrefix = "service#";
        api.failPutsWithPrefix = 1;
        assertEquals(500, register("t1", "orders", "http://orders.internal:8080").get("statusCode"));
        assertEquals(Optional.empty(), repositories.addressOwner("orders.internal:8080"), "the claim was given up");
        assertEquals(Optional.empty(), repositories.getService("t1", "orders"));
        assertEquals(201, register("t2", "orders", "http://orders.internal:8080").get("statusCode"),
                "another team can register the address");
    }
}
