package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * CI runs the README's commands as the README writes them: the first {@code bash} block of README.md holds the
 * numbered commands ({@code ./richter demo    # 1. ...}), and {@code .ci/run} runs each of them, in the same order,
 * as a command line of its own with nothing but a pipe to {@code tee} after it. A README edit that changes a command
 * fails this test until CI runs the new one.
 */
class CiRunsReadmeCommandsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** The commands of the README's first {@code bash} block, comments cut off. */
    static List<String> readmeCommands(String readme) {
        Matcher block = Pattern.compile("```bash\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(), "README.md has a bash block");
        List<String> out = new ArrayList<>();
        for (String line : block.group(1).split("\n")) {
            String command = line.replaceFirst("#.*", "").strip();
            if (!command.isEmpty()) {
                out.add(command);
            }
        }
        return out;
    }

    /** The lines of a bash script that run one of {@code commands} (alone, or piped into {@code tee}), in order. */
    static List<String> commandsRun(String script, List<String> commands) {
        List<String> out = new ArrayList<>();
        for (String line : script.split("\n")) {
            String command = line.replaceFirst("\\s*\\|\\s*tee\\s+\\S+\\s*$", "").replaceFirst("\\s+2>&1$", "").strip();
            if (commands.contains(command)) {
                out.add(command);
            }
        }
        return out;
    }

    @Test
    void ciRunsBothReadmeCommandsInTheReadmesOrder() throws Exception {
        List<String> readme = readmeCommands(Files.readString(ROOT.resolve("README.md")));
        assertEquals(List.of("./richter demo", "./richter test"), readme, "the README's two commands");
        assertEquals(readme, commandsRun(Files.readString(ROOT.resolve(".ci/run")), readme));
    }

    @Test
    void aCommandMissingFromTheScriptIsSeen() {
        List<String> readme = List.of("./richter demo", "./richter test");
        assertEquals(List.of("./richter test"), commandsRun("set -e\n# ./richter demo\n./richter test\n", readme));
        assertEquals(List.of("./richter demo", "./richter test"),
                commandsRun("./richter demo 2>&1 | tee build/ci-demo.log\n./richter test\n",
                        readme));
        assertEquals(List.of("./richter test", "./richter demo"),
                commandsRun("./richter test\n./richter demo\n", readme), "the order is the script's");
    }
}
