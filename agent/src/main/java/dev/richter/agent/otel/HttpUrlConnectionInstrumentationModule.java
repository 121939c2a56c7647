package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.bootstrap.UrlConnectionGate;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Isolation at the JDK's {@code java.net.HttpURLConnection}: the public {@code connect()}, {@code getOutputStream()}
 * and {@code getInputStream()} of {@code sun.net.www.protocol.http.HttpURLConnection} (also what HTTPS connections
 * delegate to) ask {@link UrlConnectionGate} first and throw its refusal, so a marked call outside the test's scope
 * never leaves the JVM. Instrumentation name {@code richter-http-url-connection}. Its advice names only the bridge
 * and JDK types (the JDK's class is on the boot class path, where the bridge is).
 */
public final class HttpUrlConnectionInstrumentationModule extends RichterInstrumentationModule {
    public HttpUrlConnectionInstrumentationModule() {
        super("richter-http-url-connection");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.<TypeInstrumentation>singletonList(new ConnectionInstrumentation());
    }

    /** {@code sun.net.www.protocol.http.HttpURLConnection}'s connect, send and read entry points. */
    static final class ConnectionInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return namedOneOf("sun.net.www.protocol.http.HttpURLConnection",
                    "sun.net.www.protocol.https.AbstractDelegateHttpsURLConnection");
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isMethod().and(isPublic())
                            .and(namedOneOf("connect", "getOutputStream", "getInputStream")).and(takesArguments(0)),
                    HttpUrlConnectionInstrumentationModule.class.getName() + "$GateAdvice");
        }
    }

    /** Inlined into the JDK's class: throws the gate's refusal before the method runs. */
    @SuppressWarnings("unused")
    public static final class GateAdvice {
        private GateAdvice() {}

        @Advice.OnMethodEnter
        public static void enter(@Advice.This HttpURLConnection connection) throws IOException {
            IOException refusal = UrlConnectionGate.before(connection);
            if (refusal != null) {
                throw refusal;
            }
        }
    }
}
