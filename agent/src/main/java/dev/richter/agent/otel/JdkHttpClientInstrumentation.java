package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.jdk.JdkHttpClientExits;
import io.opentelemetry.javaagent.bootstrap.CallDepth;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code send} and {@code sendAsync} of the JDK's {@code HttpClient} implementations (the classes the agent's own
 * {@code java-http-client} instrumentation matches: {@code java.net.*} and {@code jdk.internal.*} subclasses of
 * {@code java.net.http.HttpClient} but the facade). A MOCK skips the call and returns the mock's answer; a REFUSE
 * skips it and throws (or fails the future with) the refusal's {@code IOException}; a PASS runs it untouched. A Java
 * 11 class, as its helpers are: {@link JdkHttpClientInstrumentationModule} instantiates it on Java 11 and later only.
 */
public final class JdkHttpClientInstrumentation implements TypeInstrumentation {

    @Override
    public ElementMatcher<ClassLoader> classLoaderOptimization() {
        return AgentElementMatchers.hasClassesNamed("java.net.http.HttpClient");
    }

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return nameStartsWith("java.net.").or(nameStartsWith("jdk.internal."))
                .and(not(named("jdk.internal.net.http.HttpClientFacade")))
                .and(AgentElementMatchers.extendsClass(named("java.net.http.HttpClient")));
    }

    @Override
    public void transform(TypeTransformer transformer) {
        transformer.applyAdviceToMethod(isMethod().and(named("send")).and(isPublic()).and(takesArguments(2))
                        .and(takesArgument(0, named("java.net.http.HttpRequest"))),
                JdkHttpClientInstrumentation.class.getName() + "$SendAdvice");
        transformer.applyAdviceToMethod(isMethod().and(named("sendAsync")).and(isPublic())
                        .and(takesArgument(0, named("java.net.http.HttpRequest"))),
                JdkHttpClientInstrumentation.class.getName() + "$SendAsyncAdvice");
    }

    /** {@code send(request, handler)}: inlined into the JDK's client, so it names only the helper and JDK types. */
    @SuppressWarnings("unused")
    public static final class SendAdvice {
        private SendAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(0) HttpRequest request,
                                   @Advice.Argument(1) HttpResponse.BodyHandler<?> handler) {
            return JdkHttpClientExits.beforeSend(request, handler);
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

    /**
     * {@code sendAsync(request, handler[, pushPromiseHandler])}: the two-argument form calls the three-argument one,
     * so only the outermost call of a thread decides ({@link CallDepth}).
     */
    @SuppressWarnings("unused")
    public static final class SendAsyncAdvice {
        private SendAsyncAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(0) HttpRequest request,
                                   @Advice.Argument(1) HttpResponse.BodyHandler<?> handler,
                                   @Advice.Local("richterDepth") CallDepth depth) {
            depth = CallDepth.forClass(JdkHttpClientExits.class);
            if (depth.getAndIncrement() > 0) {
                return null;
            }
            return JdkHttpClientExits.beforeSendAsync(request, handler);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object answer,
                                @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object future,
                                @Advice.Local("richterDepth") CallDepth depth) {
            depth.decrementAndGet();
            if (answer != null) {
                future = answer;
            }
        }
    }
}
