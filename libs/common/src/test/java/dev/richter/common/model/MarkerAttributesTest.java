package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The marker on a span's attributes, among them headers OpenTelemetry's instrumentations capture as string arrays, one
 * element per header: every {@code baggage} header of a Kafka record is read (corpus bug 47's kind).
 */
class MarkerAttributesTest {
    @ParameterizedTest
    @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
            // OTLP arrayValue as the trace reader keeps it: the marker in the first of two baggage headers
            "messaging.header.baggage | {\"values\":[{\"stringValue\":\"richter-loadtest=1\"},{\"stringValue\":\"tenant=acme\"}]} | true",
            "messaging.header.baggage | {\"values\":[{\"stringValue\":\"tenant=acme\"},{\"stringValue\":\"a=b, richter-loadtest=1;p\"}]} | true",
            "messaging.header.baggage | [\"tenant=acme\",\"richter-loadtest=1\"] | true",
            "messaging.header.baggage | richter-loadtest=1 | true",
            "http.request.header.baggage | [\"richter-loadtest=%31\"] | true",
            "messaging.header.baggage | {\"values\":[{\"stringValue\":\"tenant=acme\"},{\"stringValue\":\"richter-loadtest=0\"}]} | false",
            "messaging.header.baggage | [\"xrichter-loadtest=1\"] | false",
            "messaging.header.traceparent | [\"richter-loadtest=1\"] | false",
            "baggage | tenant=acme,richter-loadtest=1 | true"})
    void theMarkerIsReadInEveryCapturedHeader(String key, String value, boolean carries) {
        assertEquals(carries, MarkerAttributes.carries(Map.of(key, value), Marker.DEFAULT), key + "=" + value);
    }
}
