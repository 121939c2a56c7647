package dev.richter.data.flow;

import com.dashjoin.jsonata.Functions;
import com.dashjoin.jsonata.JException;
import com.dashjoin.jsonata.Jsonata;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * JSONata (https://docs.jsonata.org, com.dashjoin:jsonata 0.9.9) evaluated in a sandbox with a time and a size budget.
 *
 * <p>What the library can reach, read from its 0.9.9 jar ({@code javap} of {@code Jsonata}, {@code Functions},
 * {@code Timebox}): expressions call only the built-in functions of the JSONata 2.0 library, bound by name in a static
 * frame ({@code $sum ... $pad, $match, $replace ... $now, $millis, $eval}); the built-ins are string, number, array,
 * date and URL-encoding functions and touch no file or socket ({@code $encodeUrl} only parses with
 * {@code java.net.URL}). Java is reached only through what the host registers ({@code registerFunction},
 * {@code Frame.bind}, {@code Jsonata.function(name, methodName, class, instance, signature)} resolves a Java method
 * by reflection): this class registers nothing, and an input is converted to plain JSON values (maps, lists,
 * strings, numbers, booleans) first, so no Java object is ever in reach. {@code $eval(text)} parses and runs a string
 * as a new expression (dynamic compilation of user code, which DESIGN.md §7 forbids): it is shadowed by a function
 * that fails with {@code T1010 $eval is not allowed}. The library's own guard, {@code Timebox}, is cooperative (it
 * checks time and depth when a node is entered or left); this class installs its own entry and exit callbacks in its
 * place, which also check each node's result against the size budget, so a runaway range, a string doubled in a loop
 * or a deep recursion stops at the next node with an {@link ExpressionException}. Ranges over 10 000 000 items are
 * refused by the library itself ({@code D2014}, whose message says 1e6). A single built-in call is not interrupted
 * while it runs: the built-ins whose result can outgrow their inputs ({@code $pad}, {@code $join}, {@code $replace})
 * are shadowed by versions that compute the result's length first ({@link #bindBoundedBuiltins}); every other
 * built-in's result is at most a small multiple of inputs already within the budget.
 *
 * @param timeBudgetMs    wall time one evaluation may take, milliseconds
 * @param maxDepth        deepest nesting of evaluated nodes (recursion)
 * @param maxInputBytes   largest input, bytes of its JSON
 * @param maxOutputBytes  largest result, bytes of its JSON; also the longest string and the most array items any node
 *                        may produce on the way
 */
public record Expressions(long timeBudgetMs, int maxDepth, int maxInputBytes, int maxOutputBytes) {
    /** 200 ms, depth 200, 256 KiB in, 256 KiB out. */
    public static final Expressions DEFAULT = new Expressions(200, 200, 256 * 1024, 256 * 1024);

    /**
     * Parses an expression once, to find syntax errors before a flow runs.
     *
     * @throws ExpressionException with the library's error code and position (e.g. {@code S0202 at 5: ...})
     */
    public static void parse(String expression) {
        try {
            Jsonata.jsonata(expression);
        } catch (JException e) {
            throw new ExpressionException(describe(e));
        } catch (RuntimeException e) {
            throw new ExpressionException("not a valid JSONata expression: " + e.getMessage());
        }
    }

    /**
     * Evaluates {@code expression} over {@code input}.
     *
     * @param input any JSON value
     * @return the result as JSON ({@link NullNode} when the expression yields nothing)
     * @throws ExpressionException on a syntax or evaluation error, a call of {@code $eval}, or an exceeded budget
     *                             (message {@code time budget of N ms exceeded}, {@code depth budget of N exceeded},
     *                             {@code size budget of N bytes exceeded ...})
     */
    public JsonNode evaluate(String expression, JsonNode input) {
        byte[] in = Json.write(input).getBytes(StandardCharsets.UTF_8);
        if (in.length > maxInputBytes) {
            throw new ExpressionException("input of " + in.length + " bytes is over the size budget of " + maxInputBytes + " bytes");
        }
        Jsonata compiled;
        try {
            compiled = Jsonata.jsonata(expression);
        } catch (JException e) {
            throw new ExpressionException(describe(e));
        }
        Jsonata.Frame frame = compiled.createFrame();
        Budget budget = new Budget(System.nanoTime() + timeBudgetMs * 1_000_000L);
        frame.setEvaluateEntryCallback((expr, data, env) -> budget.enter());
        frame.setEvaluateExitCallback((expr, data, env, result) -> budget.exit(result));
        frame.bind("eval", Jsonata.function("eval", (Jsonata.FnVarArgs<Object>) args -> {
            throw new JException("T1010", -1, "$eval is not allowed");
        }, null));
        bindBoundedBuiltins(frame);
        Object result;
        try {
            result = compiled.evaluate(Json.MAPPER.convertValue(input, Object.class), frame);
        } catch (BudgetExceeded e) {
            throw new ExpressionException(e.getMessage());
        } catch (JException e) {
            if (e.getCause() instanceof BudgetExceeded b) {
                throw new ExpressionException(b.getMessage());
            }
            throw new ExpressionException(describe(e));
        } catch (StackOverflowError e) {
            throw new ExpressionException("depth budget exceeded (stack overflow)");
        } catch (RuntimeException e) {
            Throwable c = e;
            while (c != null) {
                if (c instanceof BudgetExceeded b) {
                    throw new ExpressionException(b.getMessage());
                }
                c = c.getCause();
            }
            throw new ExpressionException("evaluation failed: " + e.getMessage());
        }
        JsonNode out = result == null || result == Jsonata.NULL_VALUE ? NullNode.instance : toJson(result);
        int outBytes = Json.write(out).getBytes(StandardCharsets.UTF_8).length;
        if (outBytes > maxOutputBytes) {
            throw new ExpressionException("size budget of " + maxOutputBytes + " bytes exceeded: the result has " + outBytes + " bytes");
        }
        return out;
    }

    /**
     * Built-ins whose result size is not bounded by their inputs' sizes, shadowed by versions that compute the result's
     * length first and refuse one over {@link #maxOutputBytes} before allocating it: {@code $pad} (the width is a
     * number), {@code $join} (a long separator between many items) and {@code $replace} with a string replacement
     * (every match of a short pattern replaced by a long string). They keep the library's signatures and delegate to
     * its implementations ({@code Functions}).
     */
    private void bindBoundedBuiltins(Jsonata.Frame frame) {
        frame.bind("pad", Jsonata.function("pad", (Jsonata.FnVarArgs<Object>) args -> {
            Object width = arg(args, 1);
            if (width instanceof Number n && Math.abs(n.doubleValue()) > maxOutputBytes) {
                throw new BudgetExceeded("size budget of " + maxOutputBytes + " bytes exceeded: $pad to " + n.longValue() + " characters");
            }
            return Functions.pad((String) arg(args, 0), (Number) width, (String) arg(args, 2));
        }, "<s-ns?:s>"));
        frame.bind("join", Jsonata.function("join", (Jsonata.FnVarArgs<Object>) args -> {
            Object list = arg(args, 0);
            String separator = (String) arg(args, 1);
            if (list instanceof List<?> items) {
                long length = items.isEmpty() ? 0 : (long) (items.size() - 1) * (separator == null ? 0 : separator.length());
                for (Object item : items) {
                    length += item instanceof String str ? str.length() : 0;
                }
                if (length > maxOutputBytes) {
                    throw new BudgetExceeded("size budget of " + maxOutputBytes + " bytes exceeded: $join of " + length + " characters");
                }
            }
            @SuppressWarnings("unchecked")
            List<String> strings = list instanceof List<?> l ? (List<String>) l : list == null ? null : List.of((String) list);
            return Functions.join(strings, separator);
        }, "<a<s>s?:s>"));
        frame.bind("replace", Jsonata.function("replace", (Jsonata.FnVarArgs<Object>) args -> {
            String str = (String) arg(args, 0);
            Object pattern = arg(args, 1);
            Object replacement = arg(args, 2);
            Object limit = arg(args, 3);
            if (str != null && replacement instanceof String rep && rep.length() > 1) {
                long matches = 0;
                long max = limit instanceof Number n ? n.longValue() : Long.MAX_VALUE;
                if (pattern instanceof String p && !p.isEmpty()) {
                    for (int at = str.indexOf(p); at >= 0 && matches < max; at = str.indexOf(p, at + p.length())) {
                        matches++;
                    }
                } else if (pattern instanceof Pattern p) {
                    var m = p.matcher(str);
                    while (matches < max && m.find()) {
                        matches++;
                    }
                }
                long length = str.length() + matches * rep.length();
                if (length > maxOutputBytes) {
                    throw new BudgetExceeded("size budget of " + maxOutputBytes + " bytes exceeded: $replace giving up to " + length + " characters");
                }
            }
            return Functions.replace(str, pattern, replacement, limit instanceof Number n ? n.intValue() : null);
        }, "<s-(sf)(sf)n?:s>"));
    }

    private static Object arg(List<?> args, int i) {
        Object v = i < args.size() ? args.get(i) : null;
        return v == Jsonata.NULL_VALUE ? null : v;
    }

    private JsonNode toJson(Object value) {
        if (value instanceof Jsonata.JFunction || value instanceof Jsonata.JLambda) {
            throw new ExpressionException("the expression yields a function, not a JSON value");
        }
        return Json.MAPPER.valueToTree(plain(value));
    }

    private static Object plain(Object value) {
        if (value == Jsonata.NULL_VALUE) {
            return null;
        }
        if (value instanceof Map<?, ?> m) {
            var out = new LinkedHashMap<String, Object>();
            m.forEach((k, v) -> out.put(String.valueOf(k), plain(v)));
            return out;
        }
        if (value instanceof Collection<?> c) {
            return c.stream().map(Expressions::plain).toList();
        }
        return value;
    }

    private static String describe(JException e) {
        String code = e.getError();
        String message = e.getMessage();
        return (code == null ? "" : code + " ") + (e.getLocation() >= 0 ? "at " + e.getLocation() + ": " : "") + message;
    }

    /** The per-evaluation counters, checked at every node's entry and exit. */
    private final class Budget {
        private final long deadlineNanos;
        private int depth;

        Budget(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        void enter() {
            depth++;
            if (depth > maxDepth) {
                throw new BudgetExceeded("depth budget of " + maxDepth + " nested evaluations exceeded (runaway recursion?)");
            }
            checkTime();
        }

        void exit(Object result) {
            depth--;
            checkTime();
            if (result instanceof String s && s.length() > maxOutputBytes) {
                throw new BudgetExceeded("size budget of " + maxOutputBytes + " bytes exceeded: a string of " + s.length() + " characters");
            }
            if (result instanceof List<?> l && l.size() > maxOutputBytes) {
                throw new BudgetExceeded("size budget of " + maxOutputBytes + " bytes exceeded: an array of " + l.size() + " items");
            }
        }

        private void checkTime() {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new BudgetExceeded("time budget of " + timeBudgetMs + " ms exceeded");
            }
        }
    }

    /** Thrown from the callbacks; unwrapped into an {@link ExpressionException}. */
    private static final class BudgetExceeded extends RuntimeException {
        BudgetExceeded(String message) {
            super(message, null, false, false);
        }
    }

    /** A failed parse or evaluation; the message names the rule or the library's error code, never a stack. */
    public static final class ExpressionException extends RuntimeException {
        /** @param message the rule or the library's code and position, e.g. {@code time budget of 200 ms exceeded} */
        public ExpressionException(String message) {
            super(message);
        }
    }
}
