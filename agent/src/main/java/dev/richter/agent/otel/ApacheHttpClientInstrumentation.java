package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.apache.ApacheHttpClientExits;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatcher;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.HttpHost;

/**
 * {@code doExecute(target, request, context)} of Apache HttpClient 5's classic clients (every subclass of {@code
 * CloseableHttpClient}: {@code InternalHttpClient}, {@code MinimalHttpClient}), where every {@code execute} overload
 * (with or without a response handler) and {@code executeOpen} end. A MOCK skips it and returns the mock's answer;
 * a REFUSE skips it and throws the refusal's {@code IOException}; a PASS runs it untouched.
 */
public final class ApacheHttpClientInstrumentation implements TypeInstrumentation {
    static final String CLIENT = "org.apache.hc.client5.http.impl.classic.CloseableHttpClient";

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return AgentElementMatchers.extendsClass(named(CLIENT));
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(named("doExecute")).and(not(isAbstract()))
                        .and(takesArguments(3))
                        .and(takesArgument(0, named("org.apache.hc.core5.http.HttpHost")))
                        .and(takesArgument(1, named("org.apache.hc.core5.http.ClassicHttpRequest"))),
                ApacheHttpClientInstrumentation.class.getName() + "$DoExecuteAdvice");
    }

    /** Inlined into the client: names only the helper, HttpClient's and JDK types. */
    @SuppressWarnings("unused")
    public static final class DoExecuteAdvice {
        private DoExecuteAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(0) HttpHost target, @Advice.Argument(1) ClassicHttpRequest request) {
            return ApacheHttpClientExits.beforeExecute(target, request);
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
