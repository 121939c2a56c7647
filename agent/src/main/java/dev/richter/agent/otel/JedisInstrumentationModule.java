package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The isolation at Jedis 7 ({@link JedisSendAdvice} on {@code Connection.sendCommand(CommandArguments)}), shadow keys
 * by prefix; its helper {@code
 * dev.richter.agent.jedis.JedisExits} is injected next to Jedis. Instrumentation name {@code richter-jedis}.
 */
public final class JedisInstrumentationModule extends RichterInstrumentationModule {
    /**
     * The helper classes, every class of {@code dev.richter.agent.jedis} and of the Redis clients' shared {@code
     * dev.richter.agent.redis} (held so by a test).
     */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList("dev.richter.agent.jedis.JedisExits",
            "dev.richter.agent.redis.RedisKeySpecs"));

    public JedisInstrumentationModule() {
        super("richter-jedis");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.singletonList(new OneMethodInstrumentation("redis.clients.jedis.Connection", "sendCommand",
                1,
                "redis.clients.jedis.CommandArguments", JedisSendAdvice.class.getName()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
