'use strict';
// AWS limits and Distributed Map in sfn-server.cjs, against compressed limits: `npm test`.
// One server runs every state machine below with
//   inline Map concurrency 2, Distributed Map concurrency 3, 60 history events, 2000-byte payloads.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { FN, SM, startServer, stopServer, startFakeLambda, writeConfig, sfnClient, sleep } = require('./support.cjs');

const LIMITS = { inlineMapMaxConcurrency: 2, distributedMapMaxConcurrency: 3, historyEventsPerExecution: 60, statePayloadBytes: 2000 };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'richter-sfn-limits-'));

// Fake Lambda functions; `track` records how many of its calls overlap.
const tracked = { inFlight: 0, max: 0, calls: 0 };
let bigCalls = 0;
const functions = {
  track: async (event) => {
    tracked.calls += 1;
    tracked.max = Math.max(tracked.max, ++tracked.inFlight);
    await sleep(150);
    tracked.inFlight -= 1;
    return event;
  },
  echo: (event) => event,
  countdown: ({ n }) => ({ n: n - 1 }),
  double: ({ value }) => value * 2,
  failOdd: ({ value }) => {
    if (value % 2) throw { errorType: 'Odd', errorMessage: `odd ${value}` };
    return value;
  },
  big: () => { bigCalls += 1; return { blob: 'x'.repeat(3000) }; },
  half: () => ({ blob: 'x'.repeat(1200) }),
};

const distributed = { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } };
const task = (fn, more = {}) => ({ Type: 'Task', Resource: FN + fn, ...more });
/** Count → More? → Pause (Wait 0) → Count …: 9 history events per round (Task 5, Choice 2, Wait 2). */
const countdownLoop = (prefix) => ({
  StartAt: `${prefix}Count`,
  States: {
    [`${prefix}Count`]: task('countdown', { Next: `${prefix}More` }),
    [`${prefix}More`]: { Type: 'Choice', Choices: [{ Variable: '$.n', NumericGreaterThan: 0, Next: `${prefix}Pause` }], Default: `${prefix}Done` },
    [`${prefix}Pause`]: { Type: 'Wait', Seconds: 0, Next: `${prefix}Count` },
    [`${prefix}Done`]: { Type: 'Succeed' },
  },
});

const definitions = {
  inlineFanOut: {
    StartAt: 'Fan',
    States: { Fan: { Type: 'Map', MaxConcurrency: 0, End: true,
      ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'Work', States: { Work: task('track', { End: true }) } } } },
  },
  dmap: {
    StartAt: 'Fan',
    States: { Fan: {
      Type: 'Map', Label: 'Items', ItemsPath: '$.items', MaxConcurrency: 0, ResultPath: '$.results', End: true,
      ItemSelector: { 'value.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index', 'run.$': '$.run' },
      ItemProcessor: { ...distributed, StartAt: 'Work', States: { Work: task('track', { End: true }) } },
    } },
  },
  nested: {
    StartAt: 'Outer',
    States: { Outer: { Type: 'Map', End: true, ItemProcessor: { ...distributed, StartAt: 'Inner', States: {
      Inner: { Type: 'Map', End: true, ItemSelector: { 'value.$': '$$.Map.Item.Value' },
        ItemProcessor: { ...distributed, StartAt: 'Double', States: { Double: task('double', { End: true }) } } },
    } } } },
  },
  strict: {
    StartAt: 'Fan',
    States: { Fan: { Type: 'Map', ToleratedFailureCount: 1, ItemSelector: { 'value.$': '$$.Map.Item.Value' }, End: true,
      ItemProcessor: { ...distributed, StartAt: 'Check', States: { Check: task('failOdd', { End: true }) } } } },
  },
  tolerant: {
    StartAt: 'Fan',
    States: { Fan: { Type: 'Map', ToleratedFailurePercentage: 50, ItemSelector: { 'value.$': '$$.Map.Item.Value' }, End: true,
      ItemProcessor: { ...distributed, StartAt: 'Vet', States: { Vet: task('failOdd', { End: true }) } } } },
  },
  holding: {
    StartAt: 'Fan',
    States: { Fan: { Type: 'Map', End: true,
      ItemProcessor: { ...distributed, StartAt: 'Hold', States: { Hold: { Type: 'Wait', Seconds: 30, End: true } } } } },
  },
  failingParent: {
    StartAt: 'Both',
    States: { Both: { Type: 'Parallel', End: true, Branches: [
      { StartAt: 'Hold', States: { Hold: { Type: 'Map', End: true,
        ItemProcessor: { ...distributed, StartAt: 'Sleep', States: { Sleep: { Type: 'Wait', Seconds: 30, End: true } } } } } },
      { StartAt: 'Later', States: { Later: { Type: 'Wait', Seconds: 1, Next: 'Fail' }, Fail: { Type: 'Fail', Error: 'Plan.Broken', Cause: 'test' } } },
    ] } },
  },
  small: {
    StartAt: 'Echo',
    States: {
      Echo: task('echo', { Next: 'Check' }),
      Check: { Type: 'Choice', Choices: [{ Variable: '$.ok', BooleanEquals: true, Next: 'Done' }], Default: 'Done' },
      Done: { Type: 'Succeed' },
    },
  },
  loop: countdownLoop(''),
  loopInDistributedMap: { StartAt: 'Split', States: { Split: { Type: 'Map', End: true, ItemProcessor: { ...distributed, ...countdownLoop('D') } } } },
  loopInInlineMap: { StartAt: 'Split', States: { Split: { Type: 'Map', End: true, ItemProcessor: countdownLoop('I') } } },
  bigResult: {
    StartAt: 'Big',
    States: {
      Big: task('big', {
        Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 1, MaxAttempts: 2 }],
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }], End: true,
      }),
      Caught: { Type: 'Pass', End: true },
    },
  },
  bigState: {
    StartAt: 'Half',
    States: {
      Half: task('half', { Next: 'Twice' }),
      Twice: { Type: 'Pass', Parameters: { 'a.$': '$', 'b.$': '$' }, End: true },
    },
  },
  outputNull: { StartAt: 'Echo', States: { Echo: task('echo', { OutputPath: null, End: true }) } },
};

let lambda;
let sfn;
let call;
let finished;
let runToEnd;
let history;
const lambdaEnv = () => ({ AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${lambda.address().port}` });

test.before(async () => {
  lambda = await startFakeLambda(functions);
  const configFile = writeConfig(tmp, definitions, { limits: LIMITS });
  sfn = await startServer('sfn-server.cjs', ['--config', configFile, '--port', '0', '--quiet'], lambdaEnv());
  ({ call, finished, runToEnd, history } = sfnClient(sfn.port));
});

test.after(async () => {
  if (sfn) assert.equal(await stopServer(sfn.child), 0, 'sfn-server exits 0 on SIGTERM');
  if (lambda) lambda.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('the effective limits are logged at startup', () => {
  assert.match(sfn.stderr(), /limits: inlineMapMaxConcurrency=2 distributedMapMaxConcurrency=3 historyEventsPerExecution=60 statePayloadBytes=2000/);
});

test('an inline Map with MaxConcurrency 0 runs at most inlineMapMaxConcurrency iterations at once', async () => {
  Object.assign(tracked, { inFlight: 0, max: 0, calls: 0 });
  const done = await runToEnd('inlineFanOut', [1, 2, 3, 4, 5, 6]);
  assert.equal(done.status, 'SUCCEEDED');
  assert.deepEqual(JSON.parse(done.output), [1, 2, 3, 4, 5, 6]);
  assert.equal(tracked.calls, 6);
  assert.equal(tracked.max, 2);
  // 1 + Map (4 + 2 per iteration) + 6 Tasks x 5 + 1: iterations count in the parent.
  assert.equal((await history(done.executionArn)).length, 1 + 4 + 12 + 30 + 1);
});

test('a Distributed Map runs each item as a child execution, at most distributedMapMaxConcurrency at once', async () => {
  Object.assign(tracked, { inFlight: 0, max: 0, calls: 0 });
  const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const done = await runToEnd('dmap', { run: 'r1', items });
  assert.equal(done.status, 'SUCCEEDED', done.cause);
  assert.deepEqual(JSON.parse(done.output).results, items.map((value, index) => ({ value, index, run: 'r1' })));
  assert.equal(tracked.max, 3);

  const events = await history(done.executionArn);
  assert.deepEqual(events.map((e) => e.type), ['ExecutionStarted', 'MapStateEntered', 'MapStateStarted', 'MapRunStarted',
    'MapRunSucceeded', 'MapStateSucceeded', 'MapStateExited', 'ExecutionSucceeded']);
  const mapRunArn = events[3].mapRunStartedEventDetails.mapRunArn;
  assert.match(mapRunArn, /^arn:aws:states:us-east-1:123456789012:mapRun:dmap\/Items:[0-9a-f-]{36}$/);
  assert.deepEqual((await call('ListMapRuns', { executionArn: done.executionArn })).body.mapRuns.map((r) => r.mapRunArn), [mapRunArn]);
  const run = (await call('DescribeMapRun', { mapRunArn })).body;
  assert.equal(run.status, 'SUCCEEDED');
  assert.deepEqual([run.itemCounts.total, run.itemCounts.succeeded, run.executionCounts.failed], [7, 7, 0]);

  const children = (await call('ListExecutions', { mapRunArn })).body.executions;
  assert.equal(children.length, 7);
  for (const child of children) {
    assert.match(child.executionArn, /^arn:aws:states:us-east-1:123456789012:execution:dmap\/Items:[0-9a-f-]{36}$/);
    assert.equal(child.status, 'SUCCEEDED');
    assert.equal(child.mapRunArn, mapRunArn);
    const described = (await call('DescribeExecution', { executionArn: child.executionArn })).body;
    assert.equal(described.stateMachineArn, `${SM}dmap/Items`);
    assert.equal(described.mapRunArn, mapRunArn);
    // Each child has its own history: 1 + Task 5 + 1.
    assert.equal((await history(child.executionArn)).length, 7);
  }
  const parents = (await call('ListExecutions', { stateMachineArn: `${SM}dmap` })).body.executions;
  assert.deepEqual(parents.map((e) => e.executionArn), [done.executionArn]);
});

test('a Distributed Map inside a Distributed Map', async () => {
  const done = await runToEnd('nested', [[1, 2], [3]]);
  assert.equal(done.status, 'SUCCEEDED', done.cause);
  assert.deepEqual(JSON.parse(done.output), [[2, 4], [6]]);
  const [outerRun] = (await call('ListMapRuns', { executionArn: done.executionArn })).body.mapRuns;
  const outerChildren = (await call('ListExecutions', { mapRunArn: outerRun.mapRunArn })).body.executions;
  assert.equal(outerChildren.length, 2);
  assert.match(outerChildren[0].executionArn, /:execution:nested\/Outer:[0-9a-f-]{36}$/);
  const [innerRun] = (await call('ListMapRuns', { executionArn: outerChildren[0].executionArn })).body.mapRuns;
  assert.match(innerRun.mapRunArn, /:mapRun:nested\/Outer\/Inner:[0-9a-f-]{36}$/);
  const innerChildren = (await call('ListExecutions', { mapRunArn: innerRun.mapRunArn })).body.executions;
  assert.ok(innerChildren.length >= 1 && innerChildren.every((e) => /:execution:nested\/Outer\/Inner:/.test(e.executionArn)));
});

test('failed children beyond the tolerance fail the Map with States.ExceedToleratedFailureThreshold', async () => {
  const failed = await runToEnd('strict', [1, 2, 3, 4, 6, 8]);
  assert.equal(failed.status, 'FAILED');
  assert.equal(failed.error, 'States.ExceedToleratedFailureThreshold');
  const [run] = (await call('ListMapRuns', { executionArn: failed.executionArn })).body.mapRuns;
  const described = (await call('DescribeMapRun', { mapRunArn: run.mapRunArn })).body;
  assert.equal(described.status, 'FAILED');
  assert.equal(described.itemCounts.failed, 2);
  assert.ok(described.itemCounts.total > described.executionCounts.succeeded + 2, 'items after the threshold never start');
  assert.ok((await history(failed.executionArn)).some((e) => e.type === 'MapRunFailed'));

  const tolerated = await runToEnd('tolerant', [1, 2, 3, 4]);
  assert.equal(tolerated.status, 'SUCCEEDED', tolerated.cause);
  const [one, two, three, four] = JSON.parse(tolerated.output);
  assert.deepEqual([one.Error, two, three.Error, four], ['Odd', 2, 'Odd', 4]);
  assert.equal(JSON.parse(one.Cause).errorMessage, 'odd 1');
});

test('StopExecution of the parent aborts its running children and the Map Run', async () => {
  const start = await call('StartExecution', { stateMachineArn: `${SM}holding`, input: '[1,2,3,4,5]' });
  let mapRunArn;
  let running = [];
  for (let i = 0; i < 50 && running.length < 3; i++) {
    await sleep(100);
    [{ mapRunArn } = {}] = (await call('ListMapRuns', { executionArn: start.body.executionArn })).body.mapRuns;
    if (mapRunArn) running = (await call('ListExecutions', { mapRunArn, statusFilter: 'RUNNING' })).body.executions;
  }
  assert.equal(running.length, 3, 'three children running (distributedMapMaxConcurrency)');
  await call('StopExecution', { executionArn: start.body.executionArn, error: 'Richter.Abort' });
  assert.equal((await finished(start.body.executionArn)).status, 'ABORTED');
  for (const child of running) assert.equal((await finished(child.executionArn)).status, 'ABORTED');
  await sleep(300);
  const all = (await call('ListExecutions', { mapRunArn })).body.executions;
  assert.deepEqual(all.map((e) => e.status), ['ABORTED', 'ABORTED', 'ABORTED'], 'no further child starts');
  assert.equal((await call('DescribeMapRun', { mapRunArn })).body.status, 'ABORTED');
  const childEvents = await history(running[0].executionArn);
  assert.equal(childEvents.at(-1).type, 'ExecutionAborted');
});

test('a parent that fails aborts its running children', async () => {
  const failed = await runToEnd('failingParent', [1, 2]);
  assert.deepEqual([failed.status, failed.error], ['FAILED', 'Plan.Broken']);
  const [run] = (await call('ListMapRuns', { executionArn: failed.executionArn })).body.mapRuns;
  const children = (await call('ListExecutions', { mapRunArn: run.mapRunArn })).body.executions;
  assert.deepEqual(children.map((e) => e.status), ['ABORTED', 'ABORTED']);
  assert.equal((await call('DescribeMapRun', { mapRunArn: run.mapRunArn })).body.status, 'ABORTED');
});

test('GetExecutionHistory of Task + Choice + Succeed has the 11 events AWS writes', async () => {
  const done = await runToEnd('small', { ok: true });
  const events = await history(done.executionArn);
  assert.deepEqual(events.map((e) => e.type), [
    'ExecutionStarted',
    'TaskStateEntered', 'LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionSucceeded', 'TaskStateExited',
    'ChoiceStateEntered', 'ChoiceStateExited',
    'SucceedStateEntered', 'SucceedStateExited',
    'ExecutionSucceeded',
  ]);
  assert.equal(events[1].stateEnteredEventDetails.name, 'Echo');
  assert.equal(events[2].lambdaFunctionScheduledEventDetails.resource, `${FN}echo`);
  const page1 = (await call('GetExecutionHistory', { executionArn: done.executionArn, maxResults: 4, reverseOrder: true })).body;
  assert.deepEqual(page1.events.map((e) => e.id), [11, 10, 9, 8]);
  const page2 = (await call('GetExecutionHistory', { executionArn: done.executionArn, maxResults: 4, reverseOrder: true, nextToken: page1.nextToken })).body;
  assert.deepEqual(page2.events.map((e) => e.id), [7, 6, 5, 4]);
});

test('an execution whose history would exceed the quota fails with States.Runtime', async () => {
  // 1 + 10 rounds x 9 - 2 + Succeed 2 + 1 = 92 events > 60.
  const failed = await runToEnd('loop', { n: 10 });
  assert.deepEqual([failed.status, failed.error], ['FAILED', 'States.Runtime']);
  assert.match(failed.cause, /execution history exceeded the quota of 60 events \(Step Functions service quotas: 25,000 history events per execution\)/);
  const events = await history(failed.executionArn);
  assert.equal(events.length, 60);
  assert.equal(events.at(-1).type, 'ExecutionFailed');
  assert.equal(events.at(-1).executionFailedEventDetails.error, 'States.Runtime');

  // 6 rounds: 1 + 6 x 9 - 2 + 2 + 1 = 56 events fit.
  const fits = await runToEnd('loop', { n: 6 });
  assert.equal(fits.status, 'SUCCEEDED');
  assert.equal((await history(fits.executionArn)).length, 56);
});

test('the same loop split into Distributed Map children succeeds: each child has its own history', async () => {
  const done = await runToEnd('loopInDistributedMap', [{ n: 4 }, { n: 3 }, { n: 3 }]);
  assert.equal(done.status, 'SUCCEEDED', done.cause);
  assert.equal((await history(done.executionArn)).length, 8); // 1 + Distributed Map 6 + 1
  const [run] = (await call('ListMapRuns', { executionArn: done.executionArn })).body.mapRuns;
  const children = (await call('ListExecutions', { mapRunArn: run.mapRunArn })).body.executions;
  const lengths = await Promise.all(children.map(async (child) => (await history(child.executionArn)).length));
  assert.deepEqual(lengths.sort(), [29, 29, 38]); // 1 + 9n - 2 + 2 + 1

  // Inline, the iterations count in the parent: 1 + 4 + 6 + 36 + 27 + 27 + 1 = 102 > 60.
  const inline = await runToEnd('loopInInlineMap', [{ n: 4 }, { n: 3 }, { n: 3 }]);
  assert.deepEqual([inline.status, inline.error], ['FAILED', 'States.Runtime']);
  assert.equal((await history(inline.executionArn)).length, 60);
});

test('a Lambda result over the payload limit fails with States.DataLimitExceeded despite Retry and Catch', async () => {
  bigCalls = 0;
  const failed = await runToEnd('bigResult', {});
  assert.deepEqual([failed.status, failed.error], ['FAILED', 'States.DataLimitExceeded']);
  assert.match(failed.cause, /returned a result with a size exceeding the maximum number of bytes service limit/);
  assert.equal(bigCalls, 1, 'not retried');
});

test('a state output over the payload limit fails with States.DataLimitExceeded', async () => {
  const failed = await runToEnd('bigState', {});
  assert.deepEqual([failed.status, failed.error], ['FAILED', 'States.DataLimitExceeded']);
  assert.match(failed.cause, /'Twice' returned a result/);
});

test('StartExecution input over the payload limit is a ValidationException', async () => {
  const res = await call('StartExecution', { stateMachineArn: `${SM}small`, input: JSON.stringify({ blob: 'x'.repeat(2000) }) });
  assert.equal(res.status, 400);
  assert.equal(res.body.__type, 'ValidationException');
  assert.match(res.body.message, /Member must have size less than or equal to 2000 bytes in UTF-8 encoding/);
});

test('"OutputPath": null gives {}', async () => {
  const done = await runToEnd('outputNull', { keep: 'nothing' });
  assert.equal(done.status, 'SUCCEEDED');
  assert.deepEqual(JSON.parse(done.output), {});
});

test('unsupported Map fields and bad limits stop the server at startup, naming the state', async () => {
  const processor = (config) => ({ ...config, StartAt: 'P', States: { P: { Type: 'Pass', End: true } } });
  const cases = [
    [{ Type: 'Map', ItemReader: { Resource: 'arn:aws:states:::s3:getObject', Parameters: {} }, ItemProcessor: processor(distributed), End: true },
      /Map state 'Fan': ItemReader is not supported/],
    [{ Type: 'Map', ResultWriter: { Resource: 'arn:aws:states:::s3:putObject', Parameters: {} }, ItemProcessor: processor(distributed), End: true },
      /Map state 'Fan': ResultWriter is not supported/],
    [{ Type: 'Map', ItemBatcher: { MaxItemsPerBatch: 2 }, ItemProcessor: processor(distributed), End: true },
      /Map state 'Fan': ItemBatcher is not supported/],
    [{ Type: 'Map', ItemProcessor: processor({ ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'EXPRESS' } }), End: true },
      /Map state 'Fan': ItemProcessor.ProcessorConfig.ExecutionType must be "STANDARD"/],
    [{ Type: 'Map', MaxConcurrencyPath: '$.n', ItemProcessor: processor({}), End: true },
      /Map state 'Fan': MaxConcurrencyPath is not supported/],
  ];
  for (const [i, [state, message]] of cases.entries()) {
    const dir = fs.mkdtempSync(path.join(tmp, `bad-${i}-`));
    const configFile = writeConfig(dir, { bad: { StartAt: 'Fan', States: { Fan: state } } });
    await assert.rejects(startServer('sfn-server.cjs', ['--config', configFile, '--port', '0'], lambdaEnv()), message);
  }
  const configFile = writeConfig(fs.mkdtempSync(path.join(tmp, 'limits-')), { small: definitions.small }, { limits: { historyEvents: 10 } });
  await assert.rejects(startServer('sfn-server.cjs', ['--config', configFile, '--port', '0'], lambdaEnv()), /unknown limit "historyEvents"/);
  const tooHigh = writeConfig(fs.mkdtempSync(path.join(tmp, 'limits-')), { small: definitions.small }, { limits: { inlineMapMaxConcurrency: 41 } });
  await assert.rejects(startServer('sfn-server.cjs', ['--config', tooHigh, '--port', '0'], lambdaEnv()), /from 1 to AWS's 40/);
});
