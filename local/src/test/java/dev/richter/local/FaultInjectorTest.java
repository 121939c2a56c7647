package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectorTest {
    @Test
    void theFirstFiringAtOrAfterAnInstantIsReadFromTheFaultsFileOfEveryComponent(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("faults.jsonl");
        FaultInjector faults = new FaultInjector(LocalFaults.NONE, file, line -> { });
        assertEquals(OptionalLong.empty(), faults.firstFiredAtMs(0), "no file yet");
        Files.write(file, List.of(
                "{\"atMs\":1000,\"component\":\"lambda\",\"rule\":\"lambda.ProbeFunction=error\"}",
                "{\"atMs\":3000,\"component\":\"dynamodb\",\"rule\":\"dynamodb.RunsTable.GetItem=throttle\"}",
                "",
                "{\"atMs\":2500,\"component\":\"states\",\"rule\":\"states.StopExecution\"}"));
        assertEquals(OptionalLong.of(1000), faults.firstFiredAtMs(0));
        assertEquals(OptionalLong.of(2500), faults.firstFiredAtMs(1001), "lines are not in time order across components");
        assertEquals(OptionalLong.of(3000), faults.firstFiredAtMs(3000), "at counts");
        assertEquals(OptionalLong.empty(), faults.firstFiredAtMs(3001));
    }
}
