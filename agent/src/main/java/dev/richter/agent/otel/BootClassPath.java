package dev.richter.agent.otel;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
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
            "dev.richter.agent.bootstrap.ShadowCheck",
            "dev.richter.agent.bootstrap.ShadowCheck$Outcome",
            "dev.richter.agent.bootstrap.ShadowDecision"));

    private static boolean appended;

    private BootClassPath() {}

    /**
     * Appends the bridge package once per JVM; later calls do nothing.
     *
     * @throws IllegalStateException when the agent's {@code Instrumentation} cannot be had, or the jar not written
     */
    static synchronized void appendBridge() {
        if (appended) {
            return;
        }
        try {
            Instrumentation inst = (Instrumentation) Class
                    .forName("io.opentelemetry.javaagent.bootstrap.InstrumentationHolder", true, null)
                    .getMethod("getInstrumentation").invoke(null);
            Path jar = Files.createTempFile("richter-isolation-bridge", ".jar");
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
            inst.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
            appended = true;
        } catch (ReflectiveOperationException | IOException | RuntimeException e) {
            throw new IllegalStateException("Richter isolation: cannot put its bridge on the boot class path: " + e, e);
        }
    }
}
