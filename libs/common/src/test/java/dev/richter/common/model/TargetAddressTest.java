package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TargetAddressTest {

    @Test
    void spellingsOfOneSocketAreOneTarget() {
        TargetAddress a = TargetAddress.of("http://Orders.Internal:80/api");
        assertEquals(new TargetAddress("http", "orders.internal", 80), a);
        assertEquals(a, TargetAddress.of("HTTP://orders.internal."));
        assertEquals("orders.internal:80", a.authority());
        assertEquals("http://orders.internal:80", a.toString());
        assertEquals(443, TargetAddress.of("https://shop.example").port());
        assertEquals(TargetAddress.of("http://[::1]:8080").authority(),
                TargetAddress.of("http://[0:0:0:0:0:0:0:1]:8080/x").authority());
        assertEquals("xn--bcher-kva.example", TargetAddress.of("http://bücher.example").host());
    }

    @Test
    void aUrlThatCannotBeLoadedSaysWhy() {
        assertEquals("port 99999 is out of range: a port is a number from 1 to 65535", reason("http://127.0.0.1:99999"));
        assertEquals("port 0 is out of range: a port is a number from 1 to 65535", reason("http://127.0.0.1:0"));
        assertEquals("port 'abc' is not a number from 1 to 65535", reason("http://127.0.0.1:abc"));
        assertEquals("must start with http:// or https:// (e.g. http://orders.internal:8080)", reason("ftp://h/"));
        assertEquals("must start with http:// or https:// (e.g. http://orders.internal:8080)", reason("orders:8080"));
        assertEquals("has no host (e.g. http://orders.internal:8080)", reason("http:///path"));
        assertEquals("must not contain user information (user:password@): a target is a host and port",
                reason("http://u:p@h:8080"));
        assertEquals("must not have a query or fragment: request paths and queries are appended to it",
                reason("http://h:8080/?a=1"));
        assertEquals("is not a URL: Illegal character in authority at character 9 (e.g. http://orders.internal:8080)",
                reason("http://a b:8080"));
        assertEquals("host 'bad_host:8080' is not a valid host name or IP address", reason("http://bad_host:8080"));
    }

    private static String reason(String url) {
        return assertThrows(IllegalArgumentException.class, () -> TargetAddress.of(url)).getMessage();
    }
}
