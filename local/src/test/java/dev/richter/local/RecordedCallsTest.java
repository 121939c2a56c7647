package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Least privilege both ways, from the calls the integration tests recorded ({@code src/test/resources/iam/
 * recorded-calls.jsonl}, written by {@link IamEnforcement} while IamIT, ApiIT, LoadTestRunIT, LinksIT and SafetyGateIT ran): every recorded
 * call is granted by template.yaml, and every statement no recorded call used is named with its code path in
 * {@code named-grants.tsv}, and only those.
 */
class RecordedCallsTest {
    static final Path ROOT = LocalAwsStack.rootFromEnv();
    static final Path DIR = ROOT.resolve("local/src/test/resources/iam");

    static LeastPrivilege.Comparison comparison() throws IOException {
        return LeastPrivilege.compare(IamPolicies.of(SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS)),
                LeastPrivilege.read(DIR.resolve("recorded-calls.jsonl")));
    }

    @Test
    void everyRecordedCallIsGranted() throws IOException {
        assertEquals(List.of(), comparison().missing());
    }

    @Test
    void everyGrantNoRecordedCallUsedIsNamedWithItsCodePath() throws IOException {
        Set<String> unused = comparison().unused().stream().filter(u -> u.used().isEmpty()).map(LeastPrivilege.Unused::source)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> named = Files.readAllLines(DIR.resolve("named-grants.tsv")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.split("\t", 2)[0])
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(unused, named, "remove a grant no code path uses, or name its use in named-grants.tsv");
    }
}
