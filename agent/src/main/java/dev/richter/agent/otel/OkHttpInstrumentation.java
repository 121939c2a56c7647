package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.okhttp.OkHttpExits;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatcher;
import okhttp3.Interceptor;

/**
 * {@code intercept} of OkHttp's {@code RetryAndFollowUpInterceptor}, the first interceptor of OkHttp's own, which
 * every {@code RealCall.execute()} and {@code enqueue(callback)} goes through after the application's interceptors.
 * A MOCK skips it (no connection is made) and returns the mock's answer; a REFUSE skips it and throws the refusal's
 * {@code IOException}; a PASS runs it untouched. See {@link OkHttpExits}.
 */
public final class OkHttpInstrumentation implements TypeInstrumentation {
    static final String INTERCEPTOR = "okhttp3.internal.http.RetryAndFollowUpInterceptor";

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return named(INTERCEPTOR);
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(named("intercept")).and(takesArguments(1)),
                OkHttpInstrumentation.class.getName() + "$InterceptAdvice");
    }

    /** Inlined into OkHttp's interceptor: names only the helper, OkHttp and JDK types. */
    @SuppressWarnings("unused")
    public static final class InterceptAdvice {
        private InterceptAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(0) Interceptor.Chain chain) {
            return OkHttpExits.beforeNetwork(chain);
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
