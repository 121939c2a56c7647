'use strict';
// Creates every AWS::DynamoDB::Table of template.yaml in the DynamoDB at <endpoint>, named as TableNames' defaults:
// RunMetricsTable -> richter-run-metrics. Usage: node tables.cjs <template.yaml> <endpoint>. Exits 1 on a refusal.
const fs = require('node:fs');
const path = require('node:path');
const YAML = require(path.join(__dirname, '../../local/node/node_modules/yaml'));

const [templateFile, endpoint] = process.argv.slice(2);
const tags = ['Ref', 'GetAtt', 'Sub', 'If', 'Equals', 'Not', 'Join', 'Select', 'Split', 'FindInMap', 'ImportValue']
  .flatMap((t) => ['scalar', 'seq', 'map'].map((k) => ({ tag: `!${t}`, collection: k === 'scalar' ? undefined : k, resolve: (v) => v })));
const template = YAML.parse(fs.readFileSync(templateFile, 'utf8'), { customTags: tags });

async function main() {
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::DynamoDB::Table') continue;
    const name = 'richter-' + id.replace(/Table$/, '').replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
    const p = r.Properties;
    const body = { TableName: name, AttributeDefinitions: p.AttributeDefinitions, KeySchema: p.KeySchema, BillingMode: 'PAY_PER_REQUEST' };
    if (p.GlobalSecondaryIndexes) body.GlobalSecondaryIndexes = p.GlobalSecondaryIndexes;
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.CreateTable',
        'x-amz-date': '20260101T000000Z',
        authorization: 'AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      console.error(`CreateTable ${name}: ${res.status} ${await res.text()}`);
      process.exit(1);
    }
  }
}
main();
