'use strict';
// Smoke test of the local stack's Node half: `npm test` (node's test runner).
// Starts dynalite.cjs and sfn-server.cjs as child processes against an in-process fake Lambda
// Invoke API, runs real ASL through the Step Functions API, and checks validate-asl.cjs.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { HERE, FN, SM, startServer, stopServer, startFakeLambda, writeConfig, sfnClient } = require('./support.cjs');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'richter-local-node-'));

// Fake Lambda functions: name -> input => result; a thrown object is a function error payload.
let flakyCalls = 0;
const functions = {
  classify: (e) => ({ kind: e.items.length > 2 ? 'big' : 'small', items: e.items }),
  double: (e) => ({ n: e.n * 2, worker: e.worker }),
  boom: () => { throw { errorType: 'java.lang.IllegalStateException', errorMessage: 'boom' }; },
  flaky: () => { if (++flakyCalls < 3) throw { errorType: 'FlakyError', errorMessage: 'again' }; return { attempts: flakyCalls }; },
  enrich: () => 'world',
  slow: () => new Promise((resolve) => setTimeout(() => resolve('late'), 3000)),
};

// Task -> Choice -> Map (inline, MaxConcurrency) -> Parallel (Catch, Retry) -> Wait -> Succeed.
const flow = {
  StartAt: 'Classify',
  States: {
    Classify: { Type: 'Task', Resource: `${FN}classify`, Next: 'IsBig' },
    IsBig: { Type: 'Choice', Choices: [{ Variable: '$.kind', StringEquals: 'big', Next: 'Workers' }], Default: 'TooSmall' },
    TooSmall: { Type: 'Fail', Error: 'Plan.TooSmall', Cause: 'fewer than 3 items' },
    Workers: {
      Type: 'Map', ItemsPath: '$.items', MaxConcurrency: 2, ResultPath: '$.doubled', Next: 'Both',
      ItemSelector: { 'n.$': '$$.Map.Item.Value', 'worker.$': '$$.Map.Item.Index' },
      ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'Double', States: { Double: { Type: 'Task', Resource: `${FN}double`, End: true } } },
    },
    Both: {
      Type: 'Parallel', ResultPath: '$.parallel', Next: 'Pause',
      Branches: [
        { StartAt: 'Boom', States: {
          Boom: { Type: 'Task', Resource: `${FN}boom`, Catch: [{ ErrorEquals: ['States.TaskFailed'], Next: 'Recovered' }], End: true },
          Recovered: { Type: 'Pass', End: true } } },
        { StartAt: 'Flaky', States: {
          Flaky: { Type: 'Task', Resource: `${FN}flaky`, Retry: [{ ErrorEquals: ['FlakyError'], IntervalSeconds: 1, BackoffRate: 1, MaxAttempts: 3 }], End: true } } },
        { StartAt: 'Ids', States: { Ids: { Type: 'Pass', Parameters: { 'name.$': '$$.Execution.Name' }, End: true } } },
      ],
    },
    Pause: { Type: 'Wait', Seconds: 1, Next: 'Done' },
    Done: { Type: 'Succeed' },
  },
};
const definitions = {
  flow,
  uncaught: { StartAt: 'Boom', States: { Boom: { Type: 'Task', Resource: `${FN}boom`, End: true } } },
  // localstack/localstack#1854: a scalar result under ResultPath $.value_two.
  resultpath: { StartAt: 'Enrich', States: { Enrich: { Type: 'Task', Resource: '${EnrichArn}', ResultPath: '$.value_two', End: true } } },
  slow: { StartAt: 'Slow', States: { Slow: { Type: 'Task', Resource: `${FN}slow`, Next: 'After' }, After: { Type: 'Wait', Seconds: 30, End: true } } },
};

let lambda;
let sfn;
let call;
let finished;
let history;

test.before(async () => {
  lambda = await startFakeLambda(functions);
  const configFile = writeConfig(tmp, definitions, {}, { EnrichArn: `${FN}enrich` });
  sfn = await startServer('sfn-server.cjs', ['--config', configFile, '--port', '0', '--quiet'],
    { AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${lambda.address().port}` });
  ({ call, finished, history } = sfnClient(sfn.port));
});

test.after(async () => {
  if (sfn) assert.equal(await stopServer(sfn.child), 0, 'sfn-server exits 0 on SIGTERM');
  if (lambda) lambda.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('Task, Choice, Map, Parallel with Catch and Retry, Wait, Succeed', async () => {
  const start = await call('StartExecution', { stateMachineArn: `${SM}flow`, name: 'run-1', input: '{"items":[1,2,3]}' });
  assert.equal(start.status, 200);
  assert.equal(typeof start.body.startDate, 'number');
  const done = await finished(start.body.executionArn);
  assert.equal(done.status, 'SUCCEEDED');
  assert.equal(typeof done.stopDate, 'number');
  const output = JSON.parse(done.output);
  assert.deepEqual(output.doubled, [{ n: 2, worker: 0 }, { n: 4, worker: 1 }, { n: 6, worker: 2 }]);
  const [caught, retried, ids] = output.parallel;
  assert.equal(caught.Error, 'java.lang.IllegalStateException');
  assert.deepEqual(JSON.parse(caught.Cause), { errorType: 'java.lang.IllegalStateException', errorMessage: 'boom' });
  assert.deepEqual(retried, { attempts: 3 });
  assert.deepEqual(ids, { name: 'run-1' });
  // The history AWS writes: 1 + Classify 5 + IsBig 2 + Workers (4 + 2 per item + 3 Tasks x 5) +
  // Both (4 + Boom 5 + Recovered 2 + Flaky 5 + 2 retries x 3 + Ids 2) + Pause 2 + Done 2 + 1 = 62.
  const events = await history(start.body.executionArn);
  assert.equal(events.length, 62);
  assert.deepEqual(events.map((e) => e.id), events.map((_, i) => i + 1));
  assert.deepEqual([events[0].type, events[61].type], ['ExecutionStarted', 'ExecutionSucceeded']);
  const count = (type) => events.filter((e) => e.type === type).length;
  assert.equal(count('LambdaFunctionScheduled'), 1 + 3 + 1 + 3);
  assert.equal(count('LambdaFunctionFailed'), 1 + 2);
  assert.equal(count('MapIterationSucceeded'), 3);

  const again = await call('StartExecution', { stateMachineArn: `${SM}flow`, name: 'run-1', input: '{}' });
  assert.equal(again.status, 400);
  assert.equal(again.body.__type, 'ExecutionAlreadyExists');
});

test('a Fail state and an uncaught function error fail the execution', async () => {
  const small = await call('StartExecution', { stateMachineArn: `${SM}flow`, input: '{"items":[1]}' });
  const failed = await finished(small.body.executionArn);
  assert.deepEqual([failed.status, failed.error, failed.cause], ['FAILED', 'Plan.TooSmall', 'fewer than 3 items']);

  const boom = await call('StartExecution', { stateMachineArn: `${SM}uncaught` });
  const boomed = await finished(boom.body.executionArn);
  assert.equal(boomed.status, 'FAILED');
  assert.equal(boomed.error, 'java.lang.IllegalStateException');
  assert.equal(JSON.parse(boomed.cause).errorMessage, 'boom');
});

test('a scalar Task result under ResultPath (localstack#1854)', async () => {
  const start = await call('StartExecution', { stateMachineArn: `${SM}resultpath`, input: '{"value_one":"hello"}' });
  const done = await finished(start.body.executionArn);
  assert.deepEqual(JSON.parse(done.output), { value_one: 'hello', value_two: 'world' });
});

test('StopExecution aborts; ListExecutions filters by status', async () => {
  const start = await call('StartExecution', { stateMachineArn: `${SM}slow`, name: 'to-stop' });
  const stop = await call('StopExecution', { executionArn: start.body.executionArn, error: 'Richter.Abort', cause: 'user' });
  assert.equal(stop.status, 200);
  const described = (await call('DescribeExecution', { executionArn: start.body.executionArn })).body;
  assert.deepEqual([described.status, described.error, described.stopDate], ['ABORTED', 'Richter.Abort', stop.body.stopDate]);
  const list = await call('ListExecutions', { stateMachineArn: `${SM}slow`, statusFilter: 'ABORTED' });
  assert.deepEqual(list.body.executions.map((e) => e.name), ['to-stop']);
});

test('unknown ARNs and operations answer AWS JSON errors', async () => {
  const cases = [
    ['DescribeExecution', { executionArn: 'arn:aws:states:us-east-1:123456789012:execution:flow:nope' }, 'ExecutionDoesNotExist'],
    ['StartExecution', { stateMachineArn: `${SM}nope` }, 'StateMachineDoesNotExist'],
    ['StartExecution', { stateMachineArn: `${SM}flow`, input: 'not json' }, 'InvalidExecutionInput'],
    ['CreateStateMachine', {}, 'UnknownOperationException'],
  ];
  for (const [op, body, type] of cases) {
    const res = await call(op, body);
    assert.equal(res.status, 400, op);
    assert.equal(res.body.__type, type, op);
    assert.equal(typeof res.body.message, 'string', op);
  }
});

test('dynalite serves DynamoDB and exits 0 on SIGTERM', async () => {
  const dynamo = await startServer('dynalite.cjs', ['--port', '0'], {});
  try {
    const res = await listTables(dynamo.port);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { TableNames: [] });
  } finally {
    assert.equal(await stopServer(dynamo.child), 0);
  }
});

test('dynalite survives a client that drops its connection mid-request', { timeout: 15000 }, async () => {
  const dynamo = await startServer('dynalite.cjs', ['--port', '0'], {});
  try {
    // A request that announces a body and is reset before sending it (an interrupted SDK call).
    await new Promise((resolve) => {
      const sock = require('node:net').connect(dynamo.port, '127.0.0.1', () => {
        sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n'
          + 'X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 1000\r\n\r\n{"Li');
        setTimeout(() => { sock.resetAndDestroy(); resolve(); }, 100);
      });
      sock.on('error', () => {});
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await listTables(dynamo.port);
    assert.equal(res.status, 200, 'dynalite still answers after the dropped connection');
  } finally {
    assert.equal(await stopServer(dynamo.child), 0);
  }
});

test('validate-asl accepts valid ASL and rejects invalid ASL', () => {
  const valid = path.join(tmp, 'flow.asl.json');
  const invalid = path.join(tmp, 'invalid.asl.json');
  fs.writeFileSync(invalid, JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Next: 'Missing' } } }));
  const ok = spawnSync(process.execPath, ['validate-asl.cjs', valid], { cwd: HERE, encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  const bad = spawnSync(process.execPath, ['validate-asl.cjs', valid, invalid], { cwd: HERE, encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stdout, /INVALID .*invalid\.asl\.json\n {2}MISSING_TRANSITION_TARGET/);
});

// ---- helpers ----------------------------------------------------------------------------

/** DynamoDB ListTables against dynalite (which wants SigV4-shaped headers but does not check the signature). */
function listTables(port) {
  return fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': 'DynamoDB_20120810.ListTables',
      'X-Amz-Date': '20260101T000000Z',
      Authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
    },
    body: '{}',
  });
}
