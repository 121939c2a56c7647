package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class HostPortAndHttpExitTest {

    @Test
    void readsHostWithOrWithoutPortIncludingIpv6() {
        assertEquals(new HostPort("orders.internal", 8080), HostPort.parse(" Orders.Internal:8080 "));
        assertEquals(new HostPort("orders.internal", HostPort.ANY_PORT), HostPort.parse("orders.internal"));
        assertEquals(new HostPort("[::1]", 8080), HostPort.parse("[::1]:8080"));
        assertEquals(new HostPort("[::1]", HostPort.ANY_PORT), HostPort.parse("[::1]"));
        assertEquals(new HostPort("fe80::1", HostPort.ANY_PORT), HostPort.parse("fe80::1"));
    }

    @Test
    void refusesAnEmptyHostOrABadPort() {
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse(":80"));
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse("a:0"));
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse("a:http"));
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse(""));
    }

    @Test
    void anEntryWithoutPortCoversEveryPortOfItsHost() {
        assertTrue(HostPort.parse("a.internal").covers("A.internal", 1234));
        assertTrue(HostPort.parse("a.internal:80").covers("a.internal", 80));
        assertFalse(HostPort.parse("a.internal:80").covers("a.internal", 81));
        assertFalse(HostPort.parse("a.internal").covers("b.internal", 80));
    }

    @Test
    void readsTheThreeExitIdFormsAsHttpCalls() {
        assertEquals(Optional.of(new HttpExit("api.stripe.com/v1/charges", new HostPort("api.stripe.com", -1), "", "/v1/charges")),
                HttpExit.parse("api.stripe.com/v1/charges"));
        assertEquals(Optional.of(new HttpExit("pay:8443 post /charge", new HostPort("pay", 8443), "POST", "/charge")),
                HttpExit.parse("pay:8443 post /charge"));
        assertEquals(Optional.of(new HttpExit("api.stripe.com", new HostPort("api.stripe.com", -1), "", "")),
                HttpExit.parse("api.stripe.com"));
        assertEquals(Optional.of(new HttpExit("[::1]:9/x", new HostPort("[::1]", 9), "", "/x")), HttpExit.parse("[::1]:9/x"));
    }

    @Test
    void idsOfOtherShapesNameNoHttpCall() {
        assertEquals(Optional.empty(), HttpExit.parse("payment POST charge"));
        assertEquals(Optional.empty(), HttpExit.parse("/charge"));
        assertEquals(Optional.empty(), HttpExit.parse("a b"));
        assertEquals(Optional.empty(), HttpExit.parse("pay:0/charge"));
    }

    @Test
    void aPathIsMatchedExactly() {
        HttpExit e = HttpExit.parse("pay/charge").orElseThrow();

        assertTrue(e.answers("GET", "pay", 80, "/charge"));
        assertFalse(e.answers("GET", "pay", 80, "/charge/"));
        assertFalse(e.answers("GET", "pay", 80, "/charges"));
    }
}
