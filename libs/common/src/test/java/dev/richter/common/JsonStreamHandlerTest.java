package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.ThreadContext;
import org.junit.jupiter.api.Test;

/** The base decodes an action once into its record and opens the run's log context around the handler. */
class JsonStreamHandlerTest {
    private static final Logger LOG = LogManager.getLogger(JsonStreamHandlerTest.class);

    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "action")
    @JsonSubTypes({@JsonSubTypes.Type(value = Sample.Alpha.class, name = "alpha"),
            @JsonSubTypes.Type(value = Sample.Beta.class, name = "beta")})
    sealed interface Sample extends RunScoped {
        record Alpha(String runId, String teamId, String stage, int stepIndex) implements Sample {
            @Override
            public Integer stepInStage() {
                return stepIndex;
            }
        }

        record Beta(int n) implements Sample {}
    }

    /** Logs one line per event and answers its decoded input. */
    static final class LoggingHandler<I> extends JsonStreamHandler<I, I> {
        LoggingHandler(Class<I> inputType) {
            super(inputType);
        }

        @Override
        protected I handle(I input, Context context) {
            LOG.info("handled");
            return input;
        }
    }

    @Test
    void eachActionDecodesToItsRecordAndExtraFieldsAreIgnored() throws IOException {
        assertEquals(new Sample.Alpha("run-1", "t", "formal", 2), JsonStreamHandler.decode(json(
                "{\"action\":\"alpha\",\"runId\":\"run-1\",\"teamId\":\"t\",\"stage\":\"formal\",\"stepIndex\":2,\"x\":1}"),
                Sample.class));
        assertEquals(new Sample.Beta(3), JsonStreamHandler.decode(json("{\"n\":3,\"action\":\"beta\"}"), Sample.class));
    }

    @Test
    void anUnknownOrMissingActionIsAnIllegalArgumentNamingIt() {
        var unknown = assertThrows(IllegalArgumentException.class,
                () -> JsonStreamHandler.decode(json("{\"action\":\"gamma\"}"), Sample.class));
        assertEquals("unknown action 'gamma'; expected one of alpha, beta", unknown.getMessage());
        var missing = assertThrows(IllegalArgumentException.class,
                () -> JsonStreamHandler.decode(json("{\"runId\":\"r\"}"), Sample.class));
        assertEquals("missing action; expected one of alpha, beta", missing.getMessage());
        var viaHandler = assertThrows(IllegalArgumentException.class,
                () -> new LoggingHandler<>(Sample.class).handleRequest(json("{\"action\":\"\"}"), new ByteArrayOutputStream(), null));
        assertTrue(viaHandler.getMessage().startsWith("missing action"), viaHandler.getMessage());
    }

    @Test
    void theBaseOpensTheLogContextOfTheDecodedRunAndClosesItAfter() throws Exception {
        List<String> lines;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (LogCapture capture = new LogCapture()) {
            new LoggingHandler<>(Sample.class).handleRequest(json(
                    "{\"action\":\"alpha\",\"runId\":\"run-9\",\"teamId\":\"team-a\",\"stage\":\"formal\",\"stepIndex\":4}"),
                    out, null);
            ThreadContext.put(RunLogContext.RUN_ID, "stale");
            new LoggingHandler<>(Sample.class).handleRequest(json("{\"action\":\"beta\",\"n\":1}"), new ByteArrayOutputStream(), null);
            new LoggingHandler<>(JsonNode.class).handleRequest(json("{\"runId\":\"run-10\",\"teamId\":\"team-b\"}"),
                    new ByteArrayOutputStream(), null);
            lines = capture.lines();
        }
        assertEquals(3, lines.size(), lines.toString());
        JsonNode run = Json.MAPPER.readTree(lines.get(0));
        assertEquals("run-9", run.path("runId").asText());
        assertEquals("team-a", run.path("teamId").asText());
        assertEquals("formal", run.path("stage").asText());
        assertEquals("4", run.path("stepIndex").asText());
        assertFalse(Json.MAPPER.readTree(lines.get(1)).has("runId"), "a run-less event carries no earlier run id");
        assertEquals("run-10", Json.MAPPER.readTree(lines.get(2)).path("runId").asText());
        assertEquals(null, ThreadContext.get(RunLogContext.RUN_ID));
        assertInstanceOf(JsonNode.class, Json.MAPPER.readTree(out.toByteArray()));
    }

    private static InputStream json(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }
}
