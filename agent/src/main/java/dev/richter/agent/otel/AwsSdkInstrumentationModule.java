package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The isolation at the AWS SDK for Java v2 (tested with 2.57.8; DynamoDB's shadow tables, SQS's shadow queues, every
 * other service's writes refused): {@link AwsSdkSyncAdvice} on {@code
 * software.amazon.awssdk.core.internal.handler.BaseSyncClientHandler.execute} and {@link AwsSdkAsyncAdvice} on {@code
 * BaseAsyncClientHandler.execute}, both overloads each (with and without a response transformer). Every generated
 * client of every service, sync or async, calls one of them once per call, on the caller's thread, with the operation's
 * name and its request, before the SDK's interceptors, credentials, signing and HTTP client: so one place decides every
 * call, the request can be replaced before anything reads it, and the call runs in a context naming the decided client,
 * which is what lets the SDK's own HTTP client (Apache, {@code HttpURLConnection}, Netty, CRT) and its credential and
 * endpoint-discovery calls through the HTTP guards and the network catch-all for this call only. (An {@code
 * ExecutionInterceptor} sees the request too, but its hooks are separate calls, with no scope around the call's HTTP
 * exchange.) The helpers {@code dev.richter.agent.awssdk.AwsSdkExits} and {@code S3Objects} are injected next to the
 * SDK. Instrumentation name {@code richter-aws-sdk}.
 */
public final class AwsSdkInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.awssdk} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList("dev.richter.agent.awssdk.AwsSdkExits",
            "dev.richter.agent.awssdk.S3Objects"));

    static final String SYNC = "software.amazon.awssdk.core.internal.handler.BaseSyncClientHandler";
    static final String ASYNC = "software.amazon.awssdk.core.internal.handler.BaseAsyncClientHandler";
    static final String PARAMS = "software.amazon.awssdk.core.client.handler.ClientExecutionParams";

    public AwsSdkInstrumentationModule() {
        super("richter-aws-sdk");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Arrays.<TypeInstrumentation>asList(handler(SYNC, AwsSdkSyncAdvice.class.getName()),
                handler(ASYNC, AwsSdkAsyncAdvice.class.getName()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    /** Every public {@code execute(ClientExecutionParams, ...)} of one handler class. */
    static OneMethodInstrumentation handler(String type, String advice) {
        return new OneMethodInstrumentation(type, isMethod().and(isPublic()).and(named("execute"))
                .and(takesArgument(0, named(PARAMS))), advice);
    }
}
