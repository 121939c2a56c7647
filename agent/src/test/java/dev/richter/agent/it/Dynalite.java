package dev.richter.agent.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * A DynamoDB for the ITs: the local stack's dynalite 4.0.0 ({@code local/node/dynalite.cjs}, in memory, on a free
 * loopback port), started with {@code node}; {@code npm ci} first when {@code local/node/node_modules} lacks it. Its
 * tables are created and counted through this JVM's own SDK client (no agent here).
 */
final class Dynalite implements AutoCloseable {
    /** {@code local/node}, from the module directory failsafe runs in. */
    static final Path NODE_DIR = Path.of("..", "local", "node");

    private final Process process;
    private final int port;
    private final DynamoDbClient client;

    Dynalite() throws Exception {
        if (!Files.isDirectory(NODE_DIR.resolve("node_modules/dynalite"))) {
            Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(NODE_DIR.toFile())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (npm.waitFor() != 0) {
                throw new IOException("npm ci failed in " + NODE_DIR.toAbsolutePath());
            }
        }
        process = new ProcessBuilder("node", "--require", "./polyfill.cjs", "dynalite.cjs", "--port", "0")
                .directory(NODE_DIR.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("READY dynamodb ")) {
                        return line;
                    }
                }
                return "";
            } catch (IOException e) {
                return "";
            }
        });
        String line = ready.get(60, TimeUnit.SECONDS);
        if (line.isEmpty()) {
            process.destroyForcibly();
            throw new IOException("dynalite did not start");
        }
        port = Integer.parseInt(line.substring("READY dynamodb ".length()).trim());
        client = DynamoDbClient.builder().endpointOverride(URI.create(endpoint())).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    /** Whether {@code node} runs here: the ITs that need dynalite are skipped without it. */
    static boolean nodeAvailable() {
        try {
            return new ProcessBuilder("node", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    /** Creates each table, keyed by the string attribute {@code id}, on demand. */
    void createTables(List<String> tables) {
        for (String t : tables) {
            client.createTable(r -> r.tableName(t).billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(d -> d.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH)));
        }
    }

    /** The items of {@code table}, counted by an unmarked {@code Scan} of this JVM. */
    int count(String table) {
        return client.scan(r -> r.tableName(table).select(Select.COUNT)).count();
    }

    @Override
    public void close() {
        client.close();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
