package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.richter.common.JsonStreamHandler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each link-builder action decodes once into its record; the sample events and the schedule's event decode. */
class LinkRequestTest {
    @Test
    void eachSampleEventDecodesToItsActionsRecord() throws IOException {
        Map<String, Class<?>> expected = Map.of("ingest.json", LinkRequest.IngestRequest.class,
                "ingest-marked.json", LinkRequest.IngestRequest.class, "tree.json", LinkRequest.TreeRequest.class,
                "upstream.json", LinkRequest.UpstreamRequest.class, "annotate.json", LinkRequest.AnnotateRequest.class,
                "exits.json", LinkRequest.ExitsRequest.class, "compare.json", LinkRequest.CompareRequest.class);
        for (var e : expected.entrySet()) {
            assertEquals(e.getValue(), decode(Files.readString(Path.of("../../events/link-builder", e.getKey()))).getClass(),
                    e.getKey());
        }
        assertEquals(new LinkRequest.RebuildRequest(null, 60), decode("{\"action\":\"rebuild\",\"lookbackMinutes\":60}"),
                "template.yaml's schedule input");
        assertEquals(new LinkRequest.ExitsRequest("t", List.of()), decode("{\"action\":\"exits\",\"teamId\":\"t\"}"));
        assertEquals(new LinkRequest.EntriesRequest("t", "service"),
                decode("{\"action\":\"entries\",\"teamId\":\"t\",\"dimension\":\"service\",\"node\":\"ignored\"}"));
    }

    @Test
    void anUnknownOrMissingActionNamesItAndTheActions() {
        var unknown = assertThrows(IllegalArgumentException.class, () -> decode("{\"action\":\"nope\"}"));
        assertEquals("unknown action 'nope'; expected one of ingest, rebuild, tree, upstream, entries, exits, compare, "
                + "annotate", unknown.getMessage());
        var missing = assertThrows(IllegalArgumentException.class, () -> decode("{\"teamId\":\"t\"}"));
        assertEquals("missing action; expected one of ingest, rebuild, tree, upstream, entries, exits, compare, annotate",
                missing.getMessage());
    }

    @Test
    void aWalkNeedsItsNodeAndADepthOfAtLeastOne() throws IOException {
        var tree = (LinkRequest.TreeRequest) decode("{\"action\":\"tree\",\"teamId\":\"t\",\"dimension\":\"service\"}");
        assertEquals("node is required", assertThrows(IllegalArgumentException.class, tree::startNode).getMessage());
        assertEquals(LinkRequest.DEFAULT_TREE_DEPTH, tree.depth());
        var up = (LinkRequest.UpstreamRequest) decode("{\"action\":\"upstream\",\"node\":\"a\",\"maxDepth\":0}");
        assertEquals("maxDepth must be >= 1, got 0", assertThrows(IllegalArgumentException.class, up::depth).getMessage());
    }

    private static LinkRequest decode(String json) throws IOException {
        return JsonStreamHandler.decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), LinkRequest.class);
    }
}
