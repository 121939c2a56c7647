package dev.richter.common.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Reference resolution by RFC 3986 §5.4's own examples, and origins by RFC 6454. */
class UriReferenceTest {
    private static final URI BASE = URI.create("http://a/b/c/d;p?q");

    /** RFC 3986 §5.4.1 "Normal Examples" and §5.4.2 "Abnormal Examples", base {@code http://a/b/c/d;p?q}. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "g:h|g:h", "g|http://a/b/c/g", "./g|http://a/b/c/g", "g/|http://a/b/c/g/", "/g|http://a/g", "//g|http://g",
            "?y|http://a/b/c/d;p?y", "g?y|http://a/b/c/g?y", "#s|http://a/b/c/d;p?q#s", "g#s|http://a/b/c/g#s",
            "g?y#s|http://a/b/c/g?y#s", ";x|http://a/b/c/;x", "g;x|http://a/b/c/g;x", "g;x?y#s|http://a/b/c/g;x?y#s",
            "''|http://a/b/c/d;p?q", ".|http://a/b/c/", "./|http://a/b/c/", "..|http://a/b/", "../|http://a/b/",
            "../g|http://a/b/g", "../..|http://a/", "../../|http://a/", "../../g|http://a/g",
            "../../../g|http://a/g", "../../../../g|http://a/g", "/./g|http://a/g", "/../g|http://a/g", "g.|http://a/b/c/g.",
            ".g|http://a/b/c/.g", "g..|http://a/b/c/g..", "..g|http://a/b/c/..g", "./../g|http://a/b/g", "./g/.|http://a/b/c/g/",
            "g/./h|http://a/b/c/g/h", "g/../h|http://a/b/c/h", "g;x=1/./y|http://a/b/c/g;x=1/y", "g;x=1/../y|http://a/b/c/y",
            "g?y/./x|http://a/b/c/g?y/./x", "g?y/../x|http://a/b/c/g?y/../x", "g#s/./x|http://a/b/c/g#s/./x",
            "g#s/../x|http://a/b/c/g#s/../x", "http:g|http:g"})
    void resolvesAsRfc3986Section54(String reference, String expected) {
        assertEquals(expected, UriReference.resolve(BASE, reference).toString());
    }

    @Test
    void charactersNoUriHoldsArePercentEncodedAsUtf8() {
        assertEquals("http://a/caf%C3%A9%20%7Cx?q=%22", UriReference.resolve(BASE, "/café |x?q=\"").toString());
        assertEquals("100%25", UriReference.encodeInvalid("100%25"));
        assertThrows(IllegalArgumentException.class, () -> UriReference.resolve(BASE, "http://[::1"));
        assertThrows(IllegalArgumentException.class, () -> UriReference.resolve(URI.create("/relative"), "g"));
    }

    @Test
    void originsCompareSchemeHostAndPortWithDefaults() {
        assertEquals("http://shop.test", UriReference.origin(URI.create("HTTP://Shop.TEST:80/a?b")));
        assertEquals("https://shop.test:8443", UriReference.origin(URI.create("https://shop.test:8443/")));
        assertEquals("mailto:", UriReference.origin(URI.create("mailto:a@b.test")));
        assertTrue(UriReference.sameOrigin(URI.create("http://shop.test/x"), URI.create("HTTP://SHOP.test:80/y")));
        assertTrue(UriReference.sameOrigin(URI.create("https://u:p@shop.test/x"), URI.create("https://shop.test:443/")));
        assertFalse(UriReference.sameOrigin(URI.create("http://shop.test/"), URI.create("https://shop.test/")));
        assertFalse(UriReference.sameOrigin(URI.create("http://shop.test/"), URI.create("http://shop.test:8080/")));
        assertFalse(UriReference.sameOrigin(URI.create("http://127.0.0.1/"), URI.create("http://localhost/")));
        assertFalse(UriReference.sameOrigin(URI.create("mailto:a@b"), URI.create("mailto:a@b")));
    }
}
