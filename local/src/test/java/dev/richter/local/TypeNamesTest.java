package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * A simple name names one type: within the classpath of each module (its own main code plus the main code of the
 * {@code dev.richter} modules its pom depends on, transitively), no two types share a simple name, and none has the
 * simple name of a public type of {@code java.lang}, {@code java.util}, {@code java.time}, {@code java.io} or
 * {@code java.net}. Types are the top-level and member types (any visibility) declared under
 * {@code <module>/src/main/java}, read with javac's parser; local and anonymous classes are not counted. The modules
 * are the root pom's {@code <modules>}; every function's classpath is one of them, and the local stack's holds them
 * all. One idiom is exempt: a member type named {@code Builder} ({@link #OUTER_QUALIFIED}), which is always written
 * with its outer type ({@code Quotas.Builder}, as the JDK's {@code HttpRequest.Builder} and {@code Thread.Builder}).
 */
class TypeNamesTest {
    static final Path ROOT = LocalAwsStack.rootFromEnv();
    static final List<String> JAVA_PACKAGES = List.of("java.lang", "java.util", "java.time", "java.io", "java.net");

    /** A declared type: its simple name, its qualified name, the module that declares it. */
    record Declared(String simpleName, String qualifiedName, String module) {
        @Override
        public String toString() {
            return qualifiedName + " (" + module + ")";
        }
    }

    private static final Comparator<Declared> BY_NAME = Comparator.comparing(Declared::qualifiedName);

    /** Member type names that are always written {@code Outer.Name}, so they never leave a reader asking which is meant. */
    static final Set<String> OUTER_QUALIFIED = Set.of("Builder");

    /** Fails naming every simple name that two types share on some module's classpath, or that a java.* type has. */
    @Test
    void everySimpleNameNamesOneTypeOnEachModulesClasspath() throws IOException {
        Map<String, List<String>> dependencies = moduleDependencies();
        Map<String, List<Declared>> declared = new LinkedHashMap<>();
        for (String module : dependencies.keySet()) {
            declared.put(module, declaredTypes(module));
        }
        Set<String> javaNames = publicJavaTypeNames();

        // problem -> the modules on whose classpath it shows, so each clash is reported once
        Map<String, Set<String>> problems = new TreeMap<>();
        for (String module : dependencies.keySet()) {
            Map<String, Set<Declared>> bySimpleName = new TreeMap<>();
            for (String onClasspath : classpath(module, dependencies)) {
                for (Declared type : declared.get(onClasspath)) {
                    String outer = outerSegment(type.qualifiedName());
                    boolean member = !outer.isEmpty() && Character.isUpperCase(outer.charAt(0));
                    if (member && OUTER_QUALIFIED.contains(type.simpleName())) {
                        continue;
                    }
                    bySimpleName.computeIfAbsent(type.simpleName(), k -> new TreeSet<>(BY_NAME)).add(type);
                }
            }
            bySimpleName.forEach((name, types) -> {
                if (types.size() > 1) {
                    problems.computeIfAbsent(name + " names " + types.size() + " types " + types,
                            k -> new TreeSet<>()).add(module);
                }
                if (javaNames.contains(name)) {
                    problems.computeIfAbsent(name + " shadows a java.* type: " + types, k -> new TreeSet<>()).add(module);
                }
            });
        }
        List<String> lines = new ArrayList<>();
        problems.forEach((problem, modules) -> lines.add(problem + " (on the classpath of " + String.join(", ", modules) + ")"));
        assertTrue(lines.isEmpty(), "simple names that name more than one type:\n  " + String.join("\n  ", lines));
    }

    /** The segment before the simple name of a qualified name: the outer type of a member type, else a package. */
    private static String outerSegment(String qualifiedName) {
        String[] parts = qualifiedName.split("\\.");
        return parts.length < 2 ? "" : parts[parts.length - 2];
    }

    /** What the check reads: the module graph from the poms, member types from the parser, java.* names from the JDK. */
    @Test
    void readsMemberTypesAndTheModuleGraph() throws IOException {
        Map<String, List<String>> dependencies = moduleDependencies();
        assertTrue(dependencies.keySet().containsAll(List.of("libs/common", "functions/load-driver", "local")),
                dependencies.keySet().toString());
        assertEquals(List.of("functions/plan-api", "libs/common", "libs/links", "libs/traffic", "libs/reports",
                        "libs/runs", "libs/sizing", "sdk"),
                classpath("functions/plan-api", dependencies));
        List<String> names = declaredTypes("libs/common").stream().map(Declared::qualifiedName).toList();
        assertTrue(names.contains("dev.richter.common.model.CheckResult.Outcome"), names.toString());
        assertTrue(names.contains("dev.richter.common.model.Plan"), names.toString());
        assertFalse(publicJavaTypeNames().contains("StringLatin1"), "non-public java.lang types are not counted");
        assertTrue(publicJavaTypeNames().containsAll(List.of("Clock", "Reader", "Optional", "Record")));
    }

    /** Module directory → the module directories its pom depends on ({@code dev.richter}, any scope but test). */
    static Map<String, List<String>> moduleDependencies() throws IOException {
        String rootPom = Files.readString(ROOT.resolve("pom.xml"));
        List<String> modules = all(Pattern.compile("<module>([^<]+)</module>"), rootPom);
        Map<String, String> moduleByArtifact = new LinkedHashMap<>();
        Map<String, String> poms = new LinkedHashMap<>();
        for (String module : modules) {
            String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"));
            poms.put(module, pom);
            String own = pom.replaceAll("(?s)<parent>.*?</parent>", "").replaceAll("(?s)<dependencies>.*", "");
            moduleByArtifact.put(all(Pattern.compile("<artifactId>([^<]+)</artifactId>"), own).getFirst(), module);
        }
        Map<String, List<String>> dependencies = new LinkedHashMap<>();
        Pattern dependency = Pattern.compile("(?s)<dependency>(.*?)</dependency>");
        Pattern artifact = Pattern.compile("<artifactId>([^<]+)</artifactId>");
        poms.forEach((module, pom) -> {
            List<String> on = new ArrayList<>();
            for (String d : all(dependency, pom)) {
                if (d.contains("<groupId>dev.richter</groupId>") && !d.contains("<scope>test</scope>")) {
                    String target = moduleByArtifact.get(all(artifact, d).getFirst());
                    if (target != null) {
                        on.add(target);
                    }
                }
            }
            dependencies.put(module, on);
        });
        return dependencies;
    }

    /** {@code module} first, then everything it depends on, transitively, each once. */
    static List<String> classpath(String module, Map<String, List<String>> dependencies) {
        Set<String> out = new LinkedHashSet<>();
        List<String> todo = new ArrayList<>(List.of(module));
        while (!todo.isEmpty()) {
            String next = todo.removeFirst();
            if (out.add(next)) {
                todo.addAll(dependencies.getOrDefault(next, List.of()));
            }
        }
        return List.copyOf(out);
    }

    /** Top-level and member types declared in {@code module}'s main sources. */
    static List<Declared> declaredTypes(String module) throws IOException {
        Path sources = ROOT.resolve(module).resolve("src/main/java");
        if (!Files.isDirectory(sources)) {
            return List.of();
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<Declared> out = new ArrayList<>();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            Iterable<? extends JavaFileObject> units = fileManager.getJavaFileObjectsFromPaths(files);
            JavacTask task = (JavacTask) javac.getTask(null, fileManager, diagnostic -> { }, null, null, units);
            for (CompilationUnitTree unit : task.parse()) {
                String pkg = unit.getPackage() == null ? "" : unit.getPackage().getPackageName().toString() + ".";
                for (Tree type : unit.getTypeDecls()) {
                    collect(type, pkg, module, out);
                }
            }
        }
        return out;
    }

    private static void collect(Tree tree, String prefix, String module, List<Declared> out) {
        if (tree instanceof ClassTree type) {
            String name = type.getSimpleName().toString();
            out.add(new Declared(name, prefix + name, module));
            for (Tree member : type.getMembers()) {
                collect(member, prefix + name + ".", module, out);
            }
        }
    }

    /** Simple names of the public types of {@link #JAVA_PACKAGES} (nested types excepted), read from the JDK image. */
    static Set<String> publicJavaTypeNames() throws IOException {
        Set<String> out = new TreeSet<>();
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        for (String pkg : JAVA_PACKAGES) {
            Path dir = jrt.getPath("modules", "java.base").resolve(pkg.replace('.', '/'));
            try (Stream<Path> list = Files.list(dir)) {
                for (Path p : list.toList()) {
                    String file = p.getFileName().toString();
                    if (!file.endsWith(".class") || file.contains("$") || file.equals("package-info.class")) {
                        continue;
                    }
                    String simple = file.substring(0, file.length() - ".class".length());
                    try {
                        if (Modifier.isPublic(Class.forName(pkg + "." + simple, false, null).getModifiers())) {
                            out.add(simple);
                        }
                    } catch (ClassNotFoundException | LinkageError e) {
                        // not loadable from the boot layer: not a type a reader meets
                    }
                }
            }
        }
        return out;
    }

    private static List<String> all(Pattern pattern, String text) {
        List<String> out = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
