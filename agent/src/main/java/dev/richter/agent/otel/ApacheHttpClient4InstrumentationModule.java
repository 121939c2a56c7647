package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.apache4.ApacheHttpClient4Exits;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatcher;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;

/**
 * The isolation at Apache HttpClient 4.x's clients: {@code doExecute(target, request, context)} of every subclass of
 * {@code org.apache.http.impl.client.CloseableHttpClient} ({@code InternalHttpClient}, {@code MinimalHttpClient}, the
 * deprecated {@code AbstractHttpClient} family), where every {@code execute} overload ends. A mock skips it and
 * returns the mock's answer; a refusal skips it and throws; a pass runs it untouched. Its helper {@code
 * dev.richter.agent.apache4.ApacheHttpClient4Exits} is injected next to HttpClient. Instrumentation name {@code
 * richter-apache-httpclient-4}; the advice runs inside the agent's {@code apache-httpclient-4.0} client span.
 */
public final class ApacheHttpClient4InstrumentationModule extends RichterInstrumentationModule {
    static final String CLIENT = "org.apache.http.impl.client.CloseableHttpClient";
    /** The helper classes, every class of {@code dev.richter.agent.apache4} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.apache4.ApacheHttpClient4Exits",
            "dev.richter.agent.apache4.ApacheHttpClient4Exits$MockedResponse"));

    public ApacheHttpClient4InstrumentationModule() {
        super("richter-apache-httpclient-4");
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
        return AgentElementMatchers.hasClassesNamed(CLIENT);
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.<TypeInstrumentation>singletonList(new DoExecuteInstrumentation());
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    static final class DoExecuteInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return AgentElementMatchers.extendsClass(named(CLIENT));
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isMethod().and(named("doExecute")).and(not(isAbstract()))
                            .and(takesArguments(3))
                            .and(takesArgument(0, named("org.apache.http.HttpHost")))
                            .and(takesArgument(1, named("org.apache.http.HttpRequest"))),
                    ApacheHttpClient4InstrumentationModule.class.getName() + "$Client4DoExecuteAdvice");
        }
    }

    /** Inlined into the client: names only the helper, HttpClient's and JDK types. */
    @SuppressWarnings("unused")
    public static final class Client4DoExecuteAdvice {
        private Client4DoExecuteAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(0) HttpHost target, @Advice.Argument(1) HttpRequest request) {
            return ApacheHttpClient4Exits.beforeExecute(target, request);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object answer,
                                @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object response,
                                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (answer instanceof Throwable) {
                thrown = (Throwable) answer;
            } else if (answer != null) {
                response = answer;
            }
        }
    }
}
