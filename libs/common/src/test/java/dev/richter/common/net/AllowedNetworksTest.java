package dev.richter.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AllowedNetworksTest {
    /** Names resolved from a table, as a DNS server would answer them; literals as themselves. */
    private static final AllowedNetworks.Resolver DNS = host -> {
        Map<String, String> table = Map.of("orders.internal.example.com", "10.0.3.7",
                "rebind.attacker.example", "169.254.169.254", "partner.example", "203.0.113.9",
                "localhost", "127.0.0.1", "dual.internal.example.com", "10.0.3.8");
        String a = table.get(host);
        if (a != null) {
            return new InetAddress[] {InetAddress.getByName(a)};
        }
        if (host.matches("[0-9a-fA-F.:]+")) {
            return new InetAddress[] {InetAddress.getByName(host)};
        }
        throw new UnknownHostException(host);
    };

    @Test
    void metadataAndLinkLocalAddressesAreRefusedWhateverTheAllowlistSays() {
        AllowedNetworks any = new AllowedNetworks("0.0.0.0/0, ::/0", true, DNS);
        for (String host : new String[] {"169.254.169.254", "169.254.170.2", "fe80::1", "[fd00:ec2::254]", "0.0.0.0",
                "224.0.0.1", "::ffff:169.254.169.254", "rebind.attacker.example"}) {
            Optional<String> r = any.refusal(host);
            assertTrue(r.isPresent() && r.get().contains("link-local, multicast or unspecified"), host + ": " + r);
        }
        assertEquals(Optional.of("169.254.169.254 (rebind.attacker.example) is link-local, multicast or unspecified"
                + " (cloud metadata endpoints live there): Richter never calls it"), any.refusal("rebind.attacker.example"),
                "a name is judged by what it resolves to");
    }

    @Test
    void loopbackPassesOnlyWhereTheLocalStackAllowsIt() {
        AllowedNetworks aws = new AllowedNetworks("", false, DNS);
        assertEquals(Optional.of("127.0.0.1 (localhost) is loopback: inside Richter's functions that is Richter itself"),
                aws.refusal("localhost"));
        assertTrue(aws.refusal("::1").isPresent());
        assertTrue(aws.refusal("127.0.0.53").isPresent());
        AllowedNetworks local = new AllowedNetworks("", true, DNS);
        assertEquals(Optional.empty(), local.refusal("127.0.0.1"));
        assertEquals(Optional.empty(), local.refusal("localhost"));
    }

    @Test
    void anAllowlistPassesItsBlocksAndSuffixesOnly() {
        AllowedNetworks vpc = new AllowedNetworks("10.0.0.0/16, 2600:1f18::/32, .internal.example.com", false, DNS);
        assertEquals(Optional.empty(), vpc.refusal("10.0.200.1"));
        assertEquals(Optional.empty(), vpc.refusal("orders.internal.example.com"));
        assertEquals(Optional.empty(), vpc.refusal("2600:1f18:1:2::5"));
        assertEquals(Optional.of("203.0.113.9 (partner.example) is not in the deployment's allowed networks"
                + " (AllowedNetworks: 10.0.0.0/16, 2600:1f18::/32, .internal.example.com)"), vpc.refusal("partner.example"));
        assertTrue(vpc.refusal("10.1.0.1").isPresent());
        assertEquals(Optional.of("nowhere.example does not resolve"), vpc.refusal("nowhere.example"));
        AllowedNetworks open = new AllowedNetworks("", false, DNS);
        assertEquals(Optional.empty(), open.refusal("partner.example"), "no allowlist: any address not refused");
    }

    @Test
    void aBadEntryIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new AllowedNetworks("10.0.0.0/8, intranet", false, DNS));
        assertEquals("allowed networks: 'intranet' is neither a CIDR block (10.0.0.0/8) nor a host suffix"
                + " (.internal.example.com)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new AllowedNetworks("10.0.0.1", false, DNS),
                "an address without a prefix length is no block");
    }
}
