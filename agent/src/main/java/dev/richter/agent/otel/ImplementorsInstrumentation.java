package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Every class implementing one interface (a JDBC one, a Servlet one), in the class loaders that have it; the subclass
 * says which methods get which advice.
 */
abstract class ImplementorsInstrumentation implements TypeInstrumentation {
    /** The interface's name, e.g. {@code java.sql.Statement}. */
    protected final String iface;

    protected ImplementorsInstrumentation(String iface) {
        this.iface = iface;
    }

    @Override
    public ElementMatcher<ClassLoader> classLoaderOptimization() {
        return AgentElementMatchers.hasClassesNamed(iface);
    }

    @Override
    public ElementMatcher<TypeDescription> typeMatcher() {
        return not(isInterface()).and(AgentElementMatchers.implementsInterface(named(iface)));
    }
}
