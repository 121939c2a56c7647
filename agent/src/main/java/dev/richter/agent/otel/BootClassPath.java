package dev.richter.agent.otel;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Puts the bridge package ({@code dev.richter.agent.bootstrap}) on the boot class path, so that one copy of it is
 * seen by the JDK's classes, the application's class loaders and the extension alike (see {@code IsolationBridge}).
 * The classes are copied from the extension jar into a temporary jar and appended with {@link
 * Instrumentation#appendToBootstrapClassLoaderSearch}; the agent's own {@code
 * io.opentelemetry.javaagent.bootstrap.InstrumentationHolder} gives the {@link Instrumentation}. Must run before any
 * class loads one of the bridge classes: this class names none of them in its code.
 */
final class BootClassPath {
    /** Every class of the bridge package (held equal to the compiled package by {@code BootClassPathTest}). */
    static final List<String> BRIDGE_CLASSES = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.bootstrap.ExitDecision",
            "dev.richter.agent.bootstrap.ExitDecision$Pass",
            "dev.richter.agent.bootstrap.ExitDecision$Mock",
            "dev.richter.agent.bootstrap.ExitDecision$Refusal",
            "dev.richter.agent.bootstrap.ExitDecision$Refuse",
            "dev.richter.agent.bootstrap.ExitDecision$WouldRefuse",
            "dev.richter.agent.bootstrap.IsolationGuard",
            "dev.richter.agent.bootstrap.IsolationBridge",
            "dev.richter.agent.bootstrap.IsolationBridge$1",
            "dev.richter.agent.bootstrap.IsolationBridge$2",
            "dev.richter.agent.bootstrap.MarkerScope",
            "dev.richter.agent.bootstrap.NetworkGate",
            "dev.richter.agent.bootstrap.NetworkGate$Remote",
            "dev.richter.agent.bootstrap.ShadowCheck",
            "dev.richter.agent.bootstrap.ShadowCheck$Outcome",
            "dev.richter.agent.bootstrap.ShadowDecision",
            "dev.richter.agent.bootstrap.UrlConnectionGate"));

    private static boolean appended;

    private BootClassPath() {}

    /**
     * Appends the bridge package once per JVM; later calls do nothing. The jar is written to the first directory of
     * {@link #bridgeDirectories} where it can be, so a service whose {@code java.io.tmpdir} cannot be written (a
     * container's read-only root file system, corpus bug 43) still gets its bridge.
     *
     * @throws IllegalStateException when the agent's {@code Instrumentation} cannot be had, or the jar not written
     *                               anywhere, naming each directory tried and why
     */
    static synchronized void appendBridge() {
        if (appended) {
            return;
        }
        Instrumentation inst;
        try {
            inst = (Instrumentation) Class
                    .forName("io.opentelemetry.javaagent.bootstrap.InstrumentationHolder", true, null)
                    .getMethod("getInstrumentation").invoke(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("Richter isolation: cannot put its bridge on the boot class path: " + e, e);
        }
        StringBuilder tried = new StringBuilder();
        for (Path dir : bridgeDirectories()) {
            try {
                Path jar = writeBridge(dir);
                inst.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
                appended = true;
                return;
            } catch (IOException | RuntimeException e) {
                tried.append(tried.length() == 0 ? "" : "; ").append(dir).append(": ").append(e);
            }
        }
        throw new IllegalStateException("Richter isolation: cannot put its bridge on the boot class path: no directory"
                + " could take its jar (" + tried + "); give one with -D" + BRIDGE_DIR_PROPERTY);
    }

    /** The system property naming a writable directory for the bridge's jar, tried first. */
    static final String BRIDGE_DIR_PROPERTY = "richter.isolation.bridge-dir";

    /**
     * Where the bridge's jar may go, in order: {@code -Drichter.isolation.bridge-dir}, {@code java.io.tmpdir}, {@code
     * /dev/shm} (a memory file system every Linux container has, writable with a read-only root), the directory of
     * the extension's jar, and the user's home.
     */
    static List<Path> bridgeDirectories() {
        List<Path> out = new ArrayList<>();
        for (String dir : new String[] {System.getProperty(BRIDGE_DIR_PROPERTY), System.getProperty("java.io.tmpdir"),
                "/dev/shm", extensionDirectory(), System.getProperty("user.home")}) {
            if (dir != null && !dir.trim().isEmpty()) {
                Path p = Paths.get(dir.trim());
                if (!out.contains(p)) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    private static String extensionDirectory() {
        try {
            Path jar = Paths.get(BootClassPath.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent() == null ? null : jar.getParent().toString();
        } catch (Exception | LinkageError e) {
            return null;
        }
    }

    /** Writes the bridge's classes into a new jar in {@code dir}, deleted when the JVM exits. */
    private static Path writeBridge(Path dir) throws IOException {
        Path jar = Files.createTempFile(dir, "richter-isolation-bridge", ".jar");
        jar.toFile().deleteOnExit();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String name : BRIDGE_CLASSES) {
                String resource = name.replace('.', '/') + ".class";
                try (InputStream in = BootClassPath.class.getClassLoader().getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new IOException(resource + " missing from the extension jar");
                    }
                    out.putNextEntry(new JarEntry(resource));
                    byte[] buffer = new byte[8192];
                    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                        out.write(buffer, 0, n);
                    }
                    out.closeEntry();
                }
            }
        }
        return jar;
    }
}
