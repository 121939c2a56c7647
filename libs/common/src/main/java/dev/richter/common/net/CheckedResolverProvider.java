package dev.richter.common.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Stream;

/**
 * This JVM's name resolution, judged by {@link AllowedNetworks} for the names Richter checks: the answer a client
 * connects to is the answer that was judged, so a name cannot pass its check and then resolve elsewhere for the
 * connection (DNS rebinding). A JDK resolver provider (JEP 418, {@link InetAddressResolverProvider}, JDK 18 and
 * later), named in {@code META-INF/services/java.net.spi.InetAddressResolverProvider}.
 *
 * <p>Every client Richter's functions use resolves through {@link InetAddress}: the JDK's {@code HttpClient} (webhooks,
 * HTTP probes, data-construction flows, the ownership fetch), {@code java.net.Socket} (TCP probes, reachability), and
 * Netty's and gRPC's default resolvers (the load driver, gRPC probes). A name is watched once an {@link AllowedNetworks}
 * built on {@link AllowedNetworks#SYSTEM} has checked it; from then on every lookup of it in this JVM, cached or not,
 * comes from an answer this resolver judged by that policy. A refused answer is a {@link RefusedAnswer}, which the
 * clients see as the name not resolving, so nothing is sent. Other names (the AWS endpoints Richter's own SDK clients
 * call) pass through to the JDK's built-in resolver unjudged.
 *
 * <p>The JDK loads a provider once, at the JVM's first name lookup, with the class loader of the thread doing it.
 * {@link #ensureInstalled()} makes that lookup happen under this class's loader when Richter's code is the first to
 * resolve a name, and {@link #installed()} says whether it worked; {@link AllowedNetworks} refuses every name when it
 * did not, as a name's check would then prove nothing about the connection.
 */
public final class CheckedResolverProvider extends InetAddressResolverProvider {
    private static final ConcurrentMap<String, AllowedNetworks> WATCHED = new ConcurrentHashMap<>();
    private static final ConcurrentMap<String, String> REFUSED = new ConcurrentHashMap<>();
    private static volatile boolean installed;
    private static volatile InetAddressResolver nameServer;

    /** The answer for a watched name that its policy refuses; the message is the policy's reason. */
    public static final class RefusedAnswer extends UnknownHostException {
        RefusedAnswer(String reason) {
            super(reason);
        }
    }

    /** Called by the JDK's {@link java.util.ServiceLoader}. */
    public CheckedResolverProvider() {}

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtinResolver = configuration.builtinResolver();
        installed = true;
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy lookupPolicy) throws UnknownHostException {
                InetAddressResolver builtin = nameServer == null ? builtinResolver : nameServer;
                AllowedNetworks policy = WATCHED.get(host.toLowerCase(Locale.ROOT));
                if (policy == null) {
                    return builtin.lookupByName(host, lookupPolicy);
                }
                String key = host.toLowerCase(Locale.ROOT);
                InetAddress[] answer;
                try {
                    answer = builtin.lookupByName(host, lookupPolicy).toArray(InetAddress[]::new);
                } catch (UnknownHostException e) {
                    REFUSED.remove(key);
                    throw e;
                }
                Optional<String> refusal = policy.judge(host, answer);
                if (refusal.isPresent()) {
                    REFUSED.put(key, refusal.get());
                    throw new RefusedAnswer(refusal.get());
                }
                REFUSED.remove(key);
                return Stream.of(answer);
            }

            @Override
            public String lookupByAddress(byte[] addr) throws UnknownHostException {
                return (nameServer == null ? builtinResolver : nameServer).lookupByAddress(addr);
            }
        };
    }

    @Override
    public String name() {
        return "richter-allowed-networks";
    }

    /** Whether the JDK loaded this provider as this JVM's resolver. */
    public static boolean installed() {
        return installed;
    }

    /**
     * Makes this JVM's first name lookup, if it has not happened yet, with this class's loader as the thread's context
     * loader, so the JDK finds this provider even where Richter's classes are not on the system class path (Lambda's
     * Java runtime loads a function's jar with its own loader).
     *
     * @return {@link #installed()} after the attempt
     */
    public static boolean ensureInstalled() {
        if (installed) {
            return true;
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(CheckedResolverProvider.class.getClassLoader());
        try {
            InetAddress.getAllByName("localhost");
        } catch (UnknownHostException e) {
            // the lookup only had to happen; its answer does not matter
        } finally {
            thread.setContextClassLoader(previous);
        }
        return installed;
    }

    /**
     * For tests: the name server asked instead of the JDK's built-in resolver (which reads the host's DNS and hosts
     * file), so a test can change a name's answer between its check and its call; null restores the built-in one.
     */
    static void askInsteadOfTheBuiltInResolver(InetAddressResolver resolver) {
        nameServer = resolver;
    }

    /**
     * Why the last lookup of {@code host} was refused, if it was: the JDK caches a failed lookup for a while
     * ({@code networkaddress.cache.negative.ttl}, 10 s) and answers it from the cache without this reason.
     */
    static Optional<String> lastRefusal(String host) {
        return Optional.ofNullable(REFUSED.get(host.toLowerCase(Locale.ROOT)));
    }

    /** Judges every later lookup of {@code host} (a name, not a literal) by {@code policy}. */
    static void watch(String host, AllowedNetworks policy) {
        WATCHED.put(host.toLowerCase(Locale.ROOT), policy);
    }
}
