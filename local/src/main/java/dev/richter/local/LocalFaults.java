package dev.richter.local;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Faults the local stack injects on demand, so Richter can be tested against the failures of the services it runs on.
 * Immutable; off ({@link #NONE}) unless {@value #ENV_VAR} (the environment variable, else the system property of that
 * name) sets some ({@link #fromEnv()}), or a test arms them at run time through {@link FaultInjector#set}
 * ({@code stack.faults().set(LocalFaults.parse("lambda.ProbeFunction=throttle"))}).
 *
 * <p>Each {@link Rule} names a target, a {@link Kind} and a {@link Trigger}; where each kind fires and the AWS answer it
 * imitates:
 * <ul>
 *   <li>Lambda ({@link LambdaHost#invoke}, so the Invoke API and the HTTP API alike), per function logical id:
 *     <ul>
 *       <li>{@code error}: the handler does not run; HTTP 200, {@code X-Amz-Function-Error: Unhandled},
 *           {@code {"errorType":"Richter.InjectedFault","errorMessage":"RequestId: <id> Error: ...","stackTrace":[]}}
 *           (the shape of a handler exception, https://docs.aws.amazon.com/lambda/latest/dg/java-exceptions.html;
 *           {@value #INJECTED_ERROR_TYPE} is Richter's own type, so an ASL Retry on {@code States.TaskFailed} or
 *           {@code States.ALL} applies and nothing mistakes it for a real failure);</li>
 *       <li>{@code timeout}: the handler does not run; the host waits the function's {@code Timeout}, then answers
 *           {@code Sandbox.Timedout} exactly as a real timeout
 *           (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html);</li>
 *       <li>{@code throttle}: the handler does not run; HTTP 429, {@code x-amzn-ErrorType: TooManyRequestsException},
 *           {@code {"Type":"User","message":"Rate Exceeded.","Reason":"ReservedFunctionConcurrentInvocationLimitExceeded"}}
 *           (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html, TooManyRequestsException); Step Functions
 *           names it {@code Lambda.TooManyRequestsException};</li>
 *       <li>{@code crash:<ms>}: the handler runs and, {@code ms} milliseconds after it started (the cold init not
 *           counted), its thread is interrupted and its instance discarded; HTTP 200, {@code X-Amz-Function-Error:
 *           Unhandled}, {@code {"errorType":"Runtime.ExitError","errorMessage":"RequestId: <id> Error: Runtime exited
 *           with error: signal: killed"}} (what Lambda answers when the runtime process is killed, e.g. out of memory).
 *           A handler that returns before {@code ms} is not cut (the fault does not fire); a {@code Timeout} shorter
 *           than {@code ms} ends it first.</li>
 *     </ul></li>
 *   <li>DynamoDB ({@code local/node/dynalite.cjs}), per table and operation ({@code X-Amz-Target}
 *       {@code DynamoDB_20120810.<Operation>}; the table is the body's {@code TableName}, or any key of
 *       {@code RequestItems} for BatchGetItem/BatchWriteItem); the table is named by its template logical id
 *       ({@code RunMetricsTable}) or its physical name ({@code richter-run-metrics}), resolved before dynalite gets it:
 *     <ul>
 *       <li>{@code throttle}: HTTP 400 {@code {"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
 *           "message":"The level of configured provisioned throughput for the table was exceeded. Consider increasing your
 *           provisioning level with the UpdateTable API."}}, a throttling error to the AWS SDKs (retried with backoff);</li>
 *       <li>{@code internal}: HTTP 500 {@code {"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError",
 *           "message":"Internal server error"}}, retryable (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).</li>
 *     </ul></li>
 *   <li>EventBridge {@code PutEvents} ({@link EventBusCapture}):
 *     <ul>
 *       <li>{@code fail}: HTTP 500 {@code {"__type":"InternalException","message":"..."}}, nothing delivered;</li>
 *       <li>{@code partial}: HTTP 200, the first entry and every second one after it fail with
 *           {@code {"ErrorCode":"InternalFailure","ErrorMessage":"..."}} and are not delivered, {@code FailedEntryCount}
 *           says how many (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevents.html).</li>
 *     </ul></li>
 * </ul>
 *
 * <p>Several rules may match one call (wildcards): each counts the call, and the first in spec order whose trigger
 * selects it fires. Every fired fault is logged where it fired and appended to {@code <workDir>/faults.jsonl}
 * ({@link FaultInjector}).
 *
 * @param seed  seeds every {@link Trigger.Probability}: the same seed gives the same fire/pass sequence per rule;
 *              default 0
 * @param rules the rules, in spec order; unmodifiable; no two with the same {@link Rule#key()}
 */
public record LocalFaults(long seed, List<Rule> rules) {

    /** The environment variable (or, when unset, system property) {@link #fromEnv()} reads. */
    public static final String ENV_VAR = "RICHTER_LOCAL_FAULTS";

    /** The {@code errorType} of an injected {@code error}: Richter's own, never one a handler throws. */
    public static final String INJECTED_ERROR_TYPE = "Richter.InjectedFault";

    /** No faults. */
    public static final LocalFaults NONE = new LocalFaults(0, List.of());

    /**
     * The DynamoDB operations a rule may name (besides {@code *}): those dynalite serves
     * ({@code local/node/node_modules/dynalite/index.js}, {@code validOperations}).
     */
    public static final Set<String> DYNAMODB_OPERATIONS = Set.of("BatchGetItem", "BatchWriteItem", "CreateTable",
            "DeleteItem", "DeleteTable", "DescribeTable", "DescribeTimeToLive", "GetItem", "ListTables", "PutItem", "Query",
            "Scan", "TagResource", "UntagResource", "ListTagsOfResource", "UpdateItem", "UpdateTable");

    /** Matches any function, table or operation in a rule's target or operation. */
    public static final String ANY = "*";

    /** Where a fault is injected. */
    public enum Component {
        /** The Lambda host (Invoke API and HTTP API). */
        LAMBDA,
        /** dynalite. */
        DYNAMODB,
        /** The local EventBridge. */
        EVENTS;

        /** The spec prefix and the {@code component} of a faults.jsonl line: {@code lambda}, {@code dynamodb}, {@code events}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What a fault does (see the class comment for each answer). */
    public enum Kind {
        ERROR(Component.LAMBDA), TIMEOUT(Component.LAMBDA), THROTTLE(Component.LAMBDA, Component.DYNAMODB),
        CRASH(Component.LAMBDA), INTERNAL(Component.DYNAMODB), FAIL(Component.EVENTS), PARTIAL(Component.EVENTS);

        private final Set<Component> components;

        Kind(Component... components) {
            this.components = Set.of(components);
        }

        /** The spec word and the {@code kind} of a faults.jsonl line, e.g. {@code throttle}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether this kind exists for {@code c}. */
        public boolean appliesTo(Component c) {
            return components.contains(c);
        }
    }

    /**
     * Which of the calls a rule matches it fires on. Calls are counted per rule from 1, from the moment the rule was
     * set ({@link FaultInjector#set}).
     */
    public sealed interface Trigger {
        /** Whether the {@code k}-th matching call (1-based) fires, for rule {@code key} under {@code seed}. */
        boolean selects(long k, long seed, String key);

        /** The spec suffix: empty, {@code @p:0.3}, {@code @nth:2}, {@code @from:3}. */
        String spec();

        /** Every call (no {@code @} suffix). */
        record Every() implements Trigger {
            public boolean selects(long k, long seed, String key) {
                return true;
            }

            public String spec() {
                return "";
            }
        }

        /**
         * Each call with probability {@code p}, decided by {@link #unit(long, String, long)}: the same seed, key and
         * call number always give the same answer (reproducible whatever the timing), in Java and in dynalite.cjs.
         *
         * @param p probability in [0, 1]
         */
        record Probability(double p) implements Trigger {
            public Probability {
                if (!(p >= 0 && p <= 1)) {
                    throw new IllegalArgumentException("probability must be in [0, 1], was " + p);
                }
            }

            public boolean selects(long k, long seed, String key) {
                return unit(seed, key, k) < p;
            }

            public String spec() {
                return "@p:" + p;
            }
        }

        /**
         * Only the {@code n}-th call ({@code @nth:n}), or with {@code andLater} the {@code n}-th and every later one
         * ({@code @from:n}); {@code n} ≥ 1.
         */
        record Counted(long n, boolean andLater) implements Trigger {
            public Counted {
                if (n < 1) {
                    throw new IllegalArgumentException((andLater ? "from" : "nth") + " must be at least 1, was " + n);
                }
            }

            public boolean selects(long k, long seed, String key) {
                return andLater ? k >= n : k == n;
            }

            public String spec() {
                return (andLater ? "@from:" : "@nth:") + n;
            }
        }

        static Trigger every() {
            return new Every();
        }

        static Trigger probability(double p) {
            return new Probability(p);
        }

        static Trigger nth(long n) {
            return new Counted(n, false);
        }

        static Trigger from(long n) {
            return new Counted(n, true);
        }
    }

    /**
     * One fault.
     *
     * @param component    where it fires
     * @param target       function logical id, table (logical id or physical name) or, for events, {@code *}; {@code *}
     *                     matches any
     * @param operation    {@code Invoke} (lambda), a {@link #DYNAMODB_OPERATIONS} name or {@code *} (dynamodb),
     *                     {@code PutEvents} (events)
     * @param kind         what it does; must {@link Kind#appliesTo} the component
     * @param crashAfterMs for {@link Kind#CRASH}: milliseconds from the handler's start to the cut, ≥ 0; else 0
     * @param trigger      which matching calls it fires on
     */
    public record Rule(Component component, String target, String operation, Kind kind, long crashAfterMs, Trigger trigger) {
        /**
         * @throws IllegalArgumentException when the kind does not exist for the component, the target is blank, the
         *                                  operation is not one of the component's, or crashAfterMs is negative (or set
         *                                  for another kind)
         */
        public Rule {
            Objects.requireNonNull(component, "component");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(trigger, "trigger");
            if (!kind.appliesTo(component)) {
                throw new IllegalArgumentException("'" + kind.id() + "' is not a " + component.id() + " fault (known: "
                        + kindsOf(component) + ")");
            }
            if (target == null || target.isBlank()) {
                throw new IllegalArgumentException("the target (function or table) is missing");
            }
            boolean opOk = switch (component) {
                case LAMBDA -> "Invoke".equals(operation);
                case DYNAMODB -> ANY.equals(operation) || DYNAMODB_OPERATIONS.contains(operation);
                case EVENTS -> "PutEvents".equals(operation);
            };
            if (!opOk) {
                throw new IllegalArgumentException("'" + operation + "' is not a " + component.id() + " operation"
                        + (component == Component.DYNAMODB ? " (known: *, " + String.join(", ", new TreeSet<>(DYNAMODB_OPERATIONS)) + ")" : ""));
            }
            if (crashAfterMs < 0 || (kind != Kind.CRASH && crashAfterMs != 0)) {
                throw new IllegalArgumentException("crash milliseconds must be >= 0 and only given for crash, was " + crashAfterMs);
            }
        }

        /** A Lambda fault other than {@code crash} on function {@code logicalId} ({@code *}: every function). */
        public static Rule lambda(String logicalId, Kind kind, Trigger trigger) {
            return new Rule(Component.LAMBDA, logicalId, "Invoke", kind, 0, trigger);
        }

        /** A Lambda {@code crash:<afterMs>} on function {@code logicalId}. */
        public static Rule lambdaCrash(String logicalId, long afterMs, Trigger trigger) {
            return new Rule(Component.LAMBDA, logicalId, "Invoke", Kind.CRASH, afterMs, trigger);
        }

        /** A DynamoDB fault on {@code table} (logical id, physical name or {@code *}) and {@code operation} (or {@code *}). */
        public static Rule dynamoDb(String table, String operation, Kind kind, Trigger trigger) {
            return new Rule(Component.DYNAMODB, table, operation, kind, 0, trigger);
        }

        /** An EventBridge {@code PutEvents} fault ({@code fail} or {@code partial}). */
        public static Rule events(Kind kind, Trigger trigger) {
            return new Rule(Component.EVENTS, ANY, "PutEvents", kind, 0, trigger);
        }

        /**
         * The spec key, which names the rule in {@link FaultInjector#fired()} and in faults.jsonl and seeds its
         * probability: {@code lambda.<Function>}, {@code dynamodb.<Table>.<Operation>}, {@code events.PutEvents}.
         */
        public String key() {
            return switch (component) {
                case LAMBDA -> "lambda." + target;
                case DYNAMODB -> "dynamodb." + target + "." + operation;
                case EVENTS -> "events." + operation;
            };
        }

        /** The value part of the spec: {@code crash:3000@nth:2}. */
        public String value() {
            return kind.id() + (kind == Kind.CRASH ? ":" + crashAfterMs : "") + trigger.spec();
        }

        /** Whether a call to {@code callTarget} / {@code callOperation} is one this rule counts. */
        public boolean matches(String callTarget, String callOperation) {
            return (ANY.equals(target) || target.equals(callTarget)) && (ANY.equals(operation) || operation.equals(callOperation));
        }

        @Override
        public String toString() {
            return key() + "=" + value();
        }
    }

    /**
     * @throws IllegalArgumentException naming the key when two rules have the same {@link Rule#key()}
     */
    public LocalFaults {
        Set<String> keys = new HashSet<>();
        for (Rule r : rules) {
            if (!keys.add(r.key())) {
                throw new IllegalArgumentException(ENV_VAR + ": '" + r.key() + "' is given twice");
            }
        }
        rules = List.copyOf(rules);
    }

    /** These faults with another seed. */
    public LocalFaults withSeed(long newSeed) {
        return new LocalFaults(newSeed, rules);
    }

    /** These faults and {@code more} rules after them. */
    public LocalFaults with(Rule... more) {
        List<Rule> all = new ArrayList<>(rules);
        all.addAll(List.of(more));
        return new LocalFaults(seed, all);
    }

    /** Whether no rule is set. */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** The rules of {@code c}, in spec order. */
    public List<Rule> rulesOf(Component c) {
        return rules.stream().filter(r -> r.component() == c).toList();
    }

    /**
     * The faults of {@value #ENV_VAR} (the environment variable, else the system property of that name); {@link #NONE}
     * when neither is set. See {@link #parse(String)}.
     *
     * @throws IllegalArgumentException naming the key when the value is malformed
     */
    public static LocalFaults fromEnv() {
        return KeyValueSpec.fromEnv(ENV_VAR).map(LocalFaults::parse).orElse(NONE);
    }

    /**
     * Parses {@code key=value} pairs separated by commas (blanks around keys and values ignored):
     * <pre>
     *   seed=&lt;long&gt;
     *   lambda.&lt;FunctionLogicalId|*&gt;=(error|timeout|throttle|crash:&lt;ms&gt;)[trigger]
     *   dynamodb.&lt;Table|*&gt;.&lt;Operation|*&gt;=(throttle|internal)[trigger]
     *   events.PutEvents=(fail|partial)[trigger]
     *   trigger: @p:&lt;probability 0..1&gt; | @nth:&lt;N ≥ 1&gt; | @from:&lt;N ≥ 1&gt;   (none: every call)
     * </pre>
     * The operation is the part after the table's last dot (a table name may contain dots). Example:
     * {@code seed=7,lambda.FaultDeciderFunction=error@from:3,lambda.LoadDriverFunction=crash:3000@nth:2,
     * dynamodb.RunMetricsTable.PutItem=throttle@p:0.3,events.PutEvents=fail@p:1}.
     *
     * @throws IllegalArgumentException starting {@value #ENV_VAR}, naming the key and the reason, when a key is unknown,
     *                                  has no {@code =}, is given twice, or its value is malformed
     */
    public static LocalFaults parse(String spec) {
        long seed = 0;
        List<Rule> rules = new ArrayList<>();
        for (var pair : KeyValueSpec.pairs(ENV_VAR, spec).entrySet()) {
            String key = pair.getKey();
            String value = pair.getValue();
            try {
                if (key.equals("seed")) {
                    seed = parseLong(value, "the seed");
                } else {
                    rules.add(rule(key, value));
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(ENV_VAR + ": '" + key + "=" + value + "': " + e.getMessage(), e);
            }
        }
        return new LocalFaults(seed, rules);
    }

    private static Rule rule(String key, String value) {
        int dot = key.indexOf('.');
        String prefix = dot < 0 ? key : key.substring(0, dot);
        String rest = dot < 0 ? "" : key.substring(dot + 1);
        Component c = switch (prefix) {
            case "lambda" -> Component.LAMBDA;
            case "dynamodb" -> Component.DYNAMODB;
            case "events" -> Component.EVENTS;
            default -> throw new IllegalArgumentException("unknown key (known: seed, lambda.<Function>,"
                    + " dynamodb.<Table>.<Operation>, events.PutEvents)");
        };
        String target;
        String operation;
        switch (c) {
            case LAMBDA -> {
                target = rest;
                operation = "Invoke";
            }
            case DYNAMODB -> {
                int last = rest.lastIndexOf('.');
                if (last <= 0 || last == rest.length() - 1) {
                    throw new IllegalArgumentException("a DynamoDB key is dynamodb.<Table>.<Operation> (either may be *)");
                }
                target = rest.substring(0, last);
                operation = rest.substring(last + 1);
            }
            default -> {
                target = ANY;
                operation = rest;
            }
        }
        int at = value.indexOf('@');
        String what = (at < 0 ? value : value.substring(0, at)).trim();
        Trigger trigger = at < 0 ? Trigger.every() : trigger(value.substring(at + 1).trim());
        int colon = what.indexOf(':');
        String kindWord = colon < 0 ? what : what.substring(0, colon);
        Kind kind;
        try {
            kind = Kind.valueOf(kindWord.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown fault '" + kindWord + "' (known for " + c.id() + ": " + kindsOf(c) + ")");
        }
        long crashMs = 0;
        if (kind == Kind.CRASH) {
            if (colon < 0) {
                throw new IllegalArgumentException("crash needs its delay: crash:<milliseconds>");
            }
            crashMs = parseLong(what.substring(colon + 1), "the crash delay (milliseconds)");
        } else if (colon >= 0) {
            throw new IllegalArgumentException("'" + kindWord + "' takes no ':<value>'");
        }
        return new Rule(c, target, operation, kind, crashMs, trigger);
    }

    private static Trigger trigger(String t) {
        int colon = t.indexOf(':');
        String name = colon < 0 ? t : t.substring(0, colon);
        String arg = colon < 0 ? "" : t.substring(colon + 1).trim();
        return switch (name) {
            case "p" -> {
                double p;
                try {
                    p = Double.parseDouble(arg);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("@p: needs a probability in [0, 1], was '" + arg + "'");
                }
                yield Trigger.probability(p);
            }
            case "nth" -> Trigger.nth(parseLong(arg, "@nth:"));
            case "from" -> Trigger.from(parseLong(arg, "@from:"));
            default -> throw new IllegalArgumentException("unknown trigger '@" + t + "' (known: @p:<0..1>, @nth:<N>, @from:<N>)");
        };
    }

    private static long parseLong(String s, String what) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " must be an integer, was '" + s + "'");
        }
    }

    private static String kindsOf(Component c) {
        List<String> out = new ArrayList<>();
        for (Kind k : Kind.values()) {
            if (k.appliesTo(c)) {
                out.add(k == Kind.CRASH ? "crash:<ms>" : k.id());
            }
        }
        return String.join(", ", out);
    }

    /** The spec that {@link #parse} turns back into these faults: {@code seed=7,lambda.X=error@from:3,...}. */
    public String spec() {
        StringBuilder b = new StringBuilder("seed=").append(seed);
        rules.forEach(r -> b.append(',').append(r));
        return b.toString();
    }

    /** One line for logs: {@code none}, or the spec. */
    public String describe() {
        return isEmpty() ? "none" : spec();
    }

    /**
     * The config {@code local/node/dynalite.cjs} takes at {@code POST /__richter/faults}:
     * {@code {"seed": "<decimal>", "rules": [{"key", "table", "operation", "kind", "trigger": {"every": true} |
     * {"p": x} | {"nth": n} | {"from": n}}]}}, with each table resolved to its physical name.
     *
     * @param tables template table logical id → physical name; a rule's table must be {@code *}, a key or a value;
     *               when empty, every table is taken as a physical name
     * @throws IllegalArgumentException naming the rule when its table is none of them
     */
    public Map<String, Object> dynamoDbConfig(Map<String, String> tables) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Rule r : rulesOf(Component.DYNAMODB)) {
            String table = r.target();
            if (tables.containsKey(table)) {
                table = tables.get(table);
            } else if (!tables.isEmpty() && !ANY.equals(table) && !tables.containsValue(table)) {
                throw new IllegalArgumentException(ENV_VAR + ": '" + r.key() + "' names no table of template.yaml (logical ids: "
                        + String.join(", ", new TreeSet<>(tables.keySet())) + "; or their physical names: "
                        + String.join(", ", new TreeSet<>(tables.values())) + ")");
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", r.key());
            m.put("table", table);
            m.put("operation", r.operation());
            m.put("kind", r.kind().id());
            m.put("trigger", switch (r.trigger()) {
                case Trigger.Every e -> Map.of("every", true);
                case Trigger.Probability p -> Map.of("p", p.p());
                case Trigger.Counted c -> Map.of(c.andLater() ? "from" : "nth", c.n());
            });
            out.add(m);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("seed", Long.toString(seed));
        doc.put("rules", out);
        return doc;
    }

    /**
     * A number in [0, 1) that depends only on {@code seed}, the rule {@code key} and the call number {@code k}: a
     * 32-bit FNV-1a hash of the key's UTF-16 units, mixed with both halves of the seed and of {@code k} by MurmurHash3's
     * finalizer, divided by 2^32. {@code local/node/dynalite.cjs} computes the same number ({@code unit}), so a seed
     * gives the same sequence in Java and in Node.
     */
    public static double unit(long seed, String key, long k) {
        int h = 0x811c9dc5;
        for (int i = 0; i < key.length(); i++) {
            h ^= key.charAt(i);
            h *= 0x01000193;
        }
        h = mix32(h ^ mix32((int) seed ^ mix32((int) (seed >>> 32))));
        h = mix32(h ^ mix32((int) k ^ mix32((int) (k >>> 32) + 0x9e3779b9)));
        return (h & 0xffffffffL) / 4294967296.0;
    }

    /** MurmurHash3's 32-bit finalizer. */
    private static int mix32(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
