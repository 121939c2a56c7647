package dev.richter.local;

import dev.richter.sizing.Quotas;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The AWS limits the local stack enforces, and the template parameters it deploys with. Immutable;
 * the defaults ({@link #AWS}) are AWS's own values, and each limit can be lowered (never raised:
 * a local stack laxer than AWS would let a run pass here that fails there) so tests can hit a limit
 * quickly, e.g. {@code LocalLimits.AWS.withHistoryEventsPerExecution(400)}.
 *
 * <p>Where each limit is enforced:
 * <ul>
 *   <li>{@link #invokePayloadBytes} by {@link LambdaHost} (request and response of an Invoke);</li>
 *   <li>{@link #statePayloadBytes}, {@link #inlineMapMaxConcurrency}, {@link #distributedMapMaxConcurrency}
 *       and {@link #historyEventsPerExecution} by {@code local/node/sfn-server.cjs}, which gets them from
 *       {@link LocalAwsStack} in its config ({@code "limits": {...}});</li>
 *   <li>all five are also handed to the functions as system properties ({@code RICHTER_INVOKE_PAYLOAD_BYTES},
 *       {@code RICHTER_STATE_PAYLOAD_BYTES}, {@code RICHTER_INLINE_MAP_MAX_CONCURRENCY},
 *       {@code RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY}, {@code RICHTER_HISTORY_EVENT_LIMIT}) for their
 *       plan-time checks.</li>
 * </ul>
 *
 * @param invokePayloadBytes           largest synchronous Invoke request body, in bytes; AWS: 6 MB = 6291456
 *                                     (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html,
 *                                     "Invocation payload (request and response): 6 MB each for synchronous");
 *                                     the response may be 100 bytes larger, as AWS's own error message says
 *                                     (6291556 bytes, see {@link LambdaHost})
 * @param statePayloadBytes            largest input or output of a state, task or execution, in bytes of UTF-8;
 *                                     AWS: 256 KiB = 262144
 *                                     (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html,
 *                                     "Maximum input or output size for a task, state, or execution")
 * @param inlineMapMaxConcurrency      most iterations an Inline Map state runs at once; AWS: 40
 *                                     (https://docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html)
 * @param distributedMapMaxConcurrency most child executions a Distributed Map state runs at once; AWS: 10000
 *                                     (https://docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html)
 * @param historyEventsPerExecution    most events in one Standard execution's history; AWS: 25000
 *                                     (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html,
 *                                     "Maximum execution history size")
 * @param parameterOverrides           template parameter values, as {@code sam deploy --parameter-overrides}
 *                                     (name → value, e.g. {@code LoadDriverTimeoutSeconds=15}); unmodifiable
 */
public record LocalLimits(
        int invokePayloadBytes,
        int statePayloadBytes,
        int inlineMapMaxConcurrency,
        int distributedMapMaxConcurrency,
        int historyEventsPerExecution,
        Map<String, String> parameterOverrides) {

    /** AWS Lambda: 6 MB synchronous invocation payload, request and response. */
    public static final int AWS_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;
    /** AWS Step Functions: 256 KiB state input/output ({@link Quotas#AWS}, the values the plan check uses). */
    public static final int AWS_STATE_PAYLOAD_BYTES = Quotas.AWS.statePayloadBytes();
    /** AWS Step Functions: 40 concurrent Inline Map iterations. */
    public static final int AWS_INLINE_MAP_MAX_CONCURRENCY = Quotas.AWS.inlineMapMaxConcurrency();
    /** AWS Step Functions: 10,000 concurrent Distributed Map child executions. */
    public static final int AWS_DISTRIBUTED_MAP_MAX_CONCURRENCY = Quotas.AWS.distributedMapMaxConcurrency();
    /** AWS Step Functions: 25,000 history events per Standard execution. */
    public static final int AWS_HISTORY_EVENTS_PER_EXECUTION = Quotas.AWS.historyEventsPerExecution();

    /** AWS's values and no parameter overrides. */
    public static final LocalLimits AWS = new LocalLimits(AWS_INVOKE_PAYLOAD_BYTES, AWS_STATE_PAYLOAD_BYTES,
            AWS_INLINE_MAP_MAX_CONCURRENCY, AWS_DISTRIBUTED_MAP_MAX_CONCURRENCY, AWS_HISTORY_EVENTS_PER_EXECUTION, Map.of());

    /** The environment variable (or, when unset, system property) {@link #fromEnv()} reads. */
    public static final String ENV_VAR = "RICHTER_LOCAL_LIMITS";

    /** Prefix of a template parameter in {@link #parse(String)}: {@code param.LoadDriverTimeoutSeconds=15}. */
    public static final String PARAM_PREFIX = "param.";

    /**
     * @throws IllegalArgumentException naming the limit when one is below 1 or above AWS's value, or
     *                                  when a parameter name is blank
     */
    public LocalLimits {
        check("invokePayloadBytes", invokePayloadBytes, AWS_INVOKE_PAYLOAD_BYTES);
        check("statePayloadBytes", statePayloadBytes, AWS_STATE_PAYLOAD_BYTES);
        check("inlineMapMaxConcurrency", inlineMapMaxConcurrency, AWS_INLINE_MAP_MAX_CONCURRENCY);
        check("distributedMapMaxConcurrency", distributedMapMaxConcurrency, AWS_DISTRIBUTED_MAP_MAX_CONCURRENCY);
        check("historyEventsPerExecution", historyEventsPerExecution, AWS_HISTORY_EVENTS_PER_EXECUTION);
        Map<String, String> params = new LinkedHashMap<>();
        parameterOverrides.forEach((k, v) -> {
            if (k == null || k.isBlank() || v == null) {
                throw new IllegalArgumentException("parameter override " + k + "=" + v + ": name and value are required");
            }
            params.put(k, v);
        });
        parameterOverrides = Collections.unmodifiableMap(params);
    }

    private static void check(String name, int value, int awsValue) {
        if (value < 1 || value > awsValue) {
            throw new IllegalArgumentException(name + "=" + value + " must be between 1 and AWS's limit " + awsValue);
        }
    }

    public LocalLimits withInvokePayloadBytes(int v) {
        return new LocalLimits(v, statePayloadBytes, inlineMapMaxConcurrency, distributedMapMaxConcurrency, historyEventsPerExecution, parameterOverrides);
    }

    public LocalLimits withStatePayloadBytes(int v) {
        return new LocalLimits(invokePayloadBytes, v, inlineMapMaxConcurrency, distributedMapMaxConcurrency, historyEventsPerExecution, parameterOverrides);
    }

    public LocalLimits withInlineMapMaxConcurrency(int v) {
        return new LocalLimits(invokePayloadBytes, statePayloadBytes, v, distributedMapMaxConcurrency, historyEventsPerExecution, parameterOverrides);
    }

    public LocalLimits withDistributedMapMaxConcurrency(int v) {
        return new LocalLimits(invokePayloadBytes, statePayloadBytes, inlineMapMaxConcurrency, v, historyEventsPerExecution, parameterOverrides);
    }

    public LocalLimits withHistoryEventsPerExecution(int v) {
        return new LocalLimits(invokePayloadBytes, statePayloadBytes, inlineMapMaxConcurrency, distributedMapMaxConcurrency, v, parameterOverrides);
    }

    /** These limits with {@code overrides} replacing every parameter override. */
    public LocalLimits withParameterOverrides(Map<String, String> overrides) {
        return new LocalLimits(invokePayloadBytes, statePayloadBytes, inlineMapMaxConcurrency, distributedMapMaxConcurrency, historyEventsPerExecution, overrides);
    }

    /** These limits with one more (or a replaced) parameter override. */
    public LocalLimits withParameterOverride(String name, String value) {
        Map<String, String> m = new LinkedHashMap<>(parameterOverrides);
        m.put(name, value);
        return withParameterOverrides(m);
    }

    /**
     * The limits of {@value #ENV_VAR} (the environment variable, else the system property of that
     * name), over {@link #AWS}; {@link #AWS} when neither is set. See {@link #parse(String)}.
     *
     * @throws IllegalArgumentException naming the key when the value is malformed
     */
    public static LocalLimits fromEnv() {
        return KeyValueSpec.fromEnv(ENV_VAR).map(LocalLimits::parse).orElse(AWS);
    }

    /**
     * Parses {@code key=value} pairs separated by commas, over {@link #AWS}: the keys are the
     * component names ({@code invokePayloadBytes}, {@code statePayloadBytes},
     * {@code inlineMapMaxConcurrency}, {@code distributedMapMaxConcurrency},
     * {@code historyEventsPerExecution}, integer values) and {@code param.<Name>} for a template
     * parameter (its value cannot contain a comma). Blanks around keys and values are ignored.
     * Example: {@code historyEventsPerExecution=400,inlineMapMaxConcurrency=4,param.LoadDriverTimeoutSeconds=15}.
     *
     * @throws IllegalArgumentException naming the key when it is unknown, has no {@code =}, is given
     *                                  twice, or its value is not an integer within 1..AWS's limit
     */
    public static LocalLimits parse(String spec) {
        LocalLimits out = AWS;
        Map<String, String> params = new LinkedHashMap<>();
        for (var pair : KeyValueSpec.pairs(ENV_VAR, spec).entrySet()) {
            String key = pair.getKey();
            String value = pair.getValue();
            if (key.startsWith(PARAM_PREFIX) && key.length() > PARAM_PREFIX.length()) {
                params.put(key.substring(PARAM_PREFIX.length()), value);
                continue;
            }
            int n;
            try {
                n = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(ENV_VAR + ": '" + key + "' must be an integer, was '" + value + "'");
            }
            try {
                out = switch (key) {
                    case "invokePayloadBytes" -> out.withInvokePayloadBytes(n);
                    case "statePayloadBytes" -> out.withStatePayloadBytes(n);
                    case "inlineMapMaxConcurrency" -> out.withInlineMapMaxConcurrency(n);
                    case "distributedMapMaxConcurrency" -> out.withDistributedMapMaxConcurrency(n);
                    case "historyEventsPerExecution" -> out.withHistoryEventsPerExecution(n);
                    default -> throw new IllegalArgumentException(ENV_VAR + ": unknown key '" + key
                            + "' (known: invokePayloadBytes, statePayloadBytes, inlineMapMaxConcurrency,"
                            + " distributedMapMaxConcurrency, historyEventsPerExecution, param.<TemplateParameter>)");
                };
            } catch (IllegalArgumentException e) {
                throw e.getMessage().startsWith(ENV_VAR) ? e : new IllegalArgumentException(ENV_VAR + ": " + e.getMessage(), e);
            }
        }
        return out.withParameterOverrides(params);
    }

    /**
     * The Step Functions limits as {@code local/node/sfn-server.cjs} reads them from its config's
     * {@code "limits"} object: {@code inlineMapMaxConcurrency}, {@code distributedMapMaxConcurrency},
     * {@code historyEventsPerExecution}, {@code statePayloadBytes}.
     */
    public Map<String, Integer> stepFunctionsConfig() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("inlineMapMaxConcurrency", inlineMapMaxConcurrency);
        m.put("distributedMapMaxConcurrency", distributedMapMaxConcurrency);
        m.put("historyEventsPerExecution", historyEventsPerExecution);
        m.put("statePayloadBytes", statePayloadBytes);
        return m;
    }

    /**
     * The system properties the local stack sets for the functions' plan-time checks (read through
     * {@code dev.richter.common.Env}): {@code RICHTER_HISTORY_EVENT_LIMIT}, {@code RICHTER_STATE_PAYLOAD_BYTES},
     * {@code RICHTER_INLINE_MAP_MAX_CONCURRENCY}, {@code RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY},
     * {@code RICHTER_INVOKE_PAYLOAD_BYTES}, as decimal strings.
     */
    public Map<String, String> systemProperties() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(Quotas.HISTORY_EVENT_LIMIT_ENV, String.valueOf(historyEventsPerExecution));
        m.put(Quotas.STATE_PAYLOAD_BYTES_ENV, String.valueOf(statePayloadBytes));
        m.put(Quotas.INLINE_MAP_MAX_CONCURRENCY_ENV, String.valueOf(inlineMapMaxConcurrency));
        m.put(Quotas.DISTRIBUTED_MAP_MAX_CONCURRENCY_ENV, String.valueOf(distributedMapMaxConcurrency));
        m.put("RICHTER_INVOKE_PAYLOAD_BYTES", String.valueOf(invokePayloadBytes));
        return m;
    }

    /** One line for logs: every limit, marked {@code (AWS)} when it is AWS's value, and the parameter overrides. */
    public String describe() {
        return "invokePayloadBytes=" + mark(invokePayloadBytes, AWS_INVOKE_PAYLOAD_BYTES)
                + ", statePayloadBytes=" + mark(statePayloadBytes, AWS_STATE_PAYLOAD_BYTES)
                + ", inlineMapMaxConcurrency=" + mark(inlineMapMaxConcurrency, AWS_INLINE_MAP_MAX_CONCURRENCY)
                + ", distributedMapMaxConcurrency=" + mark(distributedMapMaxConcurrency, AWS_DISTRIBUTED_MAP_MAX_CONCURRENCY)
                + ", historyEventsPerExecution=" + mark(historyEventsPerExecution, AWS_HISTORY_EVENTS_PER_EXECUTION)
                + ", parameterOverrides=" + new TreeMap<>(parameterOverrides);
    }

    private static String mark(int value, int awsValue) {
        return value == awsValue ? value + " (AWS)" : value + " (AWS " + awsValue + ")";
    }
}
