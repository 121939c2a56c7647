package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * One public method of one client class, named exactly, with its advice: what a client with a single path for every
 * call needs (Jedis's {@code Connection.sendCommand(CommandArguments)}, {@code KafkaProducer.send(ProducerRecord,
 * Callback)}). Applies only in class loaders that have the class.
 *
 * @param type          the class, e.g. {@code redis.clients.jedis.Connection}
 * @param method        the method's name
 * @param arguments     how many arguments it takes
 * @param firstArgument the type of its first argument
 * @param advice        the advice class's name
 */
final class OneMethodInstrumentation implements TypeInstrumentation {
    private final String type;
    private final String method;
    private final int arguments;
    private final String firstArgument;
    private final String advice;

    OneMethodInstrumentation(String type, String method, int arguments, String firstArgument, String advice) {
        this.type = type;
        this.method = method;
        this.arguments = arguments;
        this.firstArgument = firstArgument;
        this.advice = advice;
    }

    @Override
    public ElementMatcher<ClassLoader> classLoaderOptimization() {
        return AgentElementMatchers.hasClassesNamed(type);
    }

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return named(type);
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named(method)).and(takesArguments(arguments))
                .and(takesArgument(0, named(firstArgument))), advice);
    }
}
