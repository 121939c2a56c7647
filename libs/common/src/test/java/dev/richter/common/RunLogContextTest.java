package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.junit.jupiter.api.Test;

/** Lines written while a run's context is open carry its fields, through the functions' own Log4j2 JSON layout. */
class RunLogContextTest {
    private static final Logger LOG = LogManager.getLogger(RunLogContextTest.class);

    @Test
    void everyLineOfARunCarriesItsFieldsAsTopLevelJsonAndNoneAfterItCloses() throws Exception {
        List<String> lines;
        try (LogCapture capture = new LogCapture()) {
            try (RunLogContext ignored = RunLogContext.open("run-7", "team-a", "formal", 3)) {
                LOG.info("step started");
            }
            LOG.info("after the run");
            lines = capture.lines();
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

    @Test
    void aTaskEventGivesItsFieldsFromTheTopLevelOrItsStepReference() throws Exception {
        JsonNode startStep = Json.MAPPER.readTree(
                "{\"action\":\"start-step\",\"step\":{\"runId\":\"run-9\",\"stage\":\"pre-test\",\"stepIndex\":0}}");
        try (RunLogContext ignored = RunLogContext.open(startStep)) {
            assertEquals("run-9", org.apache.logging.log4j.ThreadContext.get("runId"));
            assertEquals("pre-test", org.apache.logging.log4j.ThreadContext.get("stage"));
            assertEquals("0", org.apache.logging.log4j.ThreadContext.get("stepIndex"));
            assertFalse(org.apache.logging.log4j.ThreadContext.containsKey("teamId"));
        }
        try (RunLogContext ignored = RunLogContext.open(Json.MAPPER.readTree("{\"runId\":\"run-10\",\"teamId\":\"t\"}"))) {
            assertEquals("run-10", org.apache.logging.log4j.ThreadContext.get("runId"));
            assertEquals("t", org.apache.logging.log4j.ThreadContext.get("teamId"));
            assertFalse(org.apache.logging.log4j.ThreadContext.containsKey("stepIndex"));
        }
        assertFalse(org.apache.logging.log4j.ThreadContext.containsKey("runId"));
    }
}
