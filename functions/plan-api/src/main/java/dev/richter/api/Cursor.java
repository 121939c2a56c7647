package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The opaque {@code cursor} of a list response: a DynamoDB {@code LastEvaluatedKey}, bound to the list it came from.
 *
 * <p>Text: base64url (no padding) of {@code {"l": <list>, "k": {<attribute>: {"S"|"N": <value>}}}}. A client must
 * not read or build it; it only sends back {@code nextCursor} as {@code ?cursor=}. {@link #decode} accepts a cursor
 * only for the list (and so the team or plan) it was made for, with string and number attributes only, so a cursor
 * can never start a query in another team's partition.
 */
final class Cursor {
    /** Items per page when {@code ?limit=} is absent. */
    static final int DEFAULT_LIMIT = 25;
    /** The largest {@code ?limit=}. */
    static final int MAX_LIMIT = 100;

    private Cursor() {}

    /** The cursor text of {@code lastKey} in list {@code list}, or null when there is no next page. */
    static String encode(String list, Map<String, AttributeValue> lastKey) {
        if (lastKey == null || lastKey.isEmpty()) {
            return null;
        }
        ObjectNode doc = Json.MAPPER.createObjectNode();
        doc.put("l", list);
        ObjectNode k = doc.putObject("k");
        lastKey.forEach((name, v) -> {
            if (v.s() != null) {
                k.putObject(name).put("S", v.s());
            } else if (v.n() != null) {
                k.putObject(name).put("N", v.n());
            }
        });
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.write(doc).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The start key of {@code ?cursor=} for list {@code list}; null when the request has no cursor.
     *
     * @param partition the attribute and value every key of this list has (e.g. {@code teamId} = the caller's team)
     * @throws ApiException 400 {@code InvalidCursor} when it is not a cursor of this list
     */
    static Map<String, AttributeValue> decode(ApiRequest req, String list, Map.Entry<String, String> partition) {
        String text = req.query().get("cursor");
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            JsonNode doc = Json.MAPPER.readTree(Base64.getUrlDecoder().decode(text));
            if (doc == null || !list.equals(doc.path("l").asText(null)) || !doc.path("k").isObject()) {
                throw invalid();
            }
            Map<String, AttributeValue> key = new LinkedHashMap<>();
            for (var e : doc.get("k").properties()) {
                JsonNode v = e.getValue();
                if (v.path("S").isTextual()) {
                    key.put(e.getKey(), AttributeValue.fromS(v.get("S").asText()));
                } else if (v.path("N").isTextual() && v.get("N").asText().matches("-?\\d{1,38}(\\.\\d{1,38})?")) {
                    key.put(e.getKey(), AttributeValue.fromN(v.get("N").asText()));
                } else {
                    throw invalid();
                }
            }
            AttributeValue p = key.get(partition.getKey());
            if (p == null || !partition.getValue().equals(p.s())) {
                throw invalid();
            }
            return key;
        } catch (IllegalArgumentException | IOException e) {
            throw invalid();
        }
    }

    /**
     * {@code ?limit=}: {@value #DEFAULT_LIMIT} when absent.
     *
     * @throws ApiException 400 when it is not an integer in 1..{@value #MAX_LIMIT}
     */
    static int limit(ApiRequest req) {
        String text = req.query().get("limit");
        if (text == null || text.isEmpty()) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ApiException.badField("query.limit", "must be an integer from 1 to " + MAX_LIMIT);
    }

    /**
     * Answers a list route: reads {@code ?limit=} and {@code ?cursor=}, runs the query for that page and answers 200
     * {@code {"items": [...], "nextCursor"?}} with each item as {@code document} renders it.
     *
     * @param list      the list's name, bound into its cursors (e.g. {@code services:<teamId>})
     * @param partition the attribute and value every key of this list has (see {@link #decode})
     * @param query     (limit, start key or null) to a page of items
     * @param document  an item as the response shows it
     * @throws ApiException 400 for a bad {@code limit} or {@code cursor}
     */
    static <T> ApiResponse respond(ApiRequest req, String list, Map.Entry<String, String> partition,
                                   BiFunction<Integer, Map<String, AttributeValue>, PlanStore.Page<T>> query,
                                   Function<? super T, ?> document) {
        PlanStore.Page<T> page = query.apply(limit(req), decode(req, list, partition));
        return ApiResponse.json(200, page(page.items().stream().map(document).toList(), encode(list, page.lastKey())));
    }

    /** The list response {@code {"items": [...], "nextCursor": "..."}} ({@code nextCursor} absent on the last page). */
    static Map<String, Object> page(List<?> items, String nextCursor) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        if (nextCursor != null) {
            body.put("nextCursor", nextCursor);
        }
        return body;
    }

    private static ApiException invalid() {
        return ApiException.badField("query.cursor", "not a cursor of this list: send back the nextCursor of the previous page");
    }
}
