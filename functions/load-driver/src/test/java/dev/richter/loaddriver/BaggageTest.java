package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Marker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BaggageTest {
    static final Path BUGS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "bugs");

    private static Map<String, String> decoded(String header) {
        return Baggage.parse(header).stream()
                .collect(Collectors.toMap(Baggage.Member::key, Baggage.Member::value, (a, b) -> b, LinkedHashMap::new));
    }

    /** The baggage header of corpus case 01 (the inbound request). */
    static String corpusCase01Baggage() throws IOException {
        return Files.readAllLines(BUGS.resolve("01-baggage-percent-encoded.http")).stream()
                .filter(l -> l.toLowerCase().startsWith("baggage:"))
                .map(l -> l.substring("baggage:".length()).strip())
                .findFirst().orElseThrow();
    }

    @Test
    void corpusCase01_percentEncodedValuesAreDecodedAndNothingIsLost() throws IOException {
        String header = corpusCase01Baggage();
        assertEquals(Map.of("lt.mark", "1", "lt.route", "GET /api/orders", "lt.case", "smoke;v2"), decoded(header));

        String merged = Baggage.merge(header, "richter-loadtest", "1");
        Map<String, String> after = decoded(merged);
        assertEquals("1", after.get("richter-loadtest"));
        assertEquals("1", after.get("lt.mark"));
        assertEquals("GET /api/orders", after.get("lt.route"));
        assertEquals("smoke;v2", after.get("lt.case"));
        assertEquals(4, after.size());
        assertTrue(merged.contains("lt.route=GET%20%2Fapi%2Forders"), "members kept as written (re-encoded form)");
    }

    @Test
    void onlyTheMalformedMemberIsDropped() {
        String merged = Baggage.merge("a=1, bad member ,b=%ZZ, c=x%20y;prop=1,=nokey, d=2", "richter-loadtest", "1");
        Map<String, String> after = decoded(merged);
        assertEquals(List.of("richter-loadtest", "a", "c", "d"), List.copyOf(after.keySet()));
        assertEquals("x y", after.get("c"));
        assertEquals("prop=1", Baggage.parse(merged).get(2).properties());
    }

    @Test
    void anExistingMarkerMemberIsReplacedNotDuplicated() {
        Map<String, String> after = decoded(Baggage.merge("richter-loadtest=0,x=1", "richter-loadtest", "1"));
        assertEquals(Map.of("richter-loadtest", "1", "x", "1"), after);
    }

    @Test
    void noExistingHeaderGivesJustTheMarker() {
        assertEquals("richter-loadtest=1", Baggage.merge(null, "richter-loadtest", "1"));
        assertEquals("richter-loadtest=1", Baggage.merge("  ", "richter-loadtest", "1"));
    }

    @Test
    void markerValuesAreEncoded() {
        String merged = Baggage.merge(null, "k", "a b,c;d%é");
        assertEquals("a b,c;d%é", decoded(merged).get("k"));
        assertTrue(!merged.contains(" "));
    }

    @Test
    void markerIsMergedIntoABaggageHeaderOfAnyCase() {
        Map<String, String> headers = TrafficMix.withMarker(
                Map.of("Baggage", "lt.mark=1", "accept", "*/*"), Marker.DEFAULT);
        assertEquals(2, headers.size());
        assertEquals(Map.of("richter-loadtest", "1", "lt.mark", "1"), decoded(headers.get("baggage")));
    }

    @Test
    void aSignedMarkerCarriesItsProofNextToItAndReplacesAnyProofTheRequestHad() {
        Marker signed = Marker.DEFAULT.withProof("r1.dDE.cnVuLTE.1796000000.abc");
        Map<String, String> headers = TrafficMix.withMarker(
                Map.of("baggage", "richter-proof=forged,lt.mark=1"), signed);
        assertEquals("richter-loadtest=1,richter-proof=r1.dDE.cnVuLTE.1796000000.abc,lt.mark=1", headers.get("baggage"));
        assertFalse(signed.toString().contains("abc"), "the proof is a bearer token: never in a log line");
    }

    @Test
    void aNonBaggageMarkerHeaderIsSetToTheValue() {
        Marker marker = new Marker("x-richter-test", "ignored", "loadtest");
        Map<String, String> headers = TrafficMix.withMarker(Map.of("X-Richter-Test", "no", "baggage", "a=1"), marker);
        assertEquals("loadtest", headers.get("x-richter-test"));
        assertEquals("a=1", headers.get("baggage"), "baggage untouched when the marker lives elsewhere");
        assertEquals(2, headers.size());
    }
}
