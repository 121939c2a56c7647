package dev.richter.common.net;

import dev.richter.common.Env;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The networks a deployment lets Richter call: where a registered target, a webhook or an evidence source may be.
 * Checked at registration and again at each call, on the addresses the host name resolves to now, so a name that
 * resolves to a refused address is refused.
 *
 * <p>Always refused, whatever the allowlist says: the link-local ranges (169.254.0.0/16, where EC2's and ECS's
 * metadata endpoints live; fe80::/10; fd00:ec2::/32, EC2's IPv6 metadata), the unspecified and "this network" ranges
 * (0.0.0.0/8, ::), multicast (224.0.0.0/4, ff00::/8), and loopback (127.0.0.0/8, ::1: inside a Lambda function it is
 * the function's own sandbox and its runtime API) unless {@code allowLoopback}, which only the local stack sets. An
 * IPv4-mapped IPv6 address is judged as its IPv4 address.
 *
 * <p>Then the allowlist ({@code RICHTER_ALLOWED_NETWORKS}, the template parameter {@code AllowedNetworks}): entries
 * separated by commas, each a CIDR block ({@code 10.0.0.0/8}, {@code 2600:1f18::/32}) or a host-name suffix starting
 * with a dot ({@code .internal.example.com}, matching that domain's hosts). Empty: every address not refused above.
 * Otherwise a host passes when its name matches a suffix or every address it resolves to lies in a block. CIDR
 * parsing and matching are the IPAddress library's (com.github.seancfoley:ipaddress).
 *
 * <p>Built on {@link #SYSTEM}, a policy also holds the connection to its check: each name it checks is watched by
 * {@link CheckedResolverProvider}, so every later lookup of that name in this JVM, the client's own included, is judged
 * the same way, and a name that passed its check and then resolves to a refused address is refused when the client
 * connects (DNS rebinding).
 */
public final class AllowedNetworks {
    private static final List<IPAddress> ALWAYS_REFUSED = blocks(List.of("169.254.0.0/16", "fe80::/10", "fd00:ec2::/32",
            "0.0.0.0/8", "::/128", "224.0.0.0/4", "ff00::/8"));
    private static final List<IPAddress> LOOPBACK = blocks(List.of("127.0.0.0/8", "::1/128"));

    /** Resolves a host name to its addresses. */
    @FunctionalInterface
    public interface Resolver {
        /** @throws UnknownHostException when the name does not resolve */
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** The JVM's own name lookup ({@link InetAddress#getAllByName}), whose later answers the policy also judges. */
    public static final Resolver SYSTEM = InetAddress::getAllByName;

    private final List<IPAddress> blocks;
    private final List<String> suffixes;
    private final boolean allowLoopback;
    private final Resolver resolver;

    /**
     * @param spec          the allowlist as above; blank for none
     * @param allowLoopback whether loopback addresses pass (the local stack)
     * @param resolver      the DNS lookup, {@link #SYSTEM} in production
     * @throws IllegalArgumentException naming the entry that is neither a CIDR block nor a {@code .suffix}
     */
    public AllowedNetworks(String spec, boolean allowLoopback, Resolver resolver) {
        List<IPAddress> b = new ArrayList<>();
        List<String> s = new ArrayList<>();
        for (String raw : spec == null ? new String[0] : spec.split(",")) {
            String entry = raw.strip().toLowerCase(Locale.ROOT);
            if (entry.isEmpty()) {
                continue;
            }
            if (entry.startsWith(".") && entry.length() > 1) {
                s.add(entry);
                continue;
            }
            IPAddress block = new IPAddressString(entry).getAddress();
            if (block == null || !entry.contains("/")) {
                throw new IllegalArgumentException("allowed networks: '" + raw.strip()
                        + "' is neither a CIDR block (10.0.0.0/8) nor a host suffix (.internal.example.com)");
            }
            b.add(block.toPrefixBlock());
        }
        this.blocks = List.copyOf(b);
        this.suffixes = List.copyOf(s);
        this.allowLoopback = allowLoopback;
        this.resolver = resolver;
    }

    /**
     * From the function's configuration ({@link Env}): {@code RICHTER_ALLOWED_NETWORKS}, and {@code
     * RICHTER_ALLOW_LOOPBACK=true} (set by the local stack only, never by the template).
     */
    public static AllowedNetworks fromEnv() {
        return new AllowedNetworks(Env.get("RICHTER_ALLOWED_NETWORKS").orElse(""),
                Env.get("RICHTER_ALLOW_LOOPBACK").map("true"::equals).orElse(false), SYSTEM);
    }

    /** Whether loopback addresses pass (the local stack). */
    public boolean allowsLoopback() {
        return allowLoopback;
    }

    /**
     * Why Richter must not call {@code host}, resolved now.
     *
     * @param host a host name or address literal (IPv6 with or without brackets)
     * @return empty when every address it resolves to may be called; else the reason, naming the host and the address,
     *     e.g. {@code 169.254.169.254 is link-local, multicast or unspecified (metadata endpoints live there)}
     */
    public Optional<String> refusal(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean literal = new IPAddressString(h).isIPAddress();
        if (resolver == SYSTEM && !literal) {
            if (!CheckedResolverProvider.ensureInstalled()) {
                return Optional.of(host + " is a name, and this JVM resolves names without Richter's checked resolver"
                        + " (CheckedResolverProvider was not loaded), so the address a client connects to could differ"
                        + " from the one checked");
            }
            CheckedResolverProvider.watch(h, this);
        }
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(h);
        } catch (CheckedResolverProvider.RefusedAnswer e) {
            return Optional.of(e.getMessage());
        } catch (UnknownHostException e) {
            return Optional.of(resolver == SYSTEM ? CheckedResolverProvider.lastRefusal(h).orElse(host + " does not resolve")
                    : host + " does not resolve");
        }
        return judge(host, addresses);
    }

    /**
     * Why Richter must not call {@code host}, given what it resolves to.
     *
     * @param host      the name or literal as called, quoted in the reason
     * @param addresses what it resolves to; none is a refusal
     * @return empty when every address may be called; else the reason, as {@link #refusal}
     */
    public Optional<String> judge(String host, InetAddress[] addresses) {
        if (addresses == null || addresses.length == 0) {
            return Optional.of(host + " does not resolve");
        }
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        String name = h.toLowerCase(Locale.ROOT);
        boolean bySuffix = suffixes.stream().anyMatch(name::endsWith);
        for (InetAddress a : addresses) {
            IPAddress ip = judged(a);
            String shown = a.getHostAddress() + (a.getHostAddress().equals(h) ? "" : " (" + host + ")");
            if (ALWAYS_REFUSED.stream().anyMatch(b -> b.contains(ip))) {
                return Optional.of(shown + " is link-local, multicast or unspecified (cloud metadata endpoints live"
                        + " there): Richter never calls it");
            }
            if (LOOPBACK.stream().anyMatch(b -> b.contains(ip))) {
                if (allowLoopback) {
                    continue;
                }
                return Optional.of(shown + " is loopback: inside Richter's functions that is Richter itself");
            }
            if ((!blocks.isEmpty() || !suffixes.isEmpty()) && !bySuffix && blocks.stream().noneMatch(b -> b.contains(ip))) {
                return Optional.of(shown + " is not in the deployment's allowed networks (AllowedNetworks: "
                        + String.join(", ", describe()) + ")");
            }
        }
        return Optional.empty();
    }

    /**
     * As {@link #refusal}, for a registration: a name that does not resolve yet passes (a service may be registered
     * before its DNS name exists), as each call checks it again.
     */
    public Optional<String> registrationRefusal(String host) {
        Optional<String> r = refusal(host);
        return r.isPresent() && r.get().endsWith(" does not resolve") ? Optional.empty() : r;
    }

    private List<String> describe() {
        List<String> out = new ArrayList<>();
        blocks.forEach(b -> out.add(b.toCanonicalString()));
        out.addAll(suffixes);
        return out;
    }

    private static IPAddress judged(InetAddress a) {
        IPAddress ip = new IPAddressString(a.getHostAddress()).getAddress();
        if (ip != null && ip.isIPv6() && ip.toIPv6().isIPv4Mapped()) {
            return ip.toIPv6().getEmbeddedIPv4Address();
        }
        return ip;
    }

    private static List<IPAddress> blocks(List<String> cidrs) {
        return cidrs.stream().map(c -> new IPAddressString(c).getAddress().toPrefixBlock()).toList();
    }
}
