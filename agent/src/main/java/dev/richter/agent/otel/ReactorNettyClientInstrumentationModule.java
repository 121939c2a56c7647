package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.reactornettyclient.ReactorNettyClientExits;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatcher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClientConfig;

/**
 * The isolation at reactor-netty's {@code HttpClient} (1.x; tested with 1.2.11) and Spring's {@code WebClient} over
 * it: {@link SubscribeAdvice} on {@code reactor.netty.http.client.HttpClientConnect$MonoHttpConnect.subscribe
 * (CoreSubscriber)}, where every request is read and its connection acquired when its {@code Mono} is subscribed (a
 * MOCK or REFUSE answers the subscriber instead), and {@link RequestAssemblyAdvice} on {@code
 * HttpClientConnect.connect()}, where the application's {@code response*()} call builds the request's {@code Mono}
 * (tagged when built marked). See
 * {@code dev.richter.agent.reactornettyclient.ReactorNettyClientExits}; it and {@code
 * reactor.netty.http.client.RichterClientExchange} (in reactor-netty's package: what it reads is package-private
 * there) are injected next to reactor-netty. Order 1 (inherited): the tag wraps the {@code Mono} the agent's {@code
 * reactor-netty-1.0} instrumentation built. Instrumentation name {@code richter-reactor-netty-client}.
 */
public final class ReactorNettyClientInstrumentationModule extends RichterInstrumentationModule {
    /**
     * The helper classes, every class of {@code dev.richter.agent.reactornettyclient} and the extension's classes in
     * {@code reactor.netty.http.client} (held so by a test).
     */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.reactornettyclient.ReactorNettyClientExits",
            "reactor.netty.http.client.RichterClientExchange",
            "reactor.netty.http.client.RichterClientExchange$Exchange",
            "reactor.netty.http.client.RichterClientExchange$Answering",
            "reactor.netty.http.client.RichterClientExchange$Sent",
            "reactor.netty.http.client.RichterClientExchange$Wire",
            "reactor.netty.http.client.RichterClientExchange$Bridge"));

    static final String CONNECT = "reactor.netty.http.client.HttpClientConnect";
    static final String SUBSCRIBE = "reactor.netty.http.client.HttpClientConnect$MonoHttpConnect";

    public ReactorNettyClientInstrumentationModule() {
        super("richter-reactor-netty-client");
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
        return AgentElementMatchers.hasClassesNamed(SUBSCRIBE, "io.netty.channel.embedded.EmbeddedChannel");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Arrays.<TypeInstrumentation>asList(
                new OneMethodInstrumentation(SUBSCRIBE, isMethod().and(named("subscribe")).and(takesArguments(1))
                        .and(takesArgument(0, named("reactor.core.CoreSubscriber"))), SubscribeAdvice.class.getName()),
                new OneMethodInstrumentation(CONNECT, isMethod().and(named("connect")).and(takesArguments(0)),
                        RequestAssemblyAdvice.class.getName()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    /** Inlined into {@code MonoHttpConnect.subscribe}: names only the helper, reactor-netty's and Reactor's types. */
    @SuppressWarnings({"unused", "rawtypes", "unchecked"})
    public static final class SubscribeAdvice {
        private SubscribeAdvice() {}

        /** @return {@code true} to skip the subscription: the subscriber was answered by the mock or refused */
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.FieldValue("config") HttpClientConfig config,
                                    @Advice.Argument(0) CoreSubscriber actual) {
            return ReactorNettyClientExits.answered(config, actual);
        }
    }

    /** Inlined into {@code HttpClientConnect.connect()}: names only the helper and Reactor's {@code Mono}. */
    @SuppressWarnings({"unused", "rawtypes", "unchecked"})
    public static final class RequestAssemblyAdvice {
        private RequestAssemblyAdvice() {}

        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Mono connection) {
            connection = ReactorNettyClientExits.atAssembly(connection);
        }
    }
}
