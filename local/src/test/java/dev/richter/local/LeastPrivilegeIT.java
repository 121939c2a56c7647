package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Runs last in a failsafe run (the {@code ClassOrderer$OrderAnnotation} of local/pom.xml; every other IT has the
 * default order): compares the AWS calls every IT before it recorded ({@code RICHTER_IAM_RECORDING},
 * local/target/iam-calls.jsonl) with template.yaml's grants, writes local/target/iam-least-privilege.txt, and fails
 * on a recorded call the template does not allow. Unused grants are reported, not failed: one IT run covers only the
 * code paths its ITs take.
 */
@Order(Integer.MAX_VALUE)
class LeastPrivilegeIT {
    @Test
    void everyRecordedCallIsGrantedAndUnusedGrantsAreReported() throws Exception {
        Path recording = Path.of(System.getenv("RICHTER_IAM_RECORDING"));
        Assumptions.assumeTrue(Files.exists(recording), "no IT of this run recorded calls");
        Path root = LocalAwsStack.rootFromEnv();
        List<LeastPrivilege.Call> calls = LeastPrivilege.read(recording);
        LeastPrivilege.Comparison c = LeastPrivilege.compare(
                IamPolicies.of(SamTemplate.load(root, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS)), calls);
        String report = LeastPrivilege.report(c, calls.size());
        Files.writeString(recording.resolveSibling("iam-least-privilege.txt"), report);
        System.out.println(report);
        assertEquals(List.of(), c.missing(), report);
    }
}
