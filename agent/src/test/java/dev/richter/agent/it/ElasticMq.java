package dev.richter.agent.it;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * ElasticMQ (org.elasticmq:elasticmq-rest-sqs_2.13 1.6.14, an SQS server speaking the SQS JSON protocol the SDK 2.57.8
 * uses) in this JVM, on 127.0.0.1 and an ephemeral port, with the queues it is given; {@link #count} reads a queue's
 * messages at the server ({@code GetQueueAttributes} on this JVM's own client, no agent).
 */
final class ElasticMq implements AutoCloseable {
    private final SQSRestServer server;
    private final int port;
    private final SqsClient sqs;

    ElasticMq(List<String> queues) {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withPort(0).start();
        port = server.waitUntilStarted().localAddress().getPort();
        sqs = SqsClient.builder().endpointOverride(URI.create(endpoint())).region(AwsClients.REGION)
                .credentialsProvider(AwsClients.CREDENTIALS).httpClient(AwsClients.http()).build();
        queues.forEach(q -> sqs.createQueue(r -> r.queueName(q)));
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** The messages {@code queue} holds, visible or in flight. */
    long count(String queue) {
        String url = sqs.getQueueUrl(r -> r.queueName(queue)).queueUrl();
        Map<QueueAttributeName, String> a = sqs.getQueueAttributes(r -> r.queueUrl(url).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)).attributes();
        return Long.parseLong(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                + Long.parseLong(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
    }

    @Override
    public void close() {
        sqs.close();
        server.stopAndWait();
    }
}
