'use strict';
// Faults on demand in the Node half of the local stack: `npm test`.
// dynalite.cjs's control endpoint and injected DynamoDB errors; sfn-server.cjs turning a throttled Lambda Invoke
// (HTTP 429 TooManyRequestsException) into the Task error Lambda.TooManyRequestsException that ASL Retry matches.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { FN, SM, startServer, stopServer, writeConfig, sfnClient } = require('./support.cjs');
const { unit } = require('../faults.cjs');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'richter-faults-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('unit() gives the numbers LocalFaults.unit gives in Java (LocalFaultsTest.UNIT_7_DDB)', () => {
  const key = 'dynamodb.richter-t.PutItem';
  assert.deepEqual([unit('7', key, 1), unit(7n, key, 2), unit('7', key, 3), unit('-3', key, 4)].map((x) => x.toFixed(9)),
    ['0.207472726', '0.185862187', '0.672568766', '0.447717699']);
});

test('dynalite injects armed faults, counts them, logs them to --faults-log and passes the rest', { timeout: 20000 }, async () => {
  const log = path.join(tmp, 'faults.jsonl');
  const dynamo = await startServer('dynalite.cjs', ['--port', '0', '--faults-log', log], {});
  const ddb = (op, body) => dynamoCall(dynamo.port, op, body);
  try {
    assert.equal((await ddb('CreateTable', table('tab1'))).status, 200);
    assert.equal((await ddb('CreateTable', table('tab2'))).status, 200);
    assert.deepEqual((await control(dynamo.port, 'GET')).body, { seed: '0', rules: [] });

    const armed = await control(dynamo.port, 'POST', {
      seed: '7',
      rules: [
        { key: 'dynamodb.T1.PutItem', table: 'tab1', operation: 'PutItem', kind: 'throttle', trigger: { from: 2 } },
        { key: 'dynamodb.*.GetItem', table: '*', operation: 'GetItem', kind: 'internal', trigger: { nth: 1 } },
        { key: 'dynamodb.tab2.BatchWriteItem', table: 'tab2', operation: 'BatchWriteItem', kind: 'throttle', trigger: { every: true } },
      ],
    });
    assert.equal(armed.status, 200);

    assert.equal((await ddb('PutItem', item('tab1', 'a'))).status, 200, 'from:2 lets the first through');
    const throttled = await ddb('PutItem', item('tab1', 'b'));
    assert.equal(throttled.status, 400);
    assert.deepEqual(await throttled.json(), {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
    });
    assert.equal((await ddb('PutItem', item('tab2', 'a'))).status, 200, 'another table');
    const internal = await ddb('GetItem', { TableName: 'tab2', Key: { id: { S: 'a' } } });
    assert.equal(internal.status, 500);
    assert.deepEqual(await internal.json(), { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' });
    const got = await ddb('GetItem', { TableName: 'tab2', Key: { id: { S: 'a' } } });
    assert.deepEqual([got.status, (await got.json()).Item], [200, { id: { S: 'a' } }], 'nth:1 fired once; the put went through');
    const batch = await ddb('BatchWriteItem', { RequestItems: { tab1: [{ PutRequest: { Item: { id: { S: 'z' } } } }],
      tab2: [{ PutRequest: { Item: { id: { S: 'z' } } } }] } });
    assert.equal(batch.status, 400, 'a batch naming a faulted table');

    const state = (await control(dynamo.port, 'GET')).body;
    assert.deepEqual(state.rules.map((r) => [r.key, r.seen, r.fired]),
      [['dynamodb.T1.PutItem', 2, 1], ['dynamodb.*.GetItem', 2, 1], ['dynamodb.tab2.BatchWriteItem', 1, 1]]);
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map(({ component, target, operation, kind, n, rule }) => ({ component, target, operation, kind, n, rule })), [
      { component: 'dynamodb', target: 'tab1', operation: 'PutItem', kind: 'throttle', n: 1, rule: 'dynamodb.T1.PutItem' },
      { component: 'dynamodb', target: 'tab2', operation: 'GetItem', kind: 'internal', n: 1, rule: 'dynamodb.*.GetItem' },
      { component: 'dynamodb', target: 'tab2', operation: 'BatchWriteItem', kind: 'throttle', n: 1, rule: 'dynamodb.tab2.BatchWriteItem' },
    ]);
    assert.ok(lines.every((l) => typeof l.atMs === 'number' && l.atMs > 1.7e12));
    assert.match(dynamo.stderr(), /dynalite: FAULT injected: dynamodb tab1 PutItem throttle \(rule dynamodb\.T1\.PutItem, n=1\)/);

    const bad = await control(dynamo.port, 'POST', { rules: [{ key: 'k', table: 'tab1', operation: 'PutItem', kind: 'explode', trigger: { every: true } }] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /rule k: kind must be throttle or internal/);
    assert.equal((await control(dynamo.port, 'GET')).body.rules.length, 3, 'a refused config changes nothing');

    assert.equal((await control(dynamo.port, 'POST', { seed: '0', rules: [] })).status, 200);
    assert.equal((await ddb('PutItem', item('tab1', 'c'))).status, 200, 'cleared');
  } finally {
    assert.equal(await stopServer(dynamo.child), 0);
  }
});

test('a throttled Invoke fails the Task with Lambda.TooManyRequestsException, which Retry matches', { timeout: 20000 }, async () => {
  let calls = 0;
  const lambda = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls += 1;
      if (calls % 2 === 1) {
        res.writeHead(429, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'TooManyRequestsException' })
          .end(JSON.stringify({ Type: 'User', message: 'Rate Exceeded.', Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' }));
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: calls }));
      }
    });
  });
  await new Promise((resolve) => lambda.listen(0, '127.0.0.1', resolve));
  const retried = { StartAt: 'T', States: { T: { Type: 'Task', Resource: `${FN}fn`, End: true,
    Retry: [{ ErrorEquals: ['Lambda.TooManyRequestsException'], IntervalSeconds: 1, MaxAttempts: 2, BackoffRate: 1 }] } } };
  const bare = { StartAt: 'T', States: { T: { Type: 'Task', Resource: `${FN}fn`, End: true } } };
  const config = writeConfig(tmp, { retried, bare });
  const sfn = await startServer('sfn-server.cjs', ['--config', config, '--port', '0', '--quiet'],
    { AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${lambda.address().port}` });
  try {
    const { runToEnd } = sfnClient(sfn.port);
    const ok = await runToEnd('retried', {});
    assert.deepEqual([ok.status, JSON.parse(ok.output)], ['SUCCEEDED', { ok: 2 }]);
    const failed = await runToEnd('bare', {});
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.error, 'Lambda.TooManyRequestsException');
    assert.match(failed.cause, /Rate Exceeded\./);
  } finally {
    assert.equal(await stopServer(sfn.child), 0);
    lambda.close();
  }
});

// ---- helpers ----------------------------------------------------------------------------

function table(name) {
  return { TableName: name, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' };
}

function item(tableName, id) {
  return { TableName: tableName, Item: { id: { S: id } } };
}

/** A DynamoDB call against dynalite (SigV4-shaped headers; dynalite does not check the signature). */
function dynamoCall(port, op, body) {
  return fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDB_20120810.${op}`,
      'X-Amz-Date': '20260101T000000Z',
      Authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
    },
    body: JSON.stringify(body),
  });
}

async function control(port, method, body) {
  const res = await fetch(`http://127.0.0.1:${port}/__richter/faults`, {
    method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
