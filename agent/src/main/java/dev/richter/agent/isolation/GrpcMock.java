package dev.richter.agent.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.sdk.MockConfigDocument;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One entry of the isolation document's {@code grpcMocks}: the answer a marked gRPC call of one method gets instead of
 * being sent. The JSON ({@link #parseAll}):
 * <pre>{@code
 * "grpcMocks": [{"method": "shop.Payments/Charge", "authority": "payments.internal:9090",
 *                "response": "CgdjaF9tb2Nr", "latencyMs": 20},
 *               {"method": "shop.Stock/Reserve", "status": "RESOURCE_EXHAUSTED", "description": "sold out"}]
 * }</pre>
 * {@code method}: required, the full method name ({@code io.grpc.MethodDescriptor.getFullMethodName()}: {@code
 * <package>.<Service>/<Method>}, the path of the HTTP/2 request without its {@code /}). {@code authority}: the
 * channel's target, {@code host} or {@code host:port} ({@link HostPort}); absent, the method is mocked whatever the
 * target. {@code status}: the gRPC status code the call closes with, by name ({@code io.grpc.Status.Code}: {@code OK},
 * {@code NOT_FOUND}, ...), default {@code OK}. {@code response}: with {@code OK} only, the response message's bytes
 * (its protobuf wire form, {@code message.toByteArray()}, {@code protoc --encode}) in base64 (RFC 4648 §4, padded),
 * default {@code ""}: the message with every field at its default. {@code description}: with another status only, the
 * status's description. {@code latencyMs}: simulated latency, an integer 0–60000, default 0. No other field.
 *
 * <p>Why the wire bytes, not protobuf JSON: the extension parses them with the method's own response marshaller
 * ({@code MethodDescriptor.parseResponse}), so they answer every marshaller (protobuf, protobuf-lite, a hand-written
 * one) without the service's generated classes; JSON would need protobuf-java-util's {@code JsonFormat} in the
 * service (grpc-protobuf does not bring it) and a full-protobuf marshaller whose prototype it can read.
 *
 * <p>A value: equal to another with the same components.
 *
 * @param method      the full method name
 * @param authority   the target it answers, {@code null} for any
 * @param code        the gRPC status code's value, 0 ({@code OK}) to 16
 * @param response    the response message in base64, {@code ""} for the default message; {@code ""} unless {@code OK}
 * @param description the status's description, {@code ""} for none; {@code ""} when {@code OK}
 * @param latencyMs   simulated latency, milliseconds
 */
public final class GrpcMock {
    /** {@code io.grpc.Status.Code}'s names in the order of their values (0 to 16), as the gRPC specification numbers them. */
    static final List<String> CODES = Collections.unmodifiableList(Arrays.asList("OK", "CANCELLED", "UNKNOWN",
            "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
            "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
            "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"));
    private static final List<String> FIELDS = Collections.unmodifiableList(
            Arrays.asList("method", "authority", "status", "response", "description", "latencyMs"));

    private final String method;
    private final HostPort authority;
    private final int code;
    private final String response;
    private final String description;
    private final long latencyMs;

    public GrpcMock(String method, HostPort authority, int code, String response, String description, long latencyMs) {
        this.method = method;
        this.authority = authority;
        this.code = code;
        this.response = response;
        this.description = description;
        this.latencyMs = latencyMs;
    }

    public String method() {
        return method;
    }

    public HostPort authority() {
        return authority;
    }

    public int code() {
        return code;
    }

    public String response() {
        return response;
    }

    public String description() {
        return description;
    }

    public long latencyMs() {
        return latencyMs;
    }

    /** The exit id a mocked call reports ({@code richter.mock.exit}): {@code [authority/]method}. */
    public String exit() {
        return authority == null ? method : authority + "/" + method;
    }

    /** Whether this mock answers a call of {@code fullMethod} to {@code host:port}. */
    public boolean answers(String fullMethod, String host, int port) {
        return method.equals(fullMethod) && (authority == null || authority.covers(host, port));
    }

    /**
     * Reads the document's {@code grpcMocks}.
     *
     * @param node the array, or null when the document has none
     * @return the mocks in document order
     * @throws IllegalArgumentException naming the field path and the rule, e.g. {@code grpcMocks[0].method: must be
     *                                  '<package>.<Service>/<Method>', got 'Charge'}, {@code grpcMocks[1].response:
     *                                  must be base64 (RFC 4648, padded)}, {@code grpcMocks[2]: duplicate method
     *                                  'shop.Stock/Get' for authority 'any'}
     */
    public static List<GrpcMock> parseAll(JsonNode node) {
        List<GrpcMock> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("grpcMocks: must be an array of {\"method\", \"response\", ...}");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < node.size(); i++) {
            GrpcMock m = parse(node.get(i), "grpcMocks[" + i + "]");
            String key = m.method + " " + (m.authority == null ? "any" : m.authority.toString());
            if (!seen.add(key)) {
                throw new IllegalArgumentException("grpcMocks[" + i + "]: duplicate method '" + m.method
                        + "' for authority '" + (m.authority == null ? "any" : m.authority.toString()) + "'");
            }
            out.add(m);
        }
        return out;
    }

    private static GrpcMock parse(JsonNode m, String at) {
        if (!m.isObject()) {
            throw new IllegalArgumentException(at + ": must be an object");
        }
        for (Map.Entry<String, JsonNode> field : m.properties()) {
            if (!FIELDS.contains(field.getKey())) {
                throw new IllegalArgumentException(at + "." + field.getKey() + ": unknown field; a gRPC mock has "
                        + String.join(", ", FIELDS));
            }
        }
        String method = text(m, "method", at);
        int slash = method.indexOf('/');
        if (method.isEmpty() || slash <= 0 || slash != method.lastIndexOf('/') || slash == method.length() - 1
                || method.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(at + ".method: must be '<package>.<Service>/<Method>', got '"
                    + method + "'");
        }
        HostPort authority = null;
        if (m.has("authority")) {
            try {
                authority = HostPort.parse(text(m, "authority", at));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(at + ".authority: " + e.getMessage(), e);
            }
        }
        int code = 0;
        if (m.has("status")) {
            code = CODES.indexOf(text(m, "status", at));
            if (code < 0) {
                throw new IllegalArgumentException(at + ".status: must be a gRPC status code name (" + String.join(", ",
                        CODES) + "), got '" + m.get("status").asText() + "'");
            }
        }
        String response = m.has("response") ? text(m, "response", at) : "";
        if (!response.isEmpty()) {
            if (code != 0) {
                throw new IllegalArgumentException(at + ".response: only with status OK (a call closed with "
                        + CODES.get(code) + " answers no message)");
            }
            try {
                Base64.getDecoder().decode(response);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(at + ".response: must be base64 (RFC 4648, padded): "
                        + e.getMessage(), e);
            }
        }
        String description = m.has("description") ? text(m, "description", at) : "";
        if (!description.isEmpty() && code == 0) {
            throw new IllegalArgumentException(at + ".description: only with a status other than OK");
        }
        long latencyMs = 0;
        if (m.has("latencyMs")) {
            JsonNode l = m.get("latencyMs");
            if (!l.isIntegralNumber() || l.asLong() < 0 || l.asLong() > MockConfigDocument.MAX_LATENCY_MS) {
                throw new IllegalArgumentException(at + ".latencyMs: must be an integer from 0 to "
                        + MockConfigDocument.MAX_LATENCY_MS);
            }
            latencyMs = l.asLong();
        }
        return new GrpcMock(method, authority, code, response, description, latencyMs);
    }

    private static String text(JsonNode m, String field, String at) {
        if (!m.path(field).isTextual()) {
            throw new IllegalArgumentException(at + "." + field + ": " + (m.has(field) ? "must be text" : "required text"));
        }
        return m.get(field).asText().trim();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GrpcMock)) {
            return false;
        }
        GrpcMock g = (GrpcMock) o;
        return method.equals(g.method) && Objects.equals(authority, g.authority) && code == g.code
                && response.equals(g.response) && description.equals(g.description) && latencyMs == g.latencyMs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(method, authority, code, response, description, latencyMs);
    }

    @Override
    public String toString() {
        return "GrpcMock[method=" + method + ", authority=" + authority + ", code=" + code + ", response=" + response
                + ", description=" + description + ", latencyMs=" + latencyMs + "]";
    }
}
