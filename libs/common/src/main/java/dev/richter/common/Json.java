package dev.richter.common;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one Jackson {@link ObjectMapper} every function shares (built once per container).
 *
 * <p>Unknown properties are ignored on internal contracts (state-machine payloads evolve);
 * user input is validated separately with field paths (see plan-api's validators).
 */
public final class Json {
    /** Shared, thread-safe mapper: records supported, ISO dates off, unknown fields ignored. */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new Jdk8Module())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);

    private Json() {}

    /** Serializes {@code value} to a JSON string; throws {@link UncheckedIOException} on failure. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses {@code json} into {@code type}; throws {@link UncheckedIOException} with Jackson's location. */
    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
