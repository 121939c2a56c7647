package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Holds {@code docs/security.md}, which is the security suite ({@code ./richter test --security} runs the tests it
 * names), true to the repository: every test it names exists, and each of its five boundaries names at least one.
 */
class SecurityDocTest {
    @Test
    void everyTestThePageNamesExistsAndEachBoundaryHasOne() throws IOException {
        Path root = FormatsDocTest.root();
        String page = Files.readString(root.resolve("docs/security.md"));
        List<String> named = FormatsDocTest.testsNamed(page);
        assertEquals(List.of(), FormatsDocTest.missingTests(root, named), "tests docs/security.md names that do not exist");
        String[] sections = page.split("\n## ");
        int boundaries = 0;
        for (String section : sections) {
            if (section.matches("(?s)^[1-9]\\. .*")) {
                boundaries++;
                assertTrue(!FormatsDocTest.testsNamed(section).isEmpty(),
                        "boundary '" + section.lines().findFirst().orElse("") + "' names no test");
            }
        }
        assertEquals(5, boundaries, "the page's boundaries: the marker, targets, networks, webhooks, secrets");
    }
}
