package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.apacheasync.ApacheHttpAsyncClientExits;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatcher;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;

/**
 * The isolation at Apache HttpClient 5's async client: {@link ExecuteImmediateAdvice} on {@code
 * org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient.executeImmediate(HttpRequest,
 * AsyncEntityProducer, AsyncExecChain.Scope, AsyncExecChain, AsyncExecCallback)} (httpclient5 5.x; tested with 5.5.1),
 * where every {@code execute} of the clients {@code HttpAsyncClients} and {@code H2AsyncClientBuilder} build starts its
 * execution chain. A MOCK or REFUSE skips the chain and answers through its callback ({@code
 * dev.richter.agent.apacheasync.ApacheHttpAsyncClientExits}, injected next to HttpClient); a PASS runs it untouched.
 * The minimal clients ({@code HttpAsyncClients.createMinimal()}, {@code MinimalH2AsyncClient}) have no execution chain
 * and are not covered. Instrumentation name {@code richter-apache-httpclient-5-async}.
 */
public final class ApacheHttpAsyncClientInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.apacheasync} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.apacheasync.ApacheHttpAsyncClientExits",
            "dev.richter.agent.apacheasync.ApacheHttpAsyncClientExits$MockedChain"));

    static final String CLIENT = "org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient";

    public ApacheHttpAsyncClientInstrumentationModule() {
        super("richter-apache-httpclient-5-async");
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
        return AgentElementMatchers.hasClassesNamed(CLIENT);
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.<TypeInstrumentation>singletonList(new OneMethodInstrumentation(CLIENT,
                isMethod().and(named("executeImmediate")).and(takesArguments(5))
                        .and(takesArgument(0, named("org.apache.hc.core5.http.HttpRequest")))
                        .and(takesArgument(4, named("org.apache.hc.client5.http.async.AsyncExecCallback"))),
                ExecuteImmediateAdvice.class.getName()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    /** Inlined into the client: names only the helper, HttpClient's and JDK types. */
    @SuppressWarnings("unused")
    public static final class ExecuteImmediateAdvice {
        private ExecuteImmediateAdvice() {}

        /** @return {@code true} to skip the chain: the exchange was answered or failed through its callback */
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.Argument(0) HttpRequest request,
                                    @Advice.Argument(1) AsyncEntityProducer producer,
                                    @Advice.Argument(2) AsyncExecChain.Scope scope,
                                    @Advice.Argument(4) AsyncExecCallback callback) {
            return ApacheHttpAsyncClientExits.answered(request, producer, scope, callback);
        }
    }
}
