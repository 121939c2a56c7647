package dev.richter.data.traffic;

import java.util.List;
import java.util.Map;

/**
 * What a reader got from one file.
 *
 * @param entriesRead entries (HAR) or non-blank lines (logs) looked at
 * @param requests    the replayable requests, in file order
 * @param skipped     entries that are well-formed but not replayable, by reason (e.g. {@code websocket}: 2)
 * @param problems    entries or lines that could not be read, each with its position
 */
public record ReadResult(int entriesRead, List<RecordedRequest> requests, Map<String, Integer> skipped,
                         List<ImportProblem> problems) {
    public ReadResult {
        requests = List.copyOf(requests);
        skipped = Map.copyOf(skipped);
        problems = List.copyOf(problems);
    }
}
