package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * One public method of one client class, named exactly, with its advice: what a client with a single path for every
 * call needs (Jedis's {@code Connection.sendCommand(CommandArguments)}, {@code KafkaProducer.send(ProducerRecord,
 * Callback)}), or the methods of one class a matcher names (the AWS SDK's {@code execute} overloads, Lettuce's connect
 * methods). Applies only in class loaders that have the class.
 *
 * @param type          the class, e.g. {@code redis.clients.jedis.Connection}
 * @param method        the method's name
 * @param arguments     how many arguments it takes
 * @param firstArgument the type of its first argument
 * @param advice        the advice class's name
 */
final class OneMethodInstrumentation implements TypeInstrumentation {
    private final String type;
    private final ElementMatcher<? super MethodDescription> methods;
    private final String advice;

    OneMethodInstrumentation(String type, String method, int arguments, String firstArgument, String advice) {
        this(type, isMethod().and(isPublic()).and(named(method)).and(takesArguments(arguments))
                .and(takesArgument(0, named(firstArgument))), advice);
    }

    /**
     * The methods {@code methods} matches of one class (e.g. every overload of a name), with one advice.
     *
     * @param type    the class
     * @param methods which of its methods
     * @param advice  the advice class's name
     */
    OneMethodInstrumentation(String type, ElementMatcher<? super MethodDescription> methods, String advice) {
        this.type = type;
        this.methods = methods;
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
        transformer.applyAdviceToMethod(methods, advice);
    }
}
