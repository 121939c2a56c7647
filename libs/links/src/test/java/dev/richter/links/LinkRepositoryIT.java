package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.richter.common.AwsClients;
import dev.richter.links.graph.Dimension;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * LinkService against a real DynamoDB API (dynalite, LocalStack, or AWS). Runs only when
 * {@code AWS_ENDPOINT_URL_DYNAMODB} is set, e.g.
 * {@code npx -y dynalite@4.0.0 --port 4599} and {@code AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:4599
 * AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_REGION=us-east-1 mvn -pl libs/links test -Dtest=LinkRepositoryIT}.
 * Creates and deletes its own table.
 */
class LinkRepositoryIT {
    private static DynamoDbClient ddb;
    private static String table;
    private static LinkService service;

    @BeforeAll
    static void createTable() {
        String endpoint = System.getenv("AWS_ENDPOINT_URL_DYNAMODB");
        assumeTrue(endpoint != null && !endpoint.isBlank(), "AWS_ENDPOINT_URL_DYNAMODB not set");
        ddb = AwsClients.dynamoDb();
        table = "links-it-" + System.nanoTime();
        LinkTables.create(ddb, table);
        service = new LinkService(ddb, table);
    }

    @AfterAll
    static void deleteTable() {
        if (ddb != null && table != null) {
            ddb.deleteTable(b -> b.tableName(table));
        }
    }

    @Test
    void ingestAndQueryThroughDynamoDb() {
        IngestResult r = service.ingest("teamA#marked", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        assertEquals(25, r.edgesAdded());
        service.ingest("teamA#marked", "kafka.json", Corpus.bytes("traces/zipkin/messaging-kafka.json"));
        LinkTree tree = service.tree("teamA#marked", Dimension.SERVICE, "routing", 10);
        assertEquals(8, tree.nodes().size());
        assertEquals(Set.of("routing", "unknown", "yelp_main/api_proxy", "yelp-main", "mobile_api"),
                service.upstream("teamA#marked", Dimension.SERVICE, "memcache", 10).nodes().stream()
                        .map(LinkTree.TreeNode::node).collect(Collectors.toSet()));
        assertTrue(service.exits("teamA#marked", Set.of("servicea")).stream()
                .anyMatch(e -> e.toService().equals("kafka")));
        assertTrue(service.tree("teamA", Dimension.SERVICE, "routing", 10).nodes().isEmpty(), "scopes are separate");
        IngestResult again = service.ingest("teamA#marked", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        assertEquals(0, again.edgesAdded());
    }
}
