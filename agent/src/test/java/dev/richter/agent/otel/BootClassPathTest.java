package dev.richter.agent.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The class lists the agent needs by name equal the classes compiled: a class added to a package is not forgotten. */
class BootClassPathTest {

    private static List<String> compiled(String pkg) throws IOException {
        Path dir = Path.of("target/classes", pkg.replace('.', '/'));
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".class"))
                    .map(n -> pkg + "." + n.substring(0, n.length() - ".class".length())).sorted().toList();
        }
    }

    private static List<String> sorted(List<String> names) {
        List<String> out = new ArrayList<>(names);
        out.sort(null);
        return out;
    }

    @Test
    void theBridgeJarHoldsEveryClassOfTheBridgePackage() throws IOException {
        assertEquals(compiled("dev.richter.agent.bootstrap"), sorted(BootClassPath.BRIDGE_CLASSES));
    }

    @Test
    void theModulesInjectEveryClassOfTheHelperPackage() throws IOException {
        List<String> helpers = new ArrayList<>(JdkHttpClientInstrumentationModule.HELPERS);
        helpers.addAll(JdkHttpServerInstrumentationModule.HELPERS);

        assertEquals(compiled("dev.richter.agent.jdk"), sorted(helpers));
    }

    @Test
    void theStorageModulesInjectEveryClassOfTheirHelperPackage() throws IOException {
        assertEquals(compiled("dev.richter.agent.jdbc"), sorted(JdbcInstrumentationModule.HELPERS));
        List<String> jedis = new ArrayList<>(compiled("dev.richter.agent.jedis"));
        jedis.addAll(compiled("dev.richter.agent.redis"));
        assertEquals(sorted(jedis), sorted(JedisInstrumentationModule.HELPERS));
        List<String> lettuce = new ArrayList<>(compiled("dev.richter.agent.lettuce"));
        lettuce.addAll(compiled("dev.richter.agent.redis"));
        lettuce.addAll(compiled("io.lettuce.core.protocol"));
        assertEquals(sorted(lettuce), sorted(LettuceInstrumentationModule.HELPERS));
        assertEquals(compiled("dev.richter.agent.kafka"), sorted(KafkaProducerInstrumentationModule.HELPERS));
        assertEquals(compiled("dev.richter.agent.kafkaconsumer"), sorted(KafkaConsumerInstrumentationModule.HELPERS));
        assertEquals(compiled("dev.richter.agent.awssdk"), sorted(AwsSdkInstrumentationModule.HELPERS));
        assertEquals(compiled("dev.richter.agent.localcache"), sorted(CaffeineInstrumentationModule.HELPERS));
    }

    @Test
    void theOkHttpModuleInjectsEveryClassOfItsHelperPackage() throws IOException {
        assertEquals(compiled("dev.richter.agent.okhttp"), sorted(OkHttpInstrumentationModule.HELPERS));
    }

    @Test
    void theApacheHttpClientModuleInjectsEveryClassOfItsHelperPackage() throws IOException {
        assertEquals(compiled("dev.richter.agent.apache"), sorted(ApacheHttpClientInstrumentationModule.HELPERS));
    }

    @Test
    void theAsyncAndReactiveClientModulesInjectEveryClassOfTheirHelperPackages() throws IOException {
        assertEquals(compiled("dev.richter.agent.apacheasync"), sorted(ApacheHttpAsyncClientInstrumentationModule.HELPERS));
        List<String> reactor = new ArrayList<>(compiled("dev.richter.agent.reactornettyclient"));
        reactor.addAll(compiled("reactor.netty.http.client"));
        assertEquals(sorted(reactor), sorted(ReactorNettyClientInstrumentationModule.HELPERS));
    }

    @Test
    void theApacheHttpClient4ModuleInjectsEveryClassOfItsHelperPackage() throws IOException {
        assertEquals(compiled("dev.richter.agent.apache4"), sorted(ApacheHttpClient4InstrumentationModule.HELPERS));
    }

    @Test
    void theGrpcModuleInjectsEveryClassOfItsHelperPackage() throws IOException {
        assertEquals(compiled("dev.richter.agent.grpc"), sorted(GrpcInstrumentationModule.HELPERS));
    }

    @Test
    void theServerGateModulesInjectEveryClassOfTheirHelperPackage() throws IOException {
        List<String> servlet = new ArrayList<>(JakartaServletInstrumentationModule.HELPERS);
        servlet.addAll(JavaxServletInstrumentationModule.HELPERS);
        assertEquals(compiled("dev.richter.agent.servlet"), sorted(servlet.stream().distinct().toList()));
        assertEquals(compiled("dev.richter.agent.reactornetty"), sorted(ReactorNettyServerInstrumentationModule.HELPERS));
    }
}
