package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link JsonSyntax}: every JSON syntax error the readers meet, as a position and a reason in plain words. */
class JsonSyntaxTest {
    private static JsonProcessingException error(String text) {
        return assertThrows(JsonProcessingException.class,
                () -> Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(text));
    }

    @Test
    void everySyntaxErrorHasAPositionAndAReasonOfOurOwn() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("{\"log\": {\"entries\": [", "line 1, column 22: the file ends before the JSON value does: "
                + "the array opened at line 1, column 21 is not closed");
        cases.put("\"abc", "line 1, column 5: the file ends inside a string");
        cases.put("{\"ab", "line 1, column 5: the file ends inside a field name");
        cases.put("[1,\n 2", "line 2, column 3: the file ends before the JSON value does: the array opened at line 1, column 1 is not closed");
        cases.put("{\"a\": 1,}", "line 1, column 9: unexpected character '}'");
        cases.put("{\"a\" 1}", "line 1, column 6: unexpected character '1'");
        cases.put("{\"a\": 1]", "line 1, column 8: unexpected ']': the object opened at line 1, column 1 is still open");
        cases.put("{\"a\": 1}}", "line 1, column 9: unexpected '}': nothing is open to close");
        cases.put("]", "line 1, column 1: unexpected ']': nothing is open to close");
        cases.put("{\"a\": nope}", "line 1, column 7: unknown word 'nope'");
        cases.put("{\"a\": NaN}", "line 1, column 10: 'NaN' is not a JSON value");
        cases.put("{\"a\": 01}", "line 1, column 8: a number with a leading zero");
        cases.put("{\"a\": 1.}", "line 1, column 8: a malformed number (unexpected '}')");
        cases.put("{\"a\": \"\\q\"}", "line 1, column 9: unknown escape '\\q' in a string");
        cases.put("{\"a\": \"x\ny\"}", "line 1, column 9: a control character inside a string must be escaped");
        cases.put("{} {}", "line 1, column 4: more content after the JSON value");
        Map<String, String> answers = new LinkedHashMap<>();
        for (String text : cases.keySet()) {
            JsonProcessingException e = error(text);
            String answer = JsonSyntax.where(e) + ": " + JsonSyntax.reason(e, "file");
            answers.put(text, answer);
            assertFalse(answer.contains("Source") || answer.contains("code ") || answer.contains("Feature"), answer);
        }
        assertEquals(cases, answers);
    }

    @Test
    void bytesThatAreNotUtf8AreSaidToBeSo() {
        byte[] latin1 = {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        JsonProcessingException e = assertThrows(JsonProcessingException.class, () -> Json.MAPPER.readTree(latin1));
        assertEquals("not UTF-8 text", JsonSyntax.reason(e, "file"));
    }
}
