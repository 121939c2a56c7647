'use strict';
// IAM in sfn-server.cjs (`npm test`): a state machine with a "principal" sends it with every Task
// invoke and asks the Lambda host (POST /richter-local/iam/check) before a Distributed Map starts
// child executions. The fake Lambda host here stands for the Java one: it refuses what `denied` lists,
// with the answers the Java host gives (403 AccessDeniedException; {denied: message}).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { FN, SM, startServer, stopServer, sfnClient } = require('./support.cjs');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'richter-sfn-iam-'));
const denialOf = (action, resource) => `User: arn:aws:sts::123456789012:assumed-role/richter-RunRole/Run is not authorized ` +
  `to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;
/** action + ' ' + resource -> refused; every question asked, in order. */
const denied = new Set();
const questions = [];
const invokes = [];

let lambda;
let sfn;
let client;

test.before(async () => {
  lambda = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/richter-local/iam/check') {
        const q = JSON.parse(body);
        questions.push(q);
        const refused = denied.has(`${q.action} ${q.resource}`);
        return res.writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ denied: refused ? denialOf(q.action, q.resource) : null }));
      }
      const arn = decodeURIComponent(req.url.split('/')[3]);
      invokes.push({ arn, principal: req.headers['x-richter-principal'] });
      if (denied.has(`lambda:InvokeFunction ${arn}`)) {
        return res.writeHead(403, { 'x-amzn-ErrorType': 'AccessDeniedException', 'x-amzn-RequestId': 'req-1' })
          .end(JSON.stringify({ Message: denialOf('lambda:InvokeFunction', arn) }));
      }
      return res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  await new Promise((resolve) => lambda.listen(0, '127.0.0.1', resolve));
  const definitions = {
    Run: { StartAt: 'Fan', States: { Fan: { Type: 'Map', Label: 'Legs', End: true, ItemsPath: '$.items',
      ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' }, StartAt: 'Work',
        States: { Work: { Type: 'Task', Resource: `${FN}Worker`, End: true } } } } } },
    Open: { StartAt: 'Work', States: { Work: { Type: 'Task', Resource: `${FN}Worker`, End: true } } },
    Direct: { StartAt: 'Work', States: { Work: { Type: 'Task', Resource: `${FN}Worker`, End: true } } },
  };
  const stateMachines = Object.entries(definitions).map(([name, definition]) => {
    const definitionFile = path.join(tmp, `${name}.asl.json`);
    fs.writeFileSync(definitionFile, JSON.stringify(definition));
    return { arn: SM + name, definitionFile, ...(name !== 'Open' && { principal: 'Run' }) };
  });
  const config = path.join(tmp, 'sfn.json');
  fs.writeFileSync(config, JSON.stringify({ stateMachines }));
  sfn = await startServer('sfn-server.cjs', ['--config', config, '--port', '0', '--quiet'],
    { AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${lambda.address().port}` });
  client = sfnClient(sfn.port);
});

test.after(async () => {
  if (sfn) await stopServer(sfn.child);
  if (lambda) lambda.close();
});

test('a Distributed Map asks for StartExecution, DescribeExecution and StopExecution, and Tasks carry the principal', async () => {
  denied.clear();
  questions.length = 0;
  invokes.length = 0;
  const out = await client.runToEnd('Run', { items: [1, 2] });
  assert.equal(out.status, 'SUCCEEDED', JSON.stringify(out));
  assert.deepEqual(questions.map((q) => [q.principal, q.action]), [
    ['Run', 'states:StartExecution'], ['Run', 'states:DescribeExecution'], ['Run', 'states:StopExecution']]);
  assert.equal(questions[0].resource, `${SM}Run`, 'StartExecution on the state machine itself');
  assert.match(questions[1].resource, /^arn:aws:states:us-east-1:123456789012:execution:Run\/Legs:[0-9a-f-]+$/);
  assert.deepEqual(invokes.map((i) => i.principal), ['Run', 'Run'], 'child executions invoke under the parent\'s role');
  // a machine without a principal is not checked (the stack always names one)
  questions.length = 0;
  invokes.length = 0;
  assert.equal((await client.runToEnd('Open', {})).status, 'SUCCEEDED');
  assert.deepEqual(questions, []);
  assert.equal(invokes[0].principal, undefined);
});

test('a refused child-execution permission fails the Map Run with AWS\'s message; no child starts', async () => {
  denied.clear();
  denied.add(`states:StartExecution ${SM}Run`);
  invokes.length = 0;
  const out = await client.runToEnd('Run', { items: [1, 2] });
  assert.equal(out.status, 'FAILED');
  assert.equal(out.error, 'States.Runtime');
  assert.equal(out.cause, denialOf('states:StartExecution', `${SM}Run`));
  assert.deepEqual(invokes, []);
  const types = (await client.history(out.executionArn)).map((e) => e.type);
  assert.ok(types.includes('MapRunFailed') && types.includes('MapStateFailed'), types.join(' '));
});

test('a refused invoke fails the Task with Lambda.AWSLambdaException and the denial as its Cause', async () => {
  denied.clear();
  denied.add(`lambda:InvokeFunction ${FN}Worker`);
  const out = await client.runToEnd('Direct', {});
  assert.equal(out.status, 'FAILED');
  assert.equal(out.error, 'Lambda.AWSLambdaException');
  const cause = `${denialOf('lambda:InvokeFunction', `${FN}Worker`)} (Service: AWSLambda; Status Code: 403; ` +
    'Error Code: AccessDeniedException; Request ID: req-1; Proxy: null)';
  assert.equal(out.cause, cause);
  const failed = (await client.history(out.executionArn)).find((e) => e.type === 'LambdaFunctionFailed');
  assert.deepEqual(failed.lambdaFunctionFailedEventDetails, { error: 'Lambda.AWSLambdaException', cause });
  // in a Distributed Map the child fails so, and the Map Run with it
  const run = await client.runToEnd('Run', { items: [1] });
  assert.equal(run.error, 'States.ExceedToleratedFailureThreshold');
});
