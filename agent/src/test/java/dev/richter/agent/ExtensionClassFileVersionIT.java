package dev.richter.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The built extension jar ({@code richter.extension.jar}, target/richter-otel-extension.jar: Richter's classes,
 * richter-sdk's, and the relocated Jackson and JSqlParser) loads on every JVM the OpenTelemetry agent supports, Java
 * 8 and up: every class is class file 52 (Java 8) or older, except the JDK {@code HttpClient} support ({@link
 * #JAVA_11}, at most 55, Java 11), which no Java 8 class links to. The agent's service loader skips a module whose
 * class file is newer than the JVM, silently: a service would then run with no isolation. Needs {@code mvn package}
 * first (failsafe: {@code mvn verify -pl agent}).
 */
class ExtensionClassFileVersionIT {
    private static final int JAVA_8 = 52;
    private static final int JAVA_11 = 55;

    /**
     * The classes compiled for Java 11 ({@code java.net.http} exists from Java 11 on), internal names. Only {@code
     * JdkHttpClientInstrumentationModule} names them, as text, and instantiates {@code JdkHttpClientInstrumentation}
     * on Java 11 and later only ({@code JdkHttpClientInstrumentationModuleTest}).
     */
    static final Set<String> JAVA_11_CLASSES = new TreeSet<>(List.of(
            "dev/richter/agent/jdk/JdkHttpClientExits",
            "dev/richter/agent/jdk/MockedHttpResponse",
            "dev/richter/agent/jdk/MockedHttpResponse$Later",
            "dev/richter/agent/jdk/MockedHttpResponse$Info",
            "dev/richter/agent/jdk/MockedHttpResponse$AllHeaders",
            "dev/richter/agent/jdk/MockedHttpResponse$OneBuffer",
            "dev/richter/agent/otel/JdkHttpClientInstrumentation",
            "dev/richter/agent/otel/JdkHttpClientInstrumentation$SendAdvice",
            "dev/richter/agent/otel/JdkHttpClientInstrumentation$SendAsyncAdvice"));

    /** Every class of the jar: internal name to its class file. */
    private static final Map<String, ClassFile> CLASSES = new TreeMap<>();

    @BeforeAll
    static void readJar() throws IOException {
        String jar = System.getProperty("richter.extension.jar");
        assertTrue(jar != null && Files.isRegularFile(Path.of(jar)),
                "richter.extension.jar must name the built jar (run through mvn verify), got " + jar);
        try (ZipFile zip = new ZipFile(jar)) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                if (entry.getName().endsWith(".class")) {
                    try (InputStream in = zip.getInputStream(entry)) {
                        String name = entry.getName().substring(0, entry.getName().length() - ".class".length());
                        CLASSES.put(name, ClassFile.read(in));
                    }
                }
            }
        }
        assertTrue(CLASSES.size() > 500, "the jar holds Richter's classes, Jackson's and JSqlParser's: " + CLASSES.size());
    }

    @Test
    void everyClassShadedLibrariesIncludedIsJava8ButTheJdkHttpClientSupportWhichIsJava11() {
        List<String> tooNew = new ArrayList<>();
        CLASSES.forEach((name, c) -> {
            int allowed = JAVA_11_CLASSES.contains(name) ? JAVA_11 : JAVA_8;
            if (c.major > allowed) {
                tooNew.add(name + " (class file " + c.major + ", at most " + allowed + ")");
            }
        });

        assertEquals(List.of(), tooNew);
        assertTrue(CLASSES.keySet().containsAll(JAVA_11_CLASSES),
                "the list names classes the jar no longer has: " + JAVA_11_CLASSES.stream()
                        .filter(n -> !CLASSES.containsKey(n)).toList());
        assertTrue(CLASSES.containsKey("dev/richter/agent/shaded/jackson/databind/ObjectMapper"));
        assertTrue(CLASSES.containsKey("dev/richter/agent/shaded/jsqlparser/parser/CCJSqlParserUtil"));
        assertTrue(CLASSES.containsKey("dev/richter/sdk/MockConfigDocument"));
    }

    /**
     * A Java 8 JVM loads a Java 8 class's references when it links them: none names a Java 11 class (in its constant
     * pool, as a class, a descriptor or a signature) or a {@code java.net.http} type.
     */
    @Test
    void noJava8ClassLinksToTheJava11ClassesOrToJavaNetHttp() {
        List<Pattern> java11 = new ArrayList<>();
        for (String name : JAVA_11_CLASSES) {
            java11.add(Pattern.compile(Pattern.quote(name) + "(?![\\w$])"));
        }
        java11.add(Pattern.compile("java/net/http/"));
        List<String> links = new ArrayList<>();
        CLASSES.forEach((name, c) -> {
            if (JAVA_11_CLASSES.contains(name)) {
                return;
            }
            for (String text : c.texts) {
                for (Pattern p : java11) {
                    if (p.matcher(text).find()) {
                        links.add(name + " -> " + text);
                    }
                }
            }
        });

        assertEquals(List.of(), links);
    }

    /** A class file's major version and the text (UTF-8) constants of its constant pool (JVMS 4.1, 4.4). */
    private record ClassFile(int major, List<String> texts) {
        static ClassFile read(InputStream bytes) throws IOException {
            DataInputStream in = new DataInputStream(bytes);
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("not a class file");
            }
            in.readUnsignedShort(); // minor
            int major = in.readUnsignedShort();
            int count = in.readUnsignedShort();
            List<String> texts = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> texts.add(in.readUTF());
                    case 7, 8, 16, 19, 20 -> in.skipBytes(2);
                    case 15 -> in.skipBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                    case 5, 6 -> {
                        in.skipBytes(8);
                        i++; // a long or double takes two entries
                    }
                    default -> throw new IOException("constant pool tag " + tag);
                }
            }
            return new ClassFile(major, texts);
        }
    }
}
