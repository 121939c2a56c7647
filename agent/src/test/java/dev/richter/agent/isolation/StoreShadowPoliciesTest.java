package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The document's {@code shadows}, and the rules for a JDBC URL, a pooled connection and a Redis key. */
class StoreShadowPoliciesTest {
    private static final Shadows SHADOWS = SqlShadowPolicyTest.shadows("""
            [{"kind": "schema", "production": "billing", "shadow": "billing_shadow", "service": "shop"},
             {"kind": "cache", "production": "stock:", "shadow": "shadow:stock:", "service": "shop"},
             {"kind": "cache", "production": "stock:eu:", "shadow": "shadow:stock-eu:", "service": "shop"},
             {"kind": "topic", "production": "orders", "shadow": "orders-shadow", "service": "shop"}]
            """);

    @Test
    void theDocumentsShadowsAreReadByKind() {
        IsolationConfig c = IsolationConfig.parse("""
                {"mocks": [], "shadows": [{"kind": "table", "production": "Visits", "shadow": "visits_shadow", "service": "s"}]}
                """.getBytes(StandardCharsets.UTF_8));
        assertEquals(Optional.of("visits_shadow"), c.shadows().shadowTable("VISITS"));
        assertEquals(List.of("stock:eu:", "stock:"), List.copyOf(SHADOWS.cachePrefixes().keySet()), "longest first");
        assertEquals("orders-shadow", SHADOWS.topics().get("orders"));
        IllegalArgumentException kind = assertThrows(IllegalArgumentException.class, () -> IsolationConfig.parse("""
                {"mocks": [], "shadows": [{"kind": "bucket", "production": "a", "shadow": "b", "service": "s"}]}
                """.getBytes(StandardCharsets.UTF_8)));
        assertEquals("shadows[0].kind: must be one of table, schema, cache, topic, dynamodb, queue, sns-topic, s3,"
                + " event-bus, kinesis-stream", kind.getMessage());
        assertThrows(IllegalArgumentException.class, () -> IsolationConfig.parse("""
                {"mocks": [], "shadows": [{"kind": "table", "production": "a", "shadow": "a", "service": "s"}]}
                """.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aMarkedConnectionsUrlNamesTheShadowDatabaseAndNeverTouchesTheHost() {
        assertEquals(Optional.of("jdbc:postgresql://billing:5432/billing_shadow?ssl=true"),
                DatabaseShadowPolicy.url("jdbc:postgresql://billing:5432/billing?ssl=true", SHADOWS).rewritten());
        assertEquals(Optional.of("jdbc:mysql://billing/billing_shadow"),
                DatabaseShadowPolicy.url("jdbc:mysql://billing/billing", SHADOWS).rewritten());
        assertEquals(Optional.of("jdbc:h2:tcp://db:9092/mem:billing_shadow;DB_CLOSE_DELAY=-1"),
                DatabaseShadowPolicy.url("jdbc:h2:tcp://db:9092/mem:billing;DB_CLOSE_DELAY=-1", SHADOWS).rewritten());
        assertEquals(Optional.of("jdbc:sqlserver://db;databaseName=billing_shadow"),
                DatabaseShadowPolicy.url("jdbc:sqlserver://db;databaseName=billing", SHADOWS).rewritten());
        assertEquals(ShadowDecision.UNTOUCHED, DatabaseShadowPolicy.url("jdbc:postgresql://billing/shop", SHADOWS));
        ShadowDecision already = DatabaseShadowPolicy.url("jdbc:mysql://db/billing_shadow", SHADOWS);
        assertEquals(Optional.empty(), already.rewritten());
        assertEquals("billing_shadow", already.shadowTarget());
    }

    @Test
    void aPooledConnectionIsSwitchedBySchemaElseByCatalog() {
        assertEquals(Optional.of("schema=billing_shadow"),
                DatabaseShadowPolicy.connection("shop", "BILLING", SHADOWS).rewritten());
        assertEquals(Optional.of("catalog=billing_shadow"),
                DatabaseShadowPolicy.connection("billing", "", SHADOWS).rewritten());
        assertEquals(ShadowDecision.UNTOUCHED, DatabaseShadowPolicy.connection("shop", "public", SHADOWS));
    }

    @Test
    void aMarkedKeyGetsItsLongestShadowPrefixAndAWriteToAnUnmappedKeyIsRefused() {
        assertEquals(Optional.of("shadow:stock:1"),
                RedisKeyPolicy.decide("SET", "stock:1", SHADOWS, IsolationMode.ENFORCE).rewritten());
        assertEquals(Optional.of("shadow:stock-eu:1"),
                RedisKeyPolicy.decide("GET", "stock:eu:1", SHADOWS, IsolationMode.ENFORCE).rewritten());
        assertEquals(Optional.empty(),
                RedisKeyPolicy.decide("SET", "shadow:stock:1", SHADOWS, IsolationMode.ENFORCE).rewritten());
        assertEquals(ShadowDecision.UNTOUCHED, RedisKeyPolicy.decide("GET", "config:x", SHADOWS, IsolationMode.ENFORCE));
        ShadowDecision refused = RedisKeyPolicy.decide("DEL", "session:9", SHADOWS, IsolationMode.ENFORCE);
        assertTrue(refused.refused());
        assertTrue(refused.refusal().contains("key 'session:9'"), refused.refusal());
        assertTrue(RedisKeyPolicy.decide("FLUSHALL", "", SHADOWS, IsolationMode.ENFORCE).refused());
        assertEquals(ShadowDecision.UNTOUCHED, RedisKeyPolicy.decide("PING", "", SHADOWS, IsolationMode.ENFORCE));
        assertInstanceOf(ExitDecision.WouldRefuse.class,
                RedisKeyPolicy.decide("DEL", "session:9", SHADOWS, IsolationMode.REPORT).verdict());
    }

    @Test
    void aMarkedRecordGoesToTheShadowTopicAndOneToATopicWithoutAShadowIsRefused() {
        assertEquals(Optional.of("orders-shadow"), TopicPolicy.decide("orders", SHADOWS, IsolationMode.ENFORCE).rewritten());
        assertEquals("orders-shadow", TopicPolicy.decide("orders-shadow", SHADOWS, IsolationMode.ENFORCE).shadowTarget());
        ShadowDecision refused = TopicPolicy.decide("payments", SHADOWS, IsolationMode.ENFORCE);
        assertTrue(refused.refused());
        assertTrue(refused.refusal().contains("topic 'payments'"), refused.refusal());
        assertInstanceOf(ExitDecision.WouldRefuse.class, TopicPolicy.decide("payments", SHADOWS, IsolationMode.REPORT).verdict());
    }
}
