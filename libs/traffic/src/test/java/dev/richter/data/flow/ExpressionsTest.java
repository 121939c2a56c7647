package dev.richter.data.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import dev.richter.data.flow.Expressions.ExpressionException;
import org.junit.jupiter.api.Test;

class ExpressionsTest {
    private final Expressions sandbox = new Expressions(200, 100, 10_000, 10_000);

    @Test
    void evaluatesOverJsonInput() {
        var out = sandbox.evaluate("{\"sku\": items[stock > 0][0].sku, \"n\": $count(items)}",
                Json.MAPPER.valueToTree(java.util.Map.of("items", java.util.List.of(
                        java.util.Map.of("sku", "A", "stock", 0), java.util.Map.of("sku", "B", "stock", 3)))));
        assertEquals("B", out.path("sku").asText());
        assertEquals(2, out.path("n").asInt());
    }

    @Test
    void hugeRangeIsStoppedBySizeBudget() {
        var e = assertThrows(ExpressionException.class, () -> sandbox.evaluate("[1..100000000]", Json.MAPPER.createObjectNode()));
        assertTrue(e.getMessage().startsWith("D2014 "), "the library refuses ranges over 10^7 items itself: " + e.getMessage());
        var e2 = assertThrows(ExpressionException.class, () -> sandbox.evaluate("$count([1..5000000].($ * 2))", Json.MAPPER.createObjectNode()));
        assertEquals("size budget of 10000 bytes exceeded: an array of 5000000 items", e2.getMessage(),
                "a range the library allows is stopped as soon as it is built");
    }

    @Test
    void deepRecursionIsStoppedByDepthBudget() {
        var e = assertThrows(ExpressionException.class,
                () -> sandbox.evaluate("($f := function($n){ 1 + $f($n + 1) }; $f(0))", Json.MAPPER.createObjectNode()));
        assertTrue(e.getMessage().startsWith("depth budget of 100"), e.getMessage());
    }

    @Test
    void tailRecursionRunsUntilTheTimeBudget() {
        var e = assertThrows(ExpressionException.class,
                () -> sandbox.evaluate("($f := function($n){ $f($n + 1) }; $f(0))", Json.MAPPER.createObjectNode()));
        assertEquals("time budget of 200 ms exceeded", e.getMessage());
    }

    @Test
    void longLoopIsStoppedByTimeBudget() {
        Expressions wide = new Expressions(100, 100, 10_000, 1_000_000_000);
        long start = System.nanoTime();
        var e = assertThrows(ExpressionException.class,
                () -> wide.evaluate("$sum([1..10000].($sum([1..10000].($ * $ % 7))))", Json.MAPPER.createObjectNode()));
        assertEquals("time budget of 100 ms exceeded", e.getMessage());
        // run to its end, the loop's 10^8 evaluations take minutes (its 9 * 10^6 take 10 s here); the bound is loose
        // because these machines are shared and noisy
        assertTrue((System.nanoTime() - start) / 1_000_000 < 10_000, "stopped soon after the budget");
    }

    @Test
    void stringDoublingIsStoppedBySizeBudget() {
        var e = assertThrows(ExpressionException.class, () -> sandbox.evaluate(
                "($d := function($s, $n){ $n = 0 ? $s : $d($s & $s, $n - 1) }; $d(\"x\", 40))", Json.MAPPER.createObjectNode()));
        assertTrue(e.getMessage().startsWith("size budget of 10000 bytes exceeded: a string of"), e.getMessage());
    }

    @Test
    void evalIsDenied() {
        var e = assertThrows(ExpressionException.class, () -> sandbox.evaluate("$eval(\"1 + 1\")", Json.MAPPER.createObjectNode()));
        assertTrue(e.getMessage().contains("$eval is not allowed"), e.getMessage());
    }

    @Test
    void inputOverBudgetIsRefused() {
        var e = assertThrows(ExpressionException.class, () -> sandbox.evaluate("$", Json.MAPPER.valueToTree("x".repeat(20_000))));
        assertEquals("input of 20002 bytes is over the size budget of 10000 bytes", e.getMessage());
    }

    @Test
    void syntaxErrorNamesPosition() {
        var e = assertThrows(ExpressionException.class, () -> Expressions.parse("foo(("));
        assertTrue(e.getMessage().matches("S0\\d{3} .*"), e.getMessage());
    }

    @Test
    void builtinsThatCouldAllocateBeyondTheBudgetAreRefusedBeforeTheyDo() {
        // the size budget is under test: a time budget no shared machine reaches, so only the size rules can stop these
        Expressions sandbox = new Expressions(60_000, this.sandbox.maxDepth(), this.sandbox.maxInputBytes(),
                this.sandbox.maxOutputBytes());
        var pad = assertThrows(ExpressionException.class, () -> sandbox.evaluate("$pad(\"x\", 100000000)", Json.MAPPER.createObjectNode()));
        assertEquals("size budget of 10000 bytes exceeded: $pad to 100000000 characters", pad.getMessage());
        var join = assertThrows(ExpressionException.class, () -> sandbox.evaluate(
                "$join([1..2000].$string(), $pad(\"\", 5000, \"-\"))", Json.MAPPER.createObjectNode()));
        assertTrue(join.getMessage().startsWith("size budget of 10000 bytes exceeded: $join of "), join.getMessage());
        var replace = assertThrows(ExpressionException.class, () -> sandbox.evaluate(
                "$replace(s, \"x\", $pad(\"\", 5000, \"y\"))", Json.MAPPER.valueToTree(java.util.Map.of("s", "x".repeat(5000)))));
        assertEquals("size budget of 10000 bytes exceeded: $replace giving up to 25005000 characters", replace.getMessage());
        // within budget they behave as the library's
        assertEquals("ab--", sandbox.evaluate("$pad(\"ab\", 4, \"-\")", Json.MAPPER.createObjectNode()).asText());
        assertEquals("--ab", sandbox.evaluate("\"ab\" ~> $pad(-4, \"-\")", Json.MAPPER.createObjectNode()).asText());
        assertEquals("a,b", sandbox.evaluate("$join([\"a\", \"b\"], \",\")", Json.MAPPER.createObjectNode()).asText());
        assertEquals("yyx", sandbox.evaluate("$replace(\"xxx\", \"x\", \"y\", 2)", Json.MAPPER.createObjectNode()).asText());
        assertEquals("a-b-c", sandbox.evaluate("$replace(\"a b c\", /\\s/, \"-\")", Json.MAPPER.createObjectNode()).asText());
        assertEquals("A-B", sandbox.evaluate("$replace(\"a-b\", /[a-z]/, function($m){ $uppercase($m.match) })", Json.MAPPER.createObjectNode()).asText());
    }
}
