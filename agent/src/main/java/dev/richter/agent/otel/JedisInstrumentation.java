package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.jedis.JedisExits;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import redis.clients.jedis.CommandArguments;

/**
 * {@code redis.clients.jedis.Connection.sendCommand(CommandArguments)} (Jedis 7; any Jedis with {@code CommandArguments.getKeys()}): the advice replaces the
 * arguments with their shadow keys, or skips the send and throws the refusal's {@code JedisDataException}.
 */
final class JedisInstrumentation implements TypeInstrumentation {

    @Override
    public ElementMatcher<ClassLoader> classLoaderOptimization() {
        return AgentElementMatchers.hasClassesNamed("redis.clients.jedis.CommandArguments");
    }

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return named("redis.clients.jedis.Connection");
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("sendCommand")).and(takesArguments(1))
                        .and(takesArgument(0, named("redis.clients.jedis.CommandArguments"))),
                JedisInstrumentation.class.getName() + "$SendAdvice");
    }

    /** Inlined into Jedis's {@code Connection}: names only the helper and Jedis types. */
    @SuppressWarnings("unused")
    public static final class SendAdvice {
        private SendAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(value = 0, readOnly = false) CommandArguments args) {
            Object decided = JedisExits.beforeSend(args);
            if (decided instanceof CommandArguments shadow) {
                args = shadow;
                return null;
            }
            return decided;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object refusal, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (refusal instanceof Throwable t) {
                thrown = t;
            }
        }
    }
}
