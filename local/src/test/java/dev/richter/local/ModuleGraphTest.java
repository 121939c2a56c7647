package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The module layout DESIGN.md ("Modules") describes: {@code functions/<name>} holds one Lambda function (its handler
 * and what only that function uses), {@code libs/<name>} holds what more than one function shares. A function module
 * is never a library of another module, except of {@code local}, the local stack that hosts every function; a library
 * never depends on a function, only on libraries and on {@code sdk}, the code Richter shares with the services' JVMs
 * (the marker's proof, which the load driver signs and the extension verifies; the mock document). Dependencies are read from the poms as {@link TypeNamesTest#moduleDependencies} reads
 * them (compile and runtime scope; test scope, such as a library's test-jar, is not a dependency).
 */
class ModuleGraphTest {
    @Test
    void noFunctionModuleIsALibraryOfAnother() throws IOException {
        Map<String, List<String>> dependencies = TypeNamesTest.moduleDependencies();
        List<String> problems = new ArrayList<>();
        dependencies.forEach((module, on) -> {
            for (String target : on) {
                if (target.startsWith("functions/") && !module.equals("local")) {
                    problems.add(module + " depends on the function module " + target);
                }
                if (module.startsWith("libs/") && !target.startsWith("libs/") && !target.equals("sdk")) {
                    problems.add("the library " + module + " depends on " + target);
                }
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void everyFunctionModuleIsDeployedAndEveryLibraryIsShared() throws IOException {
        Map<String, List<String>> dependencies = TypeNamesTest.moduleDependencies();
        String template = Files.readString(TypeNamesTest.ROOT.resolve("template.yaml"));
        for (String module : dependencies.keySet()) {
            if (module.startsWith("functions/")) {
                String name = module.substring("functions/".length());
                assertTrue(template.contains("CodeUri: " + module + "/target/" + name + "-lambda.jar"),
                        module + " is a function module, so template.yaml deploys it");
            }
            if (module.startsWith("libs/")) {
                long users = dependencies.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("functions/") && e.getValue().contains(module)).count();
                assertTrue(users >= 2, module + " is a library that " + users + " function(s) use: a library is what functions share");
            }
        }
    }
}
