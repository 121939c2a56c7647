package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The contents of a function module's shaded Lambda jar, {@code target/<artifactId>-lambda.jar} (built by
 * {@code mvn -Plambda package}; each function's {@code LambdaJarIT} reads it in the {@code verify} phase of that
 * profile), for the test that the function carries only the AWS SDK service clients it calls and one HTTP client.
 *
 * <p>SDK service clients are the packages {@code software/amazon/awssdk/services/<service>/}; SDK HTTP clients the
 * implementation packages of {@link #SDK_HTTP_CLIENTS} under {@code software/amazon/awssdk/http/} (the SPI of
 * {@code http-client-spi} and {@code http-auth*} shares that prefix and is not a client); the providers the SDK's
 * classpath discovery finds are the lines of {@code META-INF/services/software.amazon.awssdk.http.SdkHttpService} and
 * {@code ...SdkAsyncHttpService}.
 */
public final class LambdaJar {
    /** Implementation package under {@code software/amazon/awssdk/http/} → the SDK artifact that ships it. */
    public static final Map<String, String> SDK_HTTP_CLIENTS = Map.of(
            "apache/", "apache-client",
            "apache5/", "apache5-client",
            "nio/netty/", "netty-nio-client",
            "crt/", "aws-crt-client",
            "urlconnection/", "url-connection-client");
    private static final String SERVICES = "software/amazon/awssdk/services/";
    private static final String HTTP = "software/amazon/awssdk/http/";

    private final Path jar;
    private final List<String> entries;
    private final Map<String, String> serviceFiles;

    private LambdaJar(Path jar, List<String> entries, Map<String, String> serviceFiles) {
        this.jar = jar;
        this.entries = entries;
        this.serviceFiles = serviceFiles;
    }

    /**
     * Reads {@code target/<artifactId>-lambda.jar} of the module under test (Maven runs tests in the module's
     * directory).
     *
     * @throws AssertionError when the jar is missing: the test runs after {@code -Plambda package} built it
     */
    public static LambdaJar of(String artifactId) {
        Path jar = Path.of("target", artifactId + "-lambda.jar");
        assertTrue(Files.isRegularFile(jar), jar.toAbsolutePath() + " is missing: build it with mvn -Plambda verify");
        try (ZipFile z = new ZipFile(jar.toFile())) {
            List<String> names = z.stream().map(ZipEntry::getName).toList();
            Map<String, String> services = new java.util.HashMap<>();
            for (String name : List.of("software.amazon.awssdk.http.SdkHttpService",
                    "software.amazon.awssdk.http.async.SdkAsyncHttpService", "java.net.spi.InetAddressResolverProvider")) {
                ZipEntry e = z.getEntry("META-INF/services/" + name);
                services.put(name, e == null ? "" : new String(z.getInputStream(e).readAllBytes(), StandardCharsets.UTF_8));
            }
            return new LambdaJar(jar, names, services);
        } catch (IOException e) {
            throw new UncheckedIOException(jar.toString(), e);
        }
    }

    /** The SDK services whose client the jar holds, e.g. {@code [dynamodb, eventbridge]}. */
    public Set<String> sdkServices() {
        Set<String> out = new TreeSet<>();
        for (String name : entries) {
            if (name.startsWith(SERVICES) && name.indexOf('/', SERVICES.length()) > 0) {
                out.add(name.substring(SERVICES.length(), name.indexOf('/', SERVICES.length())));
            }
        }
        return out;
    }

    /** The SDK HTTP client artifacts whose classes the jar holds, e.g. {@code [url-connection-client]}. */
    public Set<String> sdkHttpClients() {
        Set<String> out = new TreeSet<>();
        for (String name : entries) {
            SDK_HTTP_CLIENTS.forEach((pkg, artifact) -> {
                if (name.startsWith(HTTP + pkg) && name.endsWith(".class")) out.add(artifact);
            });
        }
        return out;
    }

    /** The non-blank, non-comment lines of {@code META-INF/services/<service>} in the jar. */
    public List<String> providers(String service) {
        return serviceFiles.getOrDefault(service, "").lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    }

    /** Whether any entry's name starts with {@code prefix}, e.g. {@code io/netty/}. */
    public boolean has(String prefix) {
        return entries.stream().anyMatch(n -> n.startsWith(prefix));
    }

    /**
     * Asserts the jar is lean: exactly {@code services} as SDK service clients, {@code url-connection-client} as the one
     * SDK HTTP client and the one provider discovery can find (no async one), no Apache HttpClient 5
     * ({@code org/apache/hc/}, what apache5-client needs), and no Netty ({@code io/netty/}, what netty-nio-client
     * needs) unless the function brings its own ({@code ownNetty}: the load driver's transport); and the JVM's name
     * resolution is Richter's checked one ({@code CheckedResolverProvider}, the one resolver provider it names).
     */
    public void assertLean(Set<String> services, boolean ownNetty) {
        assertEquals(new TreeSet<>(services), sdkServices(), jar + ": the SDK service clients");
        assertEquals(Set.of("url-connection-client"), sdkHttpClients(), jar + ": the SDK HTTP clients");
        assertEquals(List.of("software.amazon.awssdk.http.urlconnection.UrlConnectionSdkHttpService"),
                providers("software.amazon.awssdk.http.SdkHttpService"), jar + ": the sync HTTP services discovery finds");
        assertEquals(List.of(), providers("software.amazon.awssdk.http.async.SdkAsyncHttpService"),
                jar + ": the async HTTP services discovery finds");
        assertEquals(false, has("org/apache/hc/"), jar + " holds Apache HttpClient 5");
        assertEquals(ownNetty, has("io/netty/"), jar + (ownNetty ? " lacks its own Netty transport" : " holds Netty"));
        assertEquals(List.of("dev.richter.common.net.CheckedResolverProvider"),
                providers("java.net.spi.InetAddressResolverProvider"), jar + ": the name resolver the JVM loads");
    }
}
