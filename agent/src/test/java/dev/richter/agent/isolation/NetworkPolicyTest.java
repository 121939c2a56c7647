package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NetworkPolicyTest {
    private final NetworkPolicy policy = new NetworkPolicy();

    private static Optional<IsolationConfig> config(String mode) {
        return Optional.of(IsolationConfig.parse(("""
                {"mode": "%s", "scope": ["orders.internal:8080", "10.0.3.7", "localhost:9000"], "mocks": []}
                """).formatted(mode).getBytes(StandardCharsets.UTF_8)));
    }

    private static StackTraceElement[] stack(String... classes) {
        StackTraceElement[] frames = new StackTraceElement[classes.length];
        for (int i = 0; i < classes.length; i++) {
            frames[i] = new StackTraceElement(classes[i], "call", null, -1);
        }
        return frames;
    }

    private static final StackTraceElement[] HTTP_CLIENT_4 = stack("java.net.Socket",
            "org.apache.http.impl.conn.DefaultHttpClientConnectionOperator", "com.shop.PaymentClient");

    @Test
    void unmarkedConnectionsPassWithOrWithoutAConfiguration() {
        assertEquals(ExitDecision.PASS, policy.decide(false, "api.stripe.com", "3.18.12.63", 443, HTTP_CLIENT_4,
                config("enforce")));
        assertEquals(ExitDecision.PASS, policy.decide(false, "api.stripe.com", "", 443, HTTP_CLIENT_4, Optional.empty()));
    }

    @Test
    void markedConnectionsAreRefusedUntilAConfigurationHasLoaded() {
        assertEquals(new ExitDecision.Refuse("orders.internal:8080", "isolation configuration not loaded"),
                policy.decide(true, "orders.internal", "10.0.0.5", 8080, HTTP_CLIENT_4, Optional.empty()));
    }

    @Test
    void aMarkedConnectionInScopePassesByTheNameTheAddressOrWhatAScopeNameResolvesTo() {
        assertEquals(ExitDecision.PASS, policy.decide(true, "ORDERS.internal", "10.0.0.5", 8080, HTTP_CLIENT_4,
                config("enforce")));
        assertEquals(ExitDecision.PASS, policy.decide(true, "inventory.internal", "10.0.3.7", 1234, HTTP_CLIENT_4,
                config("enforce")), "by its IP address, any port");
        assertEquals(ExitDecision.PASS, policy.decide(true, "127.0.0.1", "127.0.0.1", 9000, HTTP_CLIENT_4,
                config("enforce")), "localhost resolves to 127.0.0.1");
        assertInstanceOf(ExitDecision.Refuse.class, policy.decide(true, "127.0.0.1", "127.0.0.1", 9001, HTTP_CLIENT_4,
                config("enforce")), "another port of a scope host is not in scope");
        assertInstanceOf(ExitDecision.Refuse.class, policy.decide(true, "orders.internal", "10.0.0.5", 8081,
                HTTP_CLIENT_4, config("enforce")));
    }

    @Test
    void aMarkedConnectionOutOfScopeIsRefusedNamingTheAddressAndTheCodeThatMadeIt() {
        ExitDecision d = policy.decide(true, "api.stripe.com", "3.18.12.63", 443, HTTP_CLIENT_4, config("enforce"));

        assertEquals(new ExitDecision.Refuse("api.stripe.com:443", "a marked connection to api.stripe.com:443"
                + " (3.18.12.63), outside the test's scope, by a client Richter does not guard"
                + " (org.apache.http.impl.conn.DefaultHttpClientConnectionOperator.call); refused at the network"), d);
    }

    @Test
    void reportModeLetsItThroughAndSaysItWouldRefuse() {
        ExitDecision d = policy.decide(true, "api.stripe.com", "3.18.12.63", 443, HTTP_CLIENT_4, config("report"));

        assertInstanceOf(ExitDecision.WouldRefuse.class, d);
        assertTrue(((ExitDecision.WouldRefuse) d).reason().contains("refused at the network"), d.toString());
    }

    @Test
    void aStoreClientWhoseCallsTheExtensionDecidesConnectsToItsStore() {
        for (String client : new String[] {"org.postgresql.core.PGStream", "org.mariadb.jdbc.client.impl.ConnectionHelper",
                "java.sql.DriverManager", "com.zaxxer.hikari.pool.PoolBase", "redis.clients.jedis.Connection",
                "org.h2.engine.SessionRemote", "io.lettuce.core.protocol.DefaultEndpoint",
                "org.apache.kafka.clients.consumer.internals.ConsumerNetworkClient"}) {
            assertEquals(ExitDecision.PASS, policy.decide(true, "db.internal", "10.9.9.9", 5432,
                    stack("java.net.Socket", client, "com.shop.OrderRepository"), config("enforce")), client);
        }
    }

    @Test
    void aClientNamedLikeAStoreClientButNotOneIsNotTrusted() {
        for (String client : new String[] {"org.redisson.Redisson", "org.apache.kafka.clients.admin.KafkaAdminClient",
                "software.amazon.awssdk.http.apache.ApacheHttpClient", "com.shop.jdbc.Exporter"}) {
            assertInstanceOf(ExitDecision.Refuse.class, policy.decide(true, "db.internal", "10.9.9.9", 5432,
                    stack("java.net.Socket", client), config("enforce")), client);
        }
    }

    /**
     * Lettuce's connects and writes run on Netty's event loop, with the caller's marked context and only Netty frames on
     * the stack (LettuceIsolationIT saw the connect refused from io.netty.util.internal.SocketUtils$3.run): the context
     * naming the decided client passes them; the same stack without it is refused.
     */
    @Test
    void aConnectionTheContextSaysADecidedClientMadePasses() {
        StackTraceElement[] eventLoop = stack("sun.nio.ch.SocketChannelImpl", "io.netty.util.internal.SocketUtils$3",
                "io.netty.channel.socket.nio.NioSocketChannel", "io.netty.channel.nio.NioEventLoop");

        assertEquals(ExitDecision.PASS, policy.decide(true, "127.0.0.1", "127.0.0.1", 6379, eventLoop, "lettuce",
                config("enforce")));
        assertInstanceOf(ExitDecision.Refuse.class, policy.decide(true, "127.0.0.1", "127.0.0.1", 6379, eventLoop, "",
                config("enforce")));
    }

    @Test
    void theCallerIsTheInnermostFrameOutsideTheJdkAndTheAgent() {
        assertEquals("com.shop.Client.call", NetworkPolicy.caller(stack("java.net.Socket", "sun.nio.ch.SocketChannelImpl",
                "dev.richter.agent.bootstrap.NetworkGate", "com.shop.Client")));
        assertEquals("the JDK", NetworkPolicy.caller(stack("java.net.Socket", "jdk.internal.misc.Foo")));
    }
}
