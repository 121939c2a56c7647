package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.local.LocalFaults.Component;
import dev.richter.local.LocalFaults.Kind;
import dev.richter.local.LocalFaults.Rule;
import dev.richter.local.LocalFaults.Trigger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LocalFaults}: off by default, parsed from {@code RICHTER_LOCAL_FAULTS}; {@link FaultInjector}'s counting. */
class LocalFaultsTest {
    static final String EXAMPLE = "seed=7,lambda.FaultDeciderFunction=error@from:3,lambda.LoadDriverFunction=crash:3000@nth:2,"
            + "lambda.ProbeFunction=throttle@p:0.5,dynamodb.RunMetricsTable.PutItem=throttle@p:0.3,"
            + "dynamodb.RunsTable.GetItem=internal,events.PutEvents=fail@p:1";

    @TempDir
    Path dir;

    @Test
    void offByDefault() {
        assertTrue(LocalFaults.NONE.isEmpty());
        assertEquals(LocalFaults.NONE, LocalFaults.parse(""));
        assertEquals("none", LocalFaults.NONE.describe());
        if (System.getenv(LocalFaults.ENV_VAR) == null && System.getProperty(LocalFaults.ENV_VAR) == null) {
            assertEquals(LocalFaults.NONE, LocalFaults.fromEnv());
        }
    }

    @Test
    void theSystemPropertyIsReadWhenTheVariableIsUnset() {
        if (System.getenv(LocalFaults.ENV_VAR) != null) {
            return;
        }
        System.setProperty(LocalFaults.ENV_VAR, "lambda.ProbeFunction=timeout");
        try {
            assertEquals(LocalFaults.NONE.with(Rule.lambda("ProbeFunction", Kind.TIMEOUT, Trigger.every())), LocalFaults.fromEnv());
        } finally {
            System.clearProperty(LocalFaults.ENV_VAR);
        }
    }

    @Test
    void parseReadsEveryKindAndTriggerAndEqualsTheProgrammaticForm() {
        LocalFaults f = LocalFaults.parse(" " + EXAMPLE.replace(",", " , ") + " ");
        LocalFaults built = LocalFaults.NONE.withSeed(7).with(
                Rule.lambda("FaultDeciderFunction", Kind.ERROR, Trigger.from(3)),
                Rule.lambdaCrash("LoadDriverFunction", 3000, Trigger.nth(2)),
                Rule.lambda("ProbeFunction", Kind.THROTTLE, Trigger.probability(0.5)),
                Rule.dynamoDb("RunMetricsTable", "PutItem", Kind.THROTTLE, Trigger.probability(0.3)),
                Rule.dynamoDb("RunsTable", "GetItem", Kind.INTERNAL, Trigger.every()),
                Rule.events(Kind.FAIL, Trigger.probability(1)));
        assertEquals(built, f);
        assertEquals(f, LocalFaults.parse(f.spec()), "spec() parses back");
        assertEquals(List.of("lambda.FaultDeciderFunction", "lambda.LoadDriverFunction", "lambda.ProbeFunction",
                "dynamodb.RunMetricsTable.PutItem", "dynamodb.RunsTable.GetItem", "events.PutEvents"),
                f.rules().stream().map(Rule::key).toList());
        assertEquals("crash:3000@nth:2", f.rules().get(1).value());
        assertEquals(2, f.rulesOf(Component.DYNAMODB).size());
    }

    @Test
    void aTableNameWithDotsAndWildcardsParse() {
        Rule r = LocalFaults.parse("dynamodb.my.table.v2.Query=internal").rules().get(0);
        assertEquals("my.table.v2", r.target());
        assertEquals("Query", r.operation());
        Rule any = LocalFaults.parse("dynamodb.*.*=throttle@nth:1").rules().get(0);
        assertTrue(any.matches("richter-runs", "PutItem") && any.matches("", "ListTables"));
        Rule table = LocalFaults.parse("dynamodb.richter-runs.*=throttle").rules().get(0);
        assertTrue(table.matches("richter-runs", "GetItem"));
        assertTrue(!table.matches("richter-plans", "GetItem"));
    }

    @Test
    void errorsNameTheKeyAndTheReason() {
        assertError("lambda.ProbeFunction=explode", "'lambda.ProbeFunction=explode'", "unknown fault 'explode'", "crash:<ms>");
        assertError("lambda.ProbeFunction=internal", "'lambda.ProbeFunction=internal'", "internal", "error, timeout, throttle");
        assertError("dynamodb.RunsTable.PutItem=error", "dynamodb.RunsTable.PutItem", "throttle, internal");
        assertError("dynamodb.RunsTable.Putitem=throttle", "dynamodb.RunsTable.Putitem", "'Putitem' is not a dynamodb operation");
        assertError("dynamodb.RunsTable=throttle", "dynamodb.RunsTable", "dynamodb.<Table>.<Operation>");
        assertError("events.PutRule=fail", "events.PutRule", "'PutRule' is not a events operation");
        assertError("lambda.X=crash", "lambda.X=crash", "crash:<milliseconds>");
        assertError("lambda.X=crash:soon", "lambda.X", "crash delay", "'soon'");
        assertError("lambda.X=crash:-1", "lambda.X", ">= 0");
        assertError("lambda.X=throttle:5", "lambda.X", "takes no ':<value>'");
        assertError("lambda.X=error@p:1.5", "lambda.X", "[0, 1]");
        assertError("lambda.X=error@p:half", "lambda.X", "probability", "'half'");
        assertError("lambda.X=error@nth:0", "lambda.X", "at least 1");
        assertError("lambda.X=error@from:x", "lambda.X", "@from:", "'x'");
        assertError("lambda.X=error@sometimes", "lambda.X", "unknown trigger '@sometimes'");
        assertError("lambda.=error", "lambda.", "target");
        assertError("s3.Bucket=fail", "'s3.Bucket=fail'", "unknown key");
        assertError("seed=seven", "seed", "integer");
        assertError("lambda.X", "'lambda.X'", "has no '=<value>'");
        assertError("lambda.X=error,lambda.X=timeout", "'lambda.X'", "given twice");
    }

    private static void assertError(String spec, String... parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LocalFaults.parse(spec), spec);
        assertTrue(e.getMessage().startsWith(LocalFaults.ENV_VAR + ": "), e.getMessage());
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "'" + p + "' in: " + e.getMessage());
        }
    }

    @Test
    void theSeededProbabilityIsReproduciblePerRuleAndDiffersAcrossSeedsAndRules() {
        Trigger half = Trigger.probability(0.5);
        List<Boolean> a = draws(half, 7, "lambda.ProbeFunction", 200);
        assertEquals(a, draws(half, 7, "lambda.ProbeFunction", 200), "same seed, same rule: same sequence");
        assertNotEquals(a, draws(half, 8, "lambda.ProbeFunction", 200), "another seed");
        assertNotEquals(a, draws(half, 7, "lambda.ReportFunction", 200), "another rule");
        long fired = a.stream().filter(b -> b).count();
        assertTrue(fired > 70 && fired < 130, "about half of 200: " + fired);
        assertTrue(draws(Trigger.probability(1), 7, "k", 100).stream().allMatch(b -> b));
        assertTrue(draws(Trigger.probability(0), 7, "k", 100).stream().noneMatch(b -> b));
        // dynalite.cjs computes the same numbers (local/node/test/faults.test.cjs holds these)
        assertEquals(UNIT_7_DDB, List.of(unit(7, 1), unit(7, 2), unit(7, 3), unit(-3, 4)));
    }

    /** {@link LocalFaults#unit} of {@code dynamodb.richter-t.PutItem}, seeds 7 (calls 1..3) and -3 (call 4), to 9 digits. */
    static final List<String> UNIT_7_DDB = List.of("0.207472726", "0.185862187", "0.672568766", "0.447717699");

    private static String unit(long seed, long k) {
        return String.format(java.util.Locale.ROOT, "%.9f", LocalFaults.unit(seed, "dynamodb.richter-t.PutItem", k));
    }

    private static List<Boolean> draws(Trigger t, long seed, String key, int n) {
        List<Boolean> out = new ArrayList<>();
        for (int k = 1; k <= n; k++) {
            out.add(t.selects(k, seed, key));
        }
        return out;
    }

    @Test
    void nthAndFromCountTheCallsOfTheirTargetFromWhenTheyWereSet() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        FaultInjector faults = new FaultInjector(LocalFaults.parse("lambda.A=error@nth:2,lambda.B=throttle@from:3"),
                dir.resolve("faults.jsonl"), log::add);
        assertEquals(List.of(false, true, false, false), select(faults, "A", 4));
        assertEquals(List.of(false, false, true, true), select(faults, "B", 4));
        assertEquals(List.of(false, false), select(faults, "C", 2), "no rule for C");

        faults.set(faults.current());
        assertEquals(List.of(false, true, false), select(faults, "A", 3), "counting starts again at set()");
        assertEquals(Map.of("lambda.A", 1L, "lambda.B", 0L), faults.fired());
        assertTrue(log.contains("FAULTS ARMED: seed=0,lambda.A=error@nth:2,lambda.B=throttle@from:3"), log.toString());
        faults.clear();
        assertEquals(List.of(false, false), select(faults, "A", 2));
        assertEquals(Map.of(), faults.fired());
    }

    @Test
    void theFirstMatchingRuleThatSelectsFiresAndEveryMatchingRuleCounts() {
        FaultInjector faults = new FaultInjector(LocalFaults.parse("lambda.*=throttle@nth:2,lambda.A=error@from:1"), null, l -> { });
        List<Kind> kinds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            kinds.add(faults.select(Component.LAMBDA, "A", "Invoke").map(s -> s.rule().kind()).orElse(null));
        }
        assertEquals(List.of(Kind.ERROR, Kind.THROTTLE, Kind.ERROR), kinds);
        assertTrue(faults.select(Component.LAMBDA, "B", "Invoke").isEmpty(), "the wildcard counted A's calls: B's is its 4th");
    }

    @Test
    void everyFiredFaultIsOneJsonLineAndALogLine() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Path file = dir.resolve("sub/faults.jsonl");
        FaultInjector faults = new FaultInjector(LocalFaults.parse("lambda.A=error"), file, log::add);
        long before = System.currentTimeMillis();
        for (int i = 0; i < 2; i++) {
            faults.fire(faults.select(Component.LAMBDA, "A", "Invoke").orElseThrow(), "Invoke");
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(2, lines.size());
        JsonNode second = Json.MAPPER.readTree(lines.get(1));
        assertTrue(second.path("atMs").asLong() >= before);
        assertEquals("lambda", second.path("component").asText());
        assertEquals("A", second.path("target").asText());
        assertEquals("Invoke", second.path("operation").asText());
        assertEquals("error", second.path("kind").asText());
        assertEquals(2, second.path("n").asLong());
        assertEquals("lambda.A", second.path("rule").asText());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("FAULT injected: lambda A Invoke error") && l.contains("n=2")), log.toString());
        assertEquals(Map.of("lambda.A", 2L), faults.fired());
    }

    @Test
    void targetsMustBeTemplateFunctionsAndTables() {
        FaultInjector faults = new FaultInjector(LocalFaults.NONE, null, l -> { });
        faults.targets(java.util.Set.of("ProbeFunction"), Map.of("RunsTable", "richter-runs"));
        faults.set(LocalFaults.parse("lambda.ProbeFunction=error,lambda.*=timeout,dynamodb.RunsTable.GetItem=internal,"
                + "dynamodb.richter-runs.PutItem=throttle,dynamodb.*.Query=throttle"));
        var fn = assertThrows(IllegalArgumentException.class, () -> faults.set(LocalFaults.parse("lambda.ProbFunction=error")));
        assertTrue(fn.getMessage().contains("'lambda.ProbFunction' names no function") && fn.getMessage().contains("ProbeFunction"),
                fn.getMessage());
        var table = assertThrows(IllegalArgumentException.class, () -> faults.set(LocalFaults.parse("dynamodb.RunTable.GetItem=internal")));
        assertTrue(table.getMessage().contains("'dynamodb.RunTable.GetItem' names no table") && table.getMessage().contains("RunsTable")
                && table.getMessage().contains("richter-runs"), table.getMessage());
        assertEquals(5, faults.current().rules().size(), "a refused set() keeps the faults armed before");
    }

    @Test
    void theDynamoDbConfigResolvesLogicalIdsToPhysicalNames() {
        LocalFaults f = LocalFaults.parse("seed=-3,dynamodb.RunsTable.GetItem=internal@nth:2,dynamodb.richter-plans.*=throttle@p:0.25,"
                + "dynamodb.*.PutItem=throttle@from:4,lambda.A=error");
        Map<String, Object> config = f.dynamoDbConfig(Map.of("RunsTable", "richter-runs", "PlansTable", "richter-plans"));
        JsonNode tree = Json.MAPPER.valueToTree(config);
        assertEquals("-3", tree.path("seed").asText(), "a string: a long does not fit a JavaScript number");
        assertEquals(List.of("dynamodb.RunsTable.GetItem", "dynamodb.richter-plans.*", "dynamodb.*.PutItem"),
                List.of(tree.path("rules").path(0).path("key").asText(), tree.path("rules").path(1).path("key").asText(),
                        tree.path("rules").path(2).path("key").asText()));
        assertEquals("GetItem", tree.path("rules").path(0).path("operation").asText());
        assertEquals("internal", tree.path("rules").path(0).path("kind").asText());
        assertEquals(2, tree.path("rules").path(0).path("trigger").path("nth").asInt());
        assertEquals("*", tree.path("rules").path(2).path("table").asText());
        assertEquals("richter-runs", tree.path("rules").path(0).path("table").asText());
        assertEquals(0.25, tree.path("rules").path(1).path("trigger").path("p").asDouble());
        assertEquals(4, tree.path("rules").path(2).path("trigger").path("from").asInt());
        assertEquals(3, tree.path("rules").size(), "lambda rules are not dynalite's");
    }

    private static List<Boolean> select(FaultInjector faults, String fn, int n) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            var s = faults.select(Component.LAMBDA, fn, "Invoke");
            s.ifPresent(x -> faults.fire(x, "Invoke"));
            out.add(s.isPresent());
        }
        return out;
    }
}
