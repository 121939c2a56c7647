package dev.richter.data.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PiiScrubberTest {

    private static PiiScrubber.Scrubbed scrub(String target, List<Header> headers, String body, String contentType) {
        return PiiScrubber.scrub(new RecordedRequest("shop.example.com", "POST", target, headers,
                body.getBytes(StandardCharsets.UTF_8), contentType, List.of(), RecordedResponse.status(200, 0), "t:1"));
    }

    @Test
    void credentialHeadersBecomeSlotsNamedByHeader() {
        var s = scrub("/", List.of(new Header("Authorization", "Bearer x"), new Header("Cookie", "a=1"),
                new Header("Set-Cookie", "b=2"), new Header("X-Api-Key", "k"), new Header("Accept", "*/*")), "", "");
        assertEquals(List.of(new Header("Authorization", "{{slot:header.authorization}}"), new Header("Cookie", "{{slot:header.cookie}}"),
                new Header("Set-Cookie", "{{slot:header.set-cookie}}"), new Header("X-Api-Key", "{{slot:header.x-api-key}}"),
                new Header("Accept", "*/*")), s.request().headers());
        assertEquals(List.of("header.authorization", "header.cookie", "header.set-cookie", "header.x-api-key"), s.slots());
    }

    @Test
    void queryTokensBecomeSlotsAndOtherParametersStay() {
        var s = scrub("/a?access_token=AAA&id=7&api_key=BBB&X-Amz-Signature=CCC&token=DDD&q=shoes", List.of(), "", "");
        assertEquals("/a?access_token={{slot:query.access_token}}&id=7&api_key={{slot:query.api_key}}"
                + "&X-Amz-Signature={{slot:query.x-amz-signature}}&token={{slot:query.token}}&q=shoes", s.request().target());
    }

    @Test
    void eachEmailPhoneAndCardGetsItsOwnSlot() {
        var s = scrub("/", List.of(), "to a@b.co and c.d+e@mail.example.org, call +1 415-555-0132 or 020 7946 0958; "
                + "card 5555-5555-5555-4444, not card 4111 1111 1111 1112, ip 10.225.192.17, at 2026-11-30 10:00:01", "text/plain");
        assertEquals("to {{slot:email}} and {{slot:email_2}}, call {{slot:phone}} or {{slot:phone_2}}; "
                + "card {{slot:card}}, not card 4111 1111 1111 1112, ip 10.225.192.17, at 2026-11-30 10:00:01",
                new String(s.request().body(), StandardCharsets.UTF_8));
        assertEquals(List.of("card", "email", "email_2", "phone", "phone_2"), s.slots());
    }

    @Test
    void formBodiesScrubCredentialFieldsByName() {
        var s = scrub("/login", List.of(), "user=alice&password=s3cret&remember=1", "application/x-www-form-urlencoded");
        assertEquals("user=alice&password={{slot:form.password}}&remember=1", new String(s.request().body(), StandardCharsets.UTF_8));
    }

    @Test
    void aBinaryBodyIsNotScanned() {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', (byte) 0xff, (byte) 0xfe, '4', '1', '1', '1'};
        var s = PiiScrubber.scrub(new RecordedRequest("", "PUT", "/img", List.of(), png, "image/png", List.of(),
                RecordedResponse.status(0, -1), "t:1"));
        assertEquals(List.of(), s.slots());
        assertEquals(png.length, s.request().body().length);
    }

    @Test
    void luhn() {
        assertTrue(PiiScrubber.luhn("4111 1111 1111 1111"));
        assertTrue(PiiScrubber.luhn("378282246310005"));
        assertFalse(PiiScrubber.luhn("4111 1111 1111 1112"));
        assertFalse(PiiScrubber.luhn("0000"));
    }

    @Test
    void pathTemplates() {
        assertEquals("/users/{id}/orders/{uuid}", PathNormalizer.template("/users/123/orders/3f2b8c1e-9d4a-4c7b-8e21-5a6f0b9c2d13?x=1"));
        assertEquals("/objects/{hex}", PathNormalizer.template("/objects/5f3c9a7e2b1d4c6a8e0f"));
        assertEquals("/t/{token}", PathNormalizer.template("/t/eyJhbGciOiJIUzI1NiJ9abc123"));
        assertEquals("/v1/items/{slot}", PathNormalizer.template("/v1/items/{{slot:email}}"));
        assertEquals("/", PathNormalizer.template("?q=1"));
        assertEquals("/assets/application-style.css", PathNormalizer.template("/assets/application-style.css"));
    }

    /**
     * A credential is scrubbed by its field's name whatever the body's format: JSON (at any depth), multipart form
     * data and XML, as a form body's is (corpus bug 36: cloudflare/har-sanitizer#34).
     */
    @Test
    void bug36CredentialFieldsAreScrubbedInEveryBodyFormat() {
        TrafficSet set = Corpus.har("bugs/36-har-json-password.har");
        var bodies = set.endpoints().stream().flatMap(e -> e.samples().stream()).map(TrafficSet.Sample::body).toList();
        assertEquals(List.of("{\"username\":\"demo-user\",\"password\":\"{{slot:json.password}}\",\"otp\":\"{{slot:json.otp}}\","
                        + "\"refresh_token\":\"{{slot:json.refresh_token}}\"}", "username=demo-user&password={{slot:form.password}}"),
                bodies);

        var nested = scrub("/", List.of(), "{\"user\":{\"name\":\"a\",\"credentials\":{\"pin\":1234}},\"items\":[{\"sku\":\"A-1\","
                + "\"api_key\":\"k\"}],\"price\":12.50}", "application/vnd.api+json");
        assertEquals("{\"user\":{\"name\":\"a\",\"credentials\":{\"pin\":\"{{slot:json.pin}}\"}},\"items\":[{\"sku\":\"A-1\","
                + "\"api_key\":\"{{slot:json.api_key}}\"}],\"price\":12.50}", new String(nested.request().body(), StandardCharsets.UTF_8));
        assertEquals(List.of("json.pin", "json.api_key"), nested.slots());
        var untouched = "{ \"sku\": \"A-1\",  \"qty\": 2 }";
        assertEquals(untouched, new String(scrub("/", List.of(), untouched, "application/json").request().body(),
                StandardCharsets.UTF_8), "a body without credentials keeps its bytes");

        String multipart = "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nalice\r\n"
                + "--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2\r\n"
                + "--XyZ\r\nContent-Disposition: form-data; name=\"token\"; filename=\"t.txt\"\r\nContent-Type: text/plain\r\n\r\nfile\r\n"
                + "--XyZ--\r\n";
        var m = scrub("/", List.of(), multipart, "multipart/form-data; boundary=XyZ");
        assertEquals(multipart.replace("hunter2", "{{slot:multipart.password}}"), new String(m.request().body(), StandardCharsets.UTF_8));
        assertEquals(List.of("multipart.password"), m.slots());

        var x = scrub("/", List.of(), "<login><user>alice</user><ns:Password a=\"1\">s3cret</ns:Password><otp>1</otp></login>",
                "text/xml");
        assertEquals("<login><user>alice</user><ns:Password a=\"1\">{{slot:xml.password}}</ns:Password><otp>{{slot:xml.otp}}</otp></login>",
                new String(x.request().body(), StandardCharsets.UTF_8));
    }
}
