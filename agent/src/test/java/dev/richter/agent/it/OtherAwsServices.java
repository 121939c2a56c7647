package dev.richter.agent.it;

import java.util.Map;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.PublishBatchRequestEntry;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * {@link AwsSdkTestApp}'s clients of SQS, S3, SNS, EventBridge and Kinesis (SDK 2.57.8, url-connection-client), each
 * built when its endpoint is set ({@code -Dapp.sqs.endpoint}, {@code -Dapp.s3.endpoint}, {@code -Dapp.aws.recorder}
 * for the last three), and the calls {@code /aws} makes with them (the app's comment lists them).
 */
final class OtherAwsServices {
    private final SqsClient sqs;
    private final S3Client s3;
    private final SnsClient sns;
    private final EventBridgeClient events;
    private final KinesisClient kinesis;

    OtherAwsServices() {
        String sqsAt = System.getProperty("app.sqs.endpoint");
        String s3At = System.getProperty("app.s3.endpoint");
        String recorder = System.getProperty("app.aws.recorder");
        sqs = sqsAt == null ? null : AwsClients.local(SqsClient.builder(), sqsAt).httpClient(AwsClients.http()).build();
        s3 = s3At == null ? null : AwsClients.local(S3Client.builder(), s3At).httpClient(AwsClients.http())
                .forcePathStyle(true).requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
        sns = recorder == null ? null : AwsClients.local(SnsClient.builder(), recorder).httpClient(AwsClients.http())
                .build();
        events = recorder == null ? null : AwsClients.local(EventBridgeClient.builder(), recorder)
                .httpClient(AwsClients.http()).build();
        kinesis = recorder == null ? null : AwsClients.local(KinesisClient.builder(), recorder)
                .httpClient(AwsClients.http()).build();
    }

    /** One call, by {@code service}, {@code op}, {@code target} and {@code id} of {@code q}; its answer as text. */
    Object call(Map<String, String> q) {
        String op = q.get("op");
        String target = q.getOrDefault("target", "");
        String id = q.getOrDefault("id", "x");
        return switch (q.get("service")) {
            case "sqs" -> sqs(op, target, id);
            case "s3" -> s3(op, target.substring(0, target.indexOf('/')), target.substring(target.indexOf('/') + 1),
                    id);
            case "sns" -> op.equals("batch")
                    ? sns.publishBatch(r -> r.topicArn(target).publishBatchRequestEntries(
                            PublishBatchRequestEntry.builder().id(id).message(id).build())).successful().size()
                    : sns.publish(r -> r.topicArn(target).message(id)).messageId();
            case "events" -> events.putEvents(r -> r.entries(PutEventsRequestEntry.builder().source("shop")
                    .detailType("order").detail("{\"id\":\"" + id + "\"}")
                    .eventBusName(target.isEmpty() ? null : target).build())).failedEntryCount();
            case "kinesis" -> op.equals("batch")
                    ? kinesis.putRecords(r -> r.streamName(target).records(PutRecordsRequestEntry.builder()
                            .partitionKey(id).data(SdkBytes.fromUtf8String(id)).build())).failedRecordCount()
                    : kinesis.putRecord(r -> r.streamName(target).partitionKey(id)
                            .data(SdkBytes.fromUtf8String(id))).sequenceNumber();
            default -> "unknown service";
        };
    }

    private Object sqs(String op, String queue, String id) {
        String url = sqs.getQueueUrl(r -> r.queueName(queue)).queueUrl();
        return op.equals("batch")
                ? sqs.sendMessageBatch(r -> r.queueUrl(url).entries(SendMessageBatchRequestEntry.builder().id(id)
                        .messageBody(id).build())).successful().size()
                : sqs.sendMessage(r -> r.queueUrl(url).messageBody(id)).messageId() != null;
    }

    private Object s3(String op, String bucket, String key, String id) {
        return switch (op) {
            case "put" -> s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromString(id)).eTag() != null;
            case "get" -> s3.getObject(r -> r.bucket(bucket).key(key), ResponseTransformer.toBytes()).asUtf8String();
            case "delete" -> s3.deleteObject(r -> r.bucket(bucket).key(key)).sdkHttpResponse().statusCode();
            case "deletes" -> s3.deleteObjects(r -> r.bucket(bucket).delete(d -> d.objects(
                    ObjectIdentifier.builder().key(key).build()))).deleted().size();
            case "copy" -> s3.copyObject(r -> r.destinationBucket(bucket).destinationKey(key)
                    .sourceBucket(id.substring(0, id.indexOf('/'))).sourceKey(id.substring(id.indexOf('/') + 1)))
                    .copyObjectResult().eTag() != null;
            case "multipart" -> {
                String upload = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId();
                String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(upload).partNumber(1),
                        RequestBody.fromString(id)).eTag();
                yield s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(upload).multipartUpload(
                        m -> m.parts(CompletedPart.builder().partNumber(1).eTag(etag).build()))).eTag() != null;
            }
            default -> "unknown op";
        };
    }
}
