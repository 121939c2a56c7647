package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.TableNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The template and the ASL files agree, and the ASL passes asl-validator. */
class TemplateTest {
    static final Path ROOT = LocalStack.rootFromEnv();

    @Test
    void everyDefinitionSubstitutionNamesAFunctionOfTheTemplateAndEveryPlaceholderIsSubstituted() throws IOException {
        Template t = Template.load(ROOT);
        Set<String> functions = t.functions().stream().map(Template.FunctionDef::logicalId).collect(Collectors.toSet());
        assertEquals(2, t.stateMachines().size());
        for (Template.StateMachineDef sm : t.stateMachines()) {
            for (var e : sm.substitutionFunctions().entrySet()) {
                assertTrue(functions.contains(e.getValue()), sm.logicalId() + ": " + e.getKey() + " -> " + e.getValue());
            }
            String asl = Files.readString(sm.definitionFile());
            Matcher m = Pattern.compile("\\$\\{([A-Za-z0-9]+)}").matcher(asl);
            Set<String> used = new TreeSet<>();
            while (m.find()) {
                used.add(m.group(1));
            }
            assertEquals(new TreeSet<>(sm.substitutionFunctions().keySet()), used, sm.logicalId() + ": substitutions vs placeholders");
            String substituted = t.substitutedDefinition(sm);
            assertFalse(substituted.contains("${"));
            assertFalse(asl.contains("arn:aws:states:::lambda:invoke"), "no optimized Lambda integration (local runner lacks it)");
            assertFalse(asl.contains("\"DISTRIBUTED\""), "no Distributed Map");
            assertFalse(asl.contains("JSONata"), "JSONPath only");
        }
    }

    @Test
    void everyHandlerClassExistsAndEveryRouteOfTheApiIsDeclared() throws Exception {
        Template t = Template.load(ROOT);
        for (Template.FunctionDef f : t.functions()) {
            Class<?> c = Class.forName(f.handlerClass());
            assertTrue(com.amazonaws.services.lambda.runtime.RequestStreamHandler.class.isAssignableFrom(c), f.handlerClass());
        }
        Set<String> routes = t.routes().stream().map(Template.Route::routeKey).collect(Collectors.toSet());
        for (String r : List.of("POST /plans", "GET /plans/{planId}", "POST /plans/{planId}/runs", "GET /runs/{runId}",
                "POST /runs/{runId}/abort", "GET /runs/{runId}/report", "POST /services", "POST /traces",
                "PUT /safety", "GET /safety", "GET /safety/mocks")) {
            assertTrue(routes.contains(r), r);
        }
    }

    @Test
    void localTableNamesAreTheNamesTheFunctionsDefaultTo() throws IOException {
        Template t = Template.load(ROOT);
        Set<String> local = t.tables().stream().map(r -> r.tableName()).collect(Collectors.toSet());
        TableNames d = TableNames.fromEnv();
        for (String name : List.of(d.registry(), d.plans(), d.runs(), d.runMetrics(), d.verdicts(), d.links(), d.reports(), d.audit())) {
            assertTrue(local.contains(name), name + " in " + local);
        }
        assertEquals("richter-run-metrics", Template.localTableName("RunMetricsTable"));
    }

    @Test
    void aslFilesPassAslValidatorAndTheValidatorRejectsTheCorpusInvalidMachines() throws Exception {
        List<String> ours = new ArrayList<>();
        try (var files = Files.list(ROOT.resolve("statemachines"))) {
            files.filter(p -> p.toString().endsWith(".asl.json")).forEach(p -> ours.add(p.toString()));
        }
        assertEquals(2, ours.size());
        assertEquals(0, validate(ours), "our ASL must be valid");
        Path invalid = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "asl/invalid-missing-terminal.json");
        assertNotEquals(0, validate(List.of(invalid.toString())), "the validator must reject an invalid machine");
    }

    private static int validate(List<String> files) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", "validate-asl.cjs"));
        cmd.addAll(files);
        Process p = new ProcessBuilder(cmd).directory(ROOT.resolve("local/node").toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        System.out.println(out);
        return code;
    }
}
