package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./richter import} over a real socket against a scripted API: what it sends (route, query, content type,
 * token, the file's bytes), what it prints, and its exit status for a stored set, a refused file, no API and bad
 * arguments.
 */
class ImportMainTest {
    private HttpServer server;
    private final AtomicReference<String[]> request = new AtomicReference<>();
    private final AtomicReference<byte[]> requestBody = new AtomicReference<>();
    private volatile int status = 201;
    private volatile String answer;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/", ex -> {
            try (ex) {
                requestBody.set(ex.getRequestBody().readAllBytes());
                request.set(new String[] {ex.getRequestMethod(), ex.getRequestURI().getRawPath() + "?" + ex.getRequestURI().getRawQuery(),
                        ex.getRequestHeaders().getFirst("content-type"), ex.getRequestHeaders().getFirst("authorization")});
                byte[] b = answer.getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("content-type", "application/json");
                ex.sendResponseHeaders(status, b.length);
                ex.getResponseBody().write(b);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private int run(String... args) {
        ImportMain command = new ImportMain(Map.of("RICHTER_TOKEN", "tok-1"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return ImportMain.run(command, args);
    }

    private String api() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void aStoredSetIsSummarisedAndExitsZero(@TempDir Path dir) throws IOException {
        Path log = dir.resolve("access log.txt");
        byte[] bytes = "127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /users/7 HTTP/1.1\" 200 2326 \"-\" \"curl\"\n\\x22\n"
                .getBytes(StandardCharsets.UTF_8);
        Files.write(log, bytes);
        answer = """
                {"setId":"ts-1","teamId":"t","name":"access log.txt","format":"nginx","createdAtMs":1,
                 "counts":{"entriesRead":2,"imported":1,"skipped":0,"problems":1,"scrubbedValues":0,"decodeErrors":0},
                 "endpoints":[{"host":"","method":"GET","pathTemplate":"/users/{id}","count":1,"weight":0.5,"samples":[]},
                              {"host":"api.example.com","method":"GET","pathTemplate":"/users/{id}","count":1,"weight":0.5,"samples":[]}],
                 "skipped":{},"problems":[{"position":"access log.txt:2","reason":"not a combined log line"}]}""";
        assertEquals(0, run("--format", "nginx", "--api", api(), "--log-format", "log_format x '$request';", log.toString()));
        String[] r = request.get();
        assertEquals("POST", r[0]);
        assertEquals("/traffic-sets?format=nginx&file=access+log.txt&logFormat=log_format+x+%27%24request%27%3B", r[1]);
        assertEquals("text/plain; charset=utf-8", r[2]);
        assertEquals("Bearer tok-1", r[3]);
        assertArrayEquals(bytes, requestBody.get(), "the file's bytes as they are on disk");
        assertEquals(List.of("traffic set ts-1 (nginx, access log.txt): 1 of 2 entries imported into 2 endpoints; 0 values scrubbed into slots",
                "   50.0 %  GET /users/{id}", "   50.0 %  GET api.example.com/users/{id}", "  access log.txt:2: not a combined log line"),
                out.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void aRefusedFilePrintsEveryProblemAndExitsOne(@TempDir Path dir) throws IOException {
        Path har = dir.resolve("broken.har");
        Files.writeString(har, "{\"log\": ");
        status = 400;
        answer = "{\"error\":\"InvalidTrafficFile\",\"message\":\"broken.har is not HAR\","
                + "\"errors\":[{\"path\":\"broken.har:line 1, column 9\",\"reason\":\"unexpected end of input\"}]}";
        assertEquals(1, run("--format", "har", "--api", api() + "/", har.toString()));
        assertEquals("application/json", request.get()[2]);
        assertEquals(List.of("not imported: HTTP 400 InvalidTrafficFile (is --format har the file's format?)",
                "  broken.har:line 1, column 9: unexpected end of input"), err.toString(StandardCharsets.UTF_8).lines().toList());
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void noApiOrNoFileExitsOneAndBadArgumentsTwo(@TempDir Path dir) throws IOException {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Path har = dir.resolve("a.har");
        Files.writeString(har, "{}");
        assertEquals(1, run("--format", "har", "--api", "http://127.0.0.1:" + closed, har.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no Richter API answers at http://127.0.0.1:" + closed), err.toString());
        assertEquals(1, run("--format", "har", "--api", api(), dir.resolve("missing.har").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("missing.har: no such file"), err.toString());
        assertEquals(2, run("--api", api(), har.toString()), "--format is required");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("Missing required option: '--format"), err.toString());
    }
}
