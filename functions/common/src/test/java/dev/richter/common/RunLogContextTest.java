package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;

/** Lines written while a run's context is open carry its fields, through the functions' own Log4j2 JSON layout. */
class RunLogContextTest {
    private static final Logger LOG = LogManager.getLogger(RunLogContextTest.class);

    @Test
    void everyLineOfARunCarriesItsFieldsAsTopLevelJsonAndNoneAfterItCloses() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        // the layout of log4j2.xml's Lambda appender: LambdaLayout.json (Lambda's JSON log format)
        var layout = config.getAppender("Lambda").getLayout();
        AbstractAppender capture = new AbstractAppender("capture", null, layout, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(new String(getLayout().toByteArray(event), StandardCharsets.UTF_8));
            }
        };
        capture.start();
        config.getRootLogger().addAppender(capture, Level.ALL, null);
        ctx.updateLoggers();
        try {
            try (RunLogContext ignored = RunLogContext.open("run-7", "team-a", "formal", 3)) {
                LOG.info("step started");
            }
            LOG.info("after the run");
        } finally {
            config.getRootLogger().removeAppender("capture");
            ctx.updateLoggers();
        }
        assertEquals(2, lines.size(), lines.toString());
        JsonNode during = Json.MAPPER.readTree(lines.get(0));
        assertEquals("step started", during.path("message").asText());
        assertEquals("INFO", during.path("level").asText());
        assertEquals("run-7", during.path("runId").asText());
        assertEquals("team-a", during.path("teamId").asText());
        assertEquals("formal", during.path("stage").asText());
        assertEquals("3", during.path("stepIndex").asText());
        JsonNode after = Json.MAPPER.readTree(lines.get(1));
        for (String key : List.of("runId", "teamId", "stage", "stepIndex")) {
            assertFalse(after.has(key), key + " outlived the run: " + after);
        }
    }

    @Test
    void aRunLevelContextLeavesStageAndStepOut() {
        try (RunLogContext ignored = RunLogContext.open("run-8", "team-b", null, null)) {
            assertEquals("run-8", org.apache.logging.log4j.ThreadContext.get("runId"));
            assertFalse(org.apache.logging.log4j.ThreadContext.containsKey("stage"));
            assertFalse(org.apache.logging.log4j.ThreadContext.containsKey("stepIndex"));
        }
        assertFalse(org.apache.logging.log4j.ThreadContext.containsKey("runId"));
    }
}
