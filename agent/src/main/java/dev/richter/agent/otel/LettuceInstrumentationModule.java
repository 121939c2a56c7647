package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The isolation at Lettuce (6.x; tested with 6.6.0.RELEASE), shadow keys by prefix, for every API of it: {@link
 * LettuceWriteAdvice} and {@link LettuceWriteAllAdvice} on {@code io.lettuce.core.protocol.DefaultEndpoint.write}
 * (one command, or a collection), the one place every command of a standalone, Pub/Sub or cluster node connection
 * passes before it is written to the channel or queued for it, on the sending thread; and {@link
 * LettuceAssemblyAdvice} on {@code AbstractRedisReactiveCommands.createMono}/{@code createFlux}, which tags a reactive
 * command built in a marked context, so that it is decided as marked where it is subscribed; and {@link
 * LettuceConnectAdvice} where Lettuce connects ({@code AbstractRedisClient.initializeChannelAsync0}, {@code
 * ReconnectionHandler.reconnect0}), so that the network catch-all knows a marked connect Netty runs on its event loop
 * as Lettuce's. The helpers {@code
 * dev.richter.agent.lettuce.*}, the shared {@code dev.richter.agent.redis.RedisKeySpecs} and {@code
 * io.lettuce.core.protocol.RichterCommandArgs} (in Lettuce's package: the arguments are package-private there) are
 * injected next to Lettuce. Instrumentation name {@code richter-lettuce}.
 */
public final class LettuceInstrumentationModule extends RichterInstrumentationModule {
    /**
     * The helper classes, every class of {@code dev.richter.agent.lettuce}, of the shared {@code
     * dev.richter.agent.redis} and the extension's one class in {@code io.lettuce.core.protocol} (held so by a test).
     */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.lettuce.LettuceExits", "dev.richter.agent.lettuce.MarkedAtAssembly",
            "dev.richter.agent.lettuce.MarkedCommand", "dev.richter.agent.redis.RedisKeySpecs",
            "io.lettuce.core.protocol.RichterCommandArgs"));

    static final String ENDPOINT = "io.lettuce.core.protocol.DefaultEndpoint";
    static final String REACTIVE = "io.lettuce.core.AbstractRedisReactiveCommands";

    public LettuceInstrumentationModule() {
        super("richter-lettuce");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Arrays.asList(new EndpointInstrumentation(), new ReactiveInstrumentation(),
                connect("io.lettuce.core.AbstractRedisClient", "initializeChannelAsync0"),
                connect("io.lettuce.core.protocol.ReconnectionHandler", "reconnect0"));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    /** {@code DefaultEndpoint.write(RedisCommand)} and {@code write(Collection)}. */
    static final class EndpointInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<ClassLoader> classLoaderOptimization() {
            return AgentElementMatchers.hasClassesNamed(ENDPOINT);
        }

        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named(ENDPOINT);
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("write")).and(takesArguments(1))
                    .and(takesArgument(0, named("io.lettuce.core.protocol.RedisCommand"))),
                    LettuceWriteAdvice.class.getName());
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("write")).and(takesArguments(1))
                    .and(takesArgument(0, named("java.util.Collection"))), LettuceWriteAllAdvice.class.getName());
        }
    }

    /** A method where Lettuce asks Netty to connect: {@link LettuceConnectAdvice}. */
    static OneMethodInstrumentation connect(String type, String method) {
        return new OneMethodInstrumentation(type, isMethod().and(named(method)), LettuceConnectAdvice.class.getName());
    }

    /** {@code AbstractRedisReactiveCommands.createMono(Supplier)} and {@code createFlux(Supplier, boolean)}. */
    static final class ReactiveInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<ClassLoader> classLoaderOptimization() {
            return AgentElementMatchers.hasClassesNamed(REACTIVE);
        }

        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named(REACTIVE);
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isMethod().and(named("createMono")).and(takesArguments(1))
                    .and(takesArgument(0, named("java.util.function.Supplier"))), LettuceAssemblyAdvice.class.getName());
            transformer.applyAdviceToMethod(isMethod().and(named("createFlux")).and(takesArguments(2))
                    .and(takesArgument(0, named("java.util.function.Supplier"))), LettuceAssemblyAdvice.class.getName());
        }
    }
}
