package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The isolation's catch-all at the network: the rule for a marked TCP connection that a client opens or writes,
 * whatever client it is (issue 46, item 4). The clients Richter guards decide their calls before any socket is touched
 * (HTTP exits by {@link HttpExitPolicy}, statements and commands by the storage rules); this rule is what stands
 * behind them for every other client. In this order:
 * <ol>
 *   <li>an unmarked connection passes, untouched and unlooked-at;</li>
 *   <li>a marked one before any configuration has loaded is refused ({@value HttpExitPolicy#NOT_LOADED});</li>
 *   <li>one to an address in the test's scope passes: its host as the client named it, or its IP address, or the
 *       address a scope host name resolves to (resolved once per configuration and name);</li>
 *   <li>one made by a datastore or broker client whose every call the extension decides passes: a frame of the
 *       calling thread's stack is in {@link #DECIDED_CLIENTS} (a JDBC driver or pool, Jedis, Lettuce, the Kafka
 *       producer and consumer), or the context says it was made for such a client ({@code IsolationGuard.decidedClient}: Lettuce's
 *       connects and writes, which Netty runs on its event loops with the caller's context and no Lettuce frame). Their
 *       statements, commands and records are shadowed or refused by their own rules, so the connection to the
 *       production store is theirs to use;</li>
 *   <li>any other marked connection would reach production through a client Richter does not guard: refused in
 *       {@link IsolationMode#ENFORCE}, passed and recorded ({@link ExitDecision.WouldRefuse}) in
 *       {@link IsolationMode#REPORT}.</li>
 * </ol>
 * An HTTP client Richter guards never reaches step 4: what its own rule lets through is in scope (mocked exits are
 * answered without a connection). Thread-safe.
 */
public final class NetworkPolicy {
    /**
     * Class-name prefixes of the clients whose every call the extension decides by its own rule and that connect to
     * stores outside the test's scope: JDBC (the drivers teams use, {@code java.sql.DriverManager} for any other, and
     * the pools that open connections for them), Jedis, Lettuce, the Kafka producer, the Kafka consumer (its commits of
     * a shadow topic's offsets go to the shadow group, {@code dev.richter.agent.kafkaconsumer}; a marked record's
     * processing runs on its thread until the next poll). A client is added here only with its guard.
     */
    public static final List<String> DECIDED_CLIENTS = Collections.unmodifiableList(Arrays.asList(
            "java.sql.DriverManager", "org.postgresql.", "org.mariadb.jdbc.", "com.mysql.", "org.h2.", "org.hsqldb.",
            "oracle.jdbc.", "com.microsoft.sqlserver.jdbc.", "com.zaxxer.hikari.", "org.apache.commons.dbcp2.",
            "org.apache.tomcat.jdbc.", "com.alibaba.druid.", "redis.clients.jedis.", "io.lettuce.core.",
            "org.apache.kafka.clients.producer.", "org.apache.kafka.clients.consumer."));

    private final Map<String, Set<String>> resolved = new ConcurrentHashMap<>();
    private volatile IsolationConfig resolvedFor;

    /**
     * @param marked whether the current context carries the load-test marker
     * @param host   the host as the client named it ({@code InetSocketAddress.getHostString()}), e.g. {@code
     *               api.stripe.com} or {@code 10.0.3.7}
     * @param ip     the address it connects to, e.g. {@code 10.0.3.7}; {@code ""} when unresolved
     * @param port   TCP port
     * @param stack  the calling thread's stack, innermost first
     * @param config the loaded configuration; empty before the first good load
     * @return the decision; the exit of a refusal is {@code host:port}
     */
    public ExitDecision decide(boolean marked, String host, String ip, int port, StackTraceElement[] stack,
                               Optional<IsolationConfig> config) {
        return decide(marked, host, ip, port, stack, "", config);
    }

    /**
     * As {@link #decide(boolean, String, String, int, StackTraceElement[], Optional)}, for a connection the context
     * says was made for {@code decidedBy}.
     *
     * @param decidedBy the decided client the current context names ({@code IsolationGuard.decidedClient}, e.g. {@code
     *                  lettuce}), {@code ""} when none
     */
    public ExitDecision decide(boolean marked, String host, String ip, int port, StackTraceElement[] stack,
                               String decidedBy, Optional<IsolationConfig> config) {
        if (!marked) {
            return ExitDecision.PASS;
        }
        String exit = host + ":" + port;
        if (!config.isPresent()) {
            return new ExitDecision.Refuse(exit, HttpExitPolicy.NOT_LOADED);
        }
        IsolationConfig c = config.get();
        if (inScope(c, host, ip, port)) {
            return ExitDecision.PASS;
        }
        if (!decidedBy.isEmpty() || decidedClient(stack).isPresent()) {
            return ExitDecision.PASS;
        }
        String reason = "a marked connection to " + exit + (ip.isEmpty() || ip.equals(host) ? "" : " (" + ip + ")")
                + ", outside the test's scope, by a client Richter does not guard (" + caller(stack)
                + "); refused at the network";
        return c.mode() == IsolationMode.ENFORCE
                ? new ExitDecision.Refuse(exit, reason)
                : new ExitDecision.WouldRefuse(exit, reason);
    }

    private boolean inScope(IsolationConfig c, String host, String ip, int port) {
        for (HostPort allowed : c.scope()) {
            if (allowed.covers(host, port) || (!ip.isEmpty() && allowed.covers(ip, port))) {
                return true;
            }
        }
        if (ip.isEmpty()) {
            return false;
        }
        for (HostPort allowed : c.scope()) {
            if ((allowed.port() == HostPort.ANY_PORT || allowed.port() == port) && addresses(c, allowed.host()).contains(ip)) {
                return true;
            }
        }
        return false;
    }

    /** The IP addresses a scope host resolves to, once per configuration; none when it does not resolve. */
    private Set<String> addresses(IsolationConfig c, String name) {
        if (resolvedFor != c) {
            resolved.clear();
            resolvedFor = c;
        }
        return resolved.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> {
            Set<String> ips = new HashSet<>();
            try {
                for (InetAddress a : InetAddress.getAllByName(n)) {
                    ips.add(a.getHostAddress());
                }
            } catch (UnknownHostException | SecurityException e) {
                // a name that does not resolve covers no address
            }
            return ips;
        });
    }

    /** The first frame of a client in {@link #DECIDED_CLIENTS}, as {@code class.method}. */
    static Optional<String> decidedClient(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            for (String prefix : DECIDED_CLIENTS) {
                if (frame.getClassName().startsWith(prefix)) {
                    return Optional.of(frame.getClassName() + "." + frame.getMethodName());
                }
            }
        }
        return Optional.empty();
    }

    /** The innermost frame outside the JDK and the agent: the code that made the connection. */
    static String caller(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            String c = frame.getClassName();
            if (!(c.startsWith("java.") || c.startsWith("javax.net.") || c.startsWith("sun.") || c.startsWith("jdk.")
                    || c.startsWith("dev.richter.agent.") || c.startsWith("io.opentelemetry.javaagent."))) {
                return c + "." + frame.getMethodName();
            }
        }
        return "the JDK";
    }
}
