package dev.richter.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A name that passes its check and then resolves to a refused address for the connection (DNS rebinding), through the
 * JDK's own resolution. {@link CheckedResolverProvider} asks a table here instead of the host's DNS, and this JVM keeps
 * no positive cache ({@code sun.net.inetaddr.ttl=0}, set by this module's pom);
 * each test changes the table between the check and the call, as a name server with a zero TTL would change its answer.
 * The harmed side is a server on loopback, which inside a Lambda function is the function's own sandbox: it counts what
 * reached it.
 */
class DnsRebindingTest {
    private static final Map<String, String> TABLE = new ConcurrentHashMap<>();
    private final AtomicInteger reached = new AtomicInteger();
    private HttpServer server;

    @BeforeAll
    static void askTheTable() {
        CheckedResolverProvider.askInsteadOfTheBuiltInResolver(new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy lookupPolicy) throws UnknownHostException {
                String a = "localhost".equals(host) ? "127.0.0.1" : TABLE.get(host);
                if (a == null) {
                    throw new UnknownHostException(host);
                }
                return Stream.of(InetAddress.getByName(a));
            }

            @Override
            public String lookupByAddress(byte[] addr) throws UnknownHostException {
                throw new UnknownHostException();
            }
        });
    }

    @AfterAll
    static void askTheBuiltInResolver() {
        CheckedResolverProvider.askInsteadOfTheBuiltInResolver(null);
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            reached.incrementAndGet();
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static void answer(String name, String address) {
        TABLE.put(name, address);
    }

    @Test
    void theJvmResolvesThroughRichtersCheckedResolver() {
        assertEquals("0", System.getProperty("sun.net.inetaddr.ttl"), "the JVM keeps no positive name cache (argLine in libs/common/pom.xml)");
        assertTrue(CheckedResolverProvider.ensureInstalled(), "the JDK loaded CheckedResolverProvider");
    }

    @Test
    void anHttpCallToANameThatPassedItsCheckAndThenResolvesToLoopbackSendsNothing() throws Exception {
        AllowedNetworks aws = new AllowedNetworks("", false, AllowedNetworks.SYSTEM);
        answer("rebind-http.test", "10.255.255.1");
        assertEquals(Optional.empty(), aws.refusal("rebind-http.test"), "a private address passes the check");
        answer("rebind-http.test", "127.0.0.1");
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest call = HttpRequest.newBuilder(URI.create("http://rebind-http.test:" + server.getAddress().getPort() + "/"))
                .timeout(Duration.ofSeconds(2)).build();
        IOException e = assertThrows(IOException.class, () -> client.send(call, HttpResponse.BodyHandlers.discarding()));
        assertEquals(0, reached.get(), "the loopback server was not reached: " + e);
        assertEquals(Optional.of("127.0.0.1 (rebind-http.test) is loopback: inside Richter's functions that is Richter"
                + " itself"), aws.refusal("rebind-http.test"), "the next check gives the resolver's reason");
    }

    @Test
    void aSocketToANameThatPassedItsCheckAndThenResolvesToLoopbackIsNotOpened() throws Exception {
        AllowedNetworks aws = new AllowedNetworks("", false, AllowedNetworks.SYSTEM);
        answer("rebind-tcp.test", "10.255.255.2");
        assertEquals(Optional.empty(), aws.refusal("rebind-tcp.test"));
        answer("rebind-tcp.test", "127.0.0.1");
        try (Socket s = new Socket()) {
            InetSocketAddress target = new InetSocketAddress("rebind-tcp.test", server.getAddress().getPort());
            assertTrue(target.isUnresolved(), "the name did not resolve for the connection");
            assertThrows(IOException.class, () -> s.connect(target, 2000));
        }
        assertEquals(0, reached.get());
    }

    @Test
    void aNameNoPolicyCheckedIsResolvedAsTheJdkWould() throws Exception {
        answer("unwatched.test", "127.0.0.1");
        assertEquals("127.0.0.1", InetAddress.getByName("unwatched.test").getHostAddress(),
                "names Richter did not check (its own AWS endpoints) are not judged");
    }

    @Test
    void aNameThatKeepsAnAllowedAnswerIsCalled() throws Exception {
        AllowedNetworks local = new AllowedNetworks("", true, AllowedNetworks.SYSTEM);
        answer("stays.test", "127.0.0.1");
        assertEquals(Optional.empty(), local.refusal("stays.test"));
        HttpResponse<Void> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://stays.test:" + server.getAddress().getPort() + "/")).build(),
                HttpResponse.BodyHandlers.discarding());
        assertEquals(204, r.statusCode());
        assertEquals(1, reached.get());
    }
}
