package dev.richter.local;

import java.util.List;
import java.util.Map;

/**
 * The SAM policy templates {@code template.yaml} uses, expanded to the IAM statements SAM writes into a function's or
 * state machine's role. Transcribed from SAM's published definitions,
 * {@code samtranslator/policy_templates_data/policy_templates.json} of github.com/aws/serverless-application-model
 * (commit 7000d0a3b0e5e0d9fca014ce135850718aad1290, May 2026): each template's {@code Definition.Statement}, with its
 * {@code Fn::Sub} ARNs written as text where {@code ${Param}} is the template's parameter ({@code TableName},
 * {@code BucketName}, ...) and {@code ${AWS::Partition}}, {@code ${AWS::Region}}, {@code ${AWS::AccountId}} are the
 * pseudo parameters.
 */
final class SamPolicyTemplates {
    private SamPolicyTemplates() {}

    /** One statement of a template: an {@code Allow} of {@code actions} on {@code resources} (ARN patterns). */
    record TemplateStatement(List<String> actions, List<String> resources) {}

    /** One policy template: its parameter names and statements. */
    record PolicyTemplate(List<String> parameters, List<TemplateStatement> statements) {}

    private static final String DDB_TABLE = "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${TableName}";
    private static final String S3_BUCKET = "arn:${AWS::Partition}:s3:::${BucketName}";
    private static final String KMS_KEY = "arn:${AWS::Partition}:kms:${AWS::Region}:${AWS::AccountId}:key/${KeyId}";

    /** Template name → definition. */
    static final Map<String, PolicyTemplate> ALL = Map.of(
            "DynamoDBCrudPolicy", new PolicyTemplate(List.of("TableName"), List.of(new TemplateStatement(
                    List.of("dynamodb:GetItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:Scan", "dynamodb:Query",
                            "dynamodb:UpdateItem", "dynamodb:BatchWriteItem", "dynamodb:BatchGetItem", "dynamodb:DescribeTable",
                            "dynamodb:ConditionCheckItem"),
                    List.of(DDB_TABLE, DDB_TABLE + "/index/*")))),
            "DynamoDBReadPolicy", new PolicyTemplate(List.of("TableName"), List.of(new TemplateStatement(
                    List.of("dynamodb:GetItem", "dynamodb:Scan", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:DescribeTable"),
                    List.of(DDB_TABLE, DDB_TABLE + "/index/*")))),
            "DynamoDBWritePolicy", new PolicyTemplate(List.of("TableName"), List.of(new TemplateStatement(
                    List.of("dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:BatchWriteItem"),
                    List.of(DDB_TABLE, DDB_TABLE + "/index/*")))),
            "LambdaInvokePolicy", new PolicyTemplate(List.of("FunctionName"), List.of(new TemplateStatement(
                    List.of("lambda:InvokeFunction"),
                    List.of("arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${FunctionName}*")))),
            "EventBridgePutEventsPolicy", new PolicyTemplate(List.of("EventBusName"), List.of(new TemplateStatement(
                    List.of("events:PutEvents"),
                    List.of("arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/${EventBusName}")))),
            "StepFunctionsExecutionPolicy", new PolicyTemplate(List.of("StateMachineName"), List.of(new TemplateStatement(
                    List.of("states:StartExecution"),
                    List.of("arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:${StateMachineName}")))),
            "S3ReadPolicy", new PolicyTemplate(List.of("BucketName"), List.of(new TemplateStatement(
                    List.of("s3:GetObject", "s3:ListBucket", "s3:GetBucketLocation", "s3:GetObjectVersion", "s3:GetLifecycleConfiguration"),
                    List.of(S3_BUCKET, S3_BUCKET + "/*")))),
            "S3WritePolicy", new PolicyTemplate(List.of("BucketName"), List.of(new TemplateStatement(
                    List.of("s3:PutObject", "s3:PutObjectAcl", "s3:PutLifecycleConfiguration"),
                    List.of(S3_BUCKET, S3_BUCKET + "/*")))),
            // KeyId must be a key id, not an alias (SAM: "Gives permission to decrypt/encrypt with KMS Key")
            "KMSDecryptPolicy", new PolicyTemplate(List.of("KeyId"), List.of(new TemplateStatement(
                    List.of("kms:Decrypt"), List.of(KMS_KEY)))),
            "KMSEncryptPolicy", new PolicyTemplate(List.of("KeyId"), List.of(new TemplateStatement(
                    List.of("kms:Encrypt"), List.of(KMS_KEY)))));
}
