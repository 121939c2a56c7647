package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs after every other IT, in a failsafe execution of its own (local/pom.xml): compares the AWS calls the ITs
 * recorded, one file per fork in the directory of {@code RICHTER_IAM_RECORDING} (local/target/iam-calls/*.jsonl), with
 * template.yaml's grants, writes local/target/iam-least-privilege.txt, and fails on a recorded call the template does
 * not allow. Unused grants are reported, not failed: one IT run covers only the code paths its ITs take.
 */
class LeastPrivilegeIT {
    @Test
    void everyRecordedCallIsGrantedAndUnusedGrantsAreReported() throws Exception {
        Path dir = Path.of(System.getenv("RICHTER_IAM_RECORDING")).getParent();
        List<Path> recordings;
        try (var files = Files.list(dir)) {
            recordings = files.filter(f -> f.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        } catch (java.nio.file.NoSuchFileException e) {
            recordings = List.of();
        }
        Assumptions.assumeFalse(recordings.isEmpty(), "no IT of this run recorded calls in " + dir);
        Path root = LocalAwsStack.rootFromEnv();
        List<LeastPrivilege.Call> calls = new java.util.ArrayList<>();
        for (Path recording : recordings) {
            calls.addAll(LeastPrivilege.read(recording));
        }
        LeastPrivilege.Comparison c = LeastPrivilege.compare(
                IamPolicies.of(SamTemplate.load(root, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS)), calls);
        String report = LeastPrivilege.report(c, calls.size());
        Files.writeString(dir.resolveSibling("iam-least-privilege.txt"), report);
        System.out.println(report);
        assertEquals(List.of(), c.missing(), report);
    }
}
