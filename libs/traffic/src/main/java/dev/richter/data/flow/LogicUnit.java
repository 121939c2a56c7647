package dev.richter.data.flow;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reusable data-construction step with typed input and output slots (DESIGN.md "Logic units, flows and data
 * sets"; {@code LogicUnit} in openapi.json).
 *
 * <p>Two kinds:
 * <ul>
 *   <li>{@code http}: one HTTP call. {@code url} and each of {@code headers} are templates in which {@code {{slot}}}
 *       is replaced by the input slot's text (a string as is, anything else as its JSON; no encoding: encode with a
 *       {@code transform} unit's {@code $encodeUrlComponent} when a value may hold reserved characters). {@code body}
 *       is a JSONata expression over the inputs object: a string result is sent as is, any other value as JSON
 *       ({@code content-type: application/json} unless a header sets it). A status outside 200-299 fails the row.
 *       Each output is extracted by its JSONata expression in {@code extract}, evaluated over
 *       {@code {"status": n, "headers": {"<lower-case name>": "<first value>"}, "body": <JSON, or the text>}}.</li>
 *   <li>{@code transform}: {@code expression}, JSONata over the inputs object, yields an object holding every
 *       output slot.</li>
 * </ul>
 *
 * @param kind       {@code http} or {@code transform}
 * @param inputs     input slot name → type ({@code string}, {@code number}, {@code boolean}, {@code object},
 *                   {@code array}), in order
 * @param outputs    output slot name → type
 * @param method     HTTP method ({@code http})
 * @param url        absolute URL template ({@code http})
 * @param headers    header name → value template ({@code http}); may be empty
 * @param body       JSONata expression giving the request body ({@code http}); null for none
 * @param extract    output slot → JSONata expression over the response ({@code http})
 * @param expression JSONata expression ({@code transform})
 */
public record LogicUnit(String kind, Map<String, String> inputs, Map<String, String> outputs, String method, String url,
                        Map<String, String> headers, String body, Map<String, String> extract, String expression) {
    public LogicUnit {
        inputs = inputs == null ? Map.of() : new LinkedHashMap<>(inputs);
        outputs = outputs == null ? Map.of() : new LinkedHashMap<>(outputs);
        headers = headers == null ? Map.of() : new LinkedHashMap<>(headers);
        extract = extract == null ? Map.of() : new LinkedHashMap<>(extract);
    }

    /** An {@code http} unit. */
    public static LogicUnit http(Map<String, String> inputs, Map<String, String> outputs, String method, String url,
                                 Map<String, String> headers, String body, Map<String, String> extract) {
        return new LogicUnit("http", inputs, outputs, method, url, headers, body, extract, null);
    }

    /** A {@code transform} unit. */
    public static LogicUnit transform(Map<String, String> inputs, Map<String, String> outputs, String expression) {
        return new LogicUnit("transform", inputs, outputs, null, null, null, null, null, expression);
    }
}
