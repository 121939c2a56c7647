package dev.richter.links.datastore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.trace.Span;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link DatastoreCall} on the agent's real spans ({@link ShadowSpans}), old and new semconv. */
class DatastoreCallTest {
    private static DatastoreCall call(String resource, String statementOrTopic) {
        List<Span> spans = ShadowSpans.parse(resource).spans();
        return spans.stream().map(DatastoreCall::of).flatMap(Optional::stream)
                .filter(c -> c.statement().equals(statementOrTopic) || c.targets().contains(statementOrTopic)
                        && c.kind().equals(DatastoreCall.TOPIC))
                .findFirst().orElseThrow(() -> new AssertionError("no call " + statementOrTopic));
    }

    @Test
    void oldSemconvTableAttributeWinsAndTheOperationSaysWrite() {
        DatastoreCall insert = call(ShadowSpans.SHOP, "INSERT INTO visits (page) VALUES (?)");
        assertEquals(new DatastoreCall("table", "h2", "mem:shop", "INSERT", true, false, List.of("visits"), List.of(),
                "INSERT INTO visits (page) VALUES (?)", ""), insert);
        DatastoreCall select = call(ShadowSpans.SHOP, "SELECT name FROM customers");
        assertEquals(List.of("customers"), select.read());
        assertFalse(select.write());
    }

    @Test
    void aJoinWithoutTableAttributeIsParsedIntoItsTables() {
        DatastoreCall join = call(ShadowSpans.INVENTORY, "SELECT v.page FROM visits v JOIN customers c ON v.page = c.name");
        assertEquals("h2database", join.system(), "db.system.name of the new semconv");
        assertEquals("mem:shop", join.namespace());
        assertEquals(List.of(), join.written());
        assertEquals(List.of("visits", "customers"), join.read());
        assertEquals("", join.problem());
    }

    @Test
    void redisKeysAndCommandsAndMessagingDestinations() {
        DatastoreCall set = call(ShadowSpans.INVENTORY, "SET stock:B2 ?");
        assertEquals(new DatastoreCall("cache", "redis", "", "SET", true, false, List.of("stock:B2"), List.of(),
                "SET stock:B2 ?", ""), set);
        DatastoreCall get = call(ShadowSpans.SHOP, "GET config:flag");
        assertEquals(List.of("config:flag"), get.read());
        DatastoreCall client = call(ShadowSpans.SHOP, "CLIENT SETINFO LIB-NAME jedis");
        assertTrue(client.control());
        assertEquals(List.of(), client.targets());
        DatastoreCall publish = call(ShadowSpans.SHOP, "payments");
        assertEquals(new DatastoreCall("topic", "kafka", "", "PUBLISH", true, false, List.of("payments"), List.of(), "",
                ""), publish);
    }

    @Test
    void sqlTargetsSplitWrittenFromReadTablesAndRefuseWhatDoesNotParse() {
        assertEquals(new SqlTargets.Tables("UPDATE", List.of("visits"), List.of("customers")),
                SqlTargets.parse("UPDATE visits SET page = ? WHERE page IN (SELECT name FROM customers)"));
        assertEquals(new SqlTargets.Tables("INSERT", List.of("SALES.entries"), List.of("customers")),
                SqlTargets.parse("INSERT INTO \"SALES\".\"entries\" SELECT name FROM customers"));
        assertEquals(new SqlTargets.Tables("TRUNCATE", List.of("visits"), List.of()), SqlTargets.parse("TRUNCATE TABLE visits"));
        assertEquals(new SqlTargets.Tables("CALL", List.of(), List.of(), "calls a procedure: refresh"),
                SqlTargets.parse("CALL refresh(?)"));
        assertTrue(SqlTargets.writes("CALL"), "a procedure may write");
        assertFalse(SqlTargets.writes("select"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SqlTargets.parse("INSERT INTO visits (page) DIRECT SELECT name FROM customers"));
        assertTrue(e.getMessage().startsWith("statement does not parse as SQL (Encountered unexpected token: \"DIRECT\""),
                e.getMessage());
    }

    @Test
    void redisCommandsNameTheirKeys() {
        assertEquals(new RedisCommands.Command("MSET", List.of("a:1", "b:2")), RedisCommands.parse("MSET a:1 ? b:2 ?"));
        assertEquals(new RedisCommands.Command("DEL", List.of("a:1", "b:2")), RedisCommands.parse("del a:1 b:2"));
        assertTrue(RedisCommands.parse("FLUSHALL").writes());
        assertEquals(List.of(), RedisCommands.parse("FLUSHALL").keys());
        assertEquals("stock:", RedisCommands.keySpace("stock:A1"));
        assertEquals("shadow:stock:", RedisCommands.keySpace("shadow:stock:A1"));
        assertEquals("counter", RedisCommands.keySpace("counter"));
    }

    @Test
    void dynamoDbCallsNameTheirTablesFromTheAwsSdkSpans() {
        List<DatastoreCall> calls = ShadowSpans.parse(ShadowSpans.ORDER_DYNAMODB).spans().stream().map(DatastoreCall::of)
                .flatMap(Optional::stream).toList();
        DatastoreCall production = new DatastoreCall("dynamodb", "dynamodb", "", "PUTITEM", true, false,
                List.of("orders"), List.of(), "", "");
        DatastoreCall shadow = new DatastoreCall("dynamodb", "dynamodb", "", "PUTITEM", true, false,
                List.of("orders_shadow"), List.of(), "", "");
        assertEquals(List.of(production, shadow, shadow, shadow), calls);
    }

    @Test
    void dynamoDbTableNamesAreReadFromEveryShapeOfTheArrayAndOperationsSplitReadFromWrite() {
        assertEquals(List.of("orders", "carts"), DatastoreCall.tableNames("{\"values\":[{\"stringValue\":\"orders\"},"
                + "{\"stringValue\":\"carts\"}]}"));
        assertEquals(List.of("orders", "carts"), DatastoreCall.tableNames("[\"orders\",\"carts\"]"));
        assertEquals(List.of("orders", "carts"), DatastoreCall.tableNames("orders, carts"));
        assertEquals(List.of("orders"), DatastoreCall.tableNames("arn:aws:dynamodb:eu-west-1:123456789012:table/orders"));
        assertEquals(List.of(), DatastoreCall.tableNames(""));
        assertTrue(DatastoreCall.dynamoDbWrites("TransactWriteItems"));
        assertTrue(DatastoreCall.dynamoDbWrites("ExecuteStatement"), "PartiQL may write");
        assertTrue(DatastoreCall.dynamoDbWrites("SomeNewOperation"), "an operation not known to read counts as a write");
        assertFalse(DatastoreCall.dynamoDbWrites("BatchGetItem"));
        assertFalse(DatastoreCall.dynamoDbWrites("query"));
    }
}
