package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Least privilege both ways: recorded calls the template refuses, and granted actions no recorded call used. */
class LeastPrivilegeTest {
    static final String TABLE = "arn:aws:dynamodb:us-east-1:" + SamTemplate.ACCOUNT + ":table/";

    @Test
    void callsTheTemplateRefusesAreMissingAndGrantsNoCallUsedAreUnused(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("template.yaml"), """
                Resources:
                  Fn:
                    Type: AWS::Serverless::Function
                    Properties:
                      Handler: x.Y::handleRequest
                      Policies:
                        - DynamoDBReadPolicy: {TableName: {Ref: OrdersTable}}
                        - Statement:
                            - Effect: Allow
                              Action: [xray:GetTraceSummaries]
                              Resource: "*"
                  OrdersTable:
                    Type: AWS::DynamoDB::Table
                    Properties: {}
                """);
        Files.writeString(dir.resolve("calls.jsonl"), String.join("\n",
                "{\"principal\":\"Fn\",\"action\":\"dynamodb:Query\",\"resource\":\"" + TABLE + "richter-orders/index/byTeam\",\"decision\":\"ALLOWED\"}",
                "{\"principal\":\"Fn\",\"action\":\"dynamodb:GetItem\",\"resource\":\"" + TABLE + "richter-orders\",\"decision\":\"ALLOWED\"}",
                // recorded as allowed under a test's edited template: the template given here decides
                "{\"principal\":\"Fn\",\"action\":\"dynamodb:PutItem\",\"resource\":\"" + TABLE + "richter-orders\",\"decision\":\"ALLOWED\"}",
                "{\"principal\":\"Fn\",\"action\":\"dynamodb:GetItem\",\"resource\":\"" + TABLE + "richter-orders\",\"decision\":\"ALLOWED\"}",
                ""));
        List<LeastPrivilege.Call> calls = LeastPrivilege.read(dir.resolve("calls.jsonl"));
        assertEquals(3, calls.size(), "a call recorded twice counts once");
        LeastPrivilege.Comparison c = LeastPrivilege.compare(IamPolicies.of(SamTemplate.load(dir)), calls);
        assertEquals(List.of(new LeastPrivilege.Call("Fn", "dynamodb:PutItem", TABLE + "richter-orders")), c.missing());
        assertEquals(2, c.unused().size(), c.unused().toString());
        LeastPrivilege.Unused read = c.unused().get(0);
        assertEquals("Fn.Policies[0] DynamoDBReadPolicy", read.source());
        assertEquals(Set.of("dynamodb:GetItem", "dynamodb:Query"), read.used());
        assertEquals(Set.of("dynamodb:Scan", "dynamodb:BatchGetItem", "dynamodb:DescribeTable"), read.unused());
        assertEquals(Set.of(), c.unused().get(1).used(), "the X-Ray statement: nothing used");
        String report = LeastPrivilege.report(c, calls.size());
        assertTrue(report.contains("MISSING Fn dynamodb:PutItem on " + TABLE + "richter-orders"), report);
        assertTrue(report.contains("Fn.Policies[1].Statement[0] on [*]: NOTHING used"), report);
        assertTrue(report.contains("name the code path that uses them): 1\n  UNUSED Fn.Policies[1].Statement[0] on [*]\n"), report);
    }
}
