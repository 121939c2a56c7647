'use strict';
// A minimal AWS Step Functions API for the local stack, running real ASL with
// aws-local-stepfunctions 3.0.0 (the execution engine is sfn-runtime.cjs).
//
//   AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:9001 \
//   node --require ./polyfill.cjs sfn-server.cjs --config stack.json [--port 4583] [--host 127.0.0.1] [--quiet]
//
// Config: {"port": 4583,
//          "stateMachines": [{"arn": "arn:aws:states:...:stateMachine:NAME",
//                             "definitionFile": "/abs/path/NAME.json", "definitionSubstitutions": {...},
//                             "principal": "LogicalId"}],
//          "limits": {"inlineMapMaxConcurrency": 40, "distributedMapMaxConcurrency": 10000,
//                     "historyEventsPerExecution": 25000, "statePayloadBytes": 262144}}
// "principal" (optional) names the state machine's IAM principal in the local stack: its Task invokes carry
// it (header x-richter-principal; the Lambda host checks lambda:InvokeFunction against the machine's policies)
// and its Distributed Maps ask the Lambda host (POST /richter-local/iam/check) whether its role may
// StartExecution, DescribeExecution and StopExecution their child executions; without it nothing is checked.
// (definitionSubstitutions is optional: without it the file must be substituted already; "limits" and
// each of its keys are optional, the defaults are AWS's values and a value may only be lower, so
// tests can run against compressed limits; see AWS_LIMITS in sfn-runtime.cjs for the AWS sources).
// Prints `READY sfn <port>` on stdout once listening; state transitions go to stderr.
//
// Protocol: AWS JSON 1.0, as the SDKs speak it: `POST /`, `X-Amz-Target: AWSStepFunctions.<Op>`,
// `Content-Type: application/x-amz-json-1.0`; errors are HTTP 400 with
// {"__type": "<Code>", "message": "..."}; timestamps are epoch seconds (JSON numbers).
// Shapes follow the Step Functions API Reference (docs.aws.amazon.com/step-functions/latest/apireference/).
//
// Lambda tasks: every Task state must name a Lambda function ARN (DESIGN.md §8: no optimized
// integrations). The server invokes it itself with the Lambda Invoke API
// (POST {AWS_ENDPOINT_URL_LAMBDA}/2015-03-31/functions/{FunctionName}/invocations, RequestResponse),
// handed to the library as a per-state local handler (`taskResourceLocalHandlers`). The library's
// own client (AWS SDK for JavaScript v3, which would also honour AWS_ENDPOINT_URL_LAMBDA) names
// errors `<Type>` instead of `Lambda.<Type>`, reports a function error's Cause as "type: message"
// and gives Tasks a 60 s default timeout; invoking here keeps what the ASL sees as on AWS:
//   - a function error (header X-Amz-Function-Error) fails the Task with Error = the payload's
//     errorType and Cause = the payload JSON text, so Retry/Catch (incl. States.TaskFailed) apply;
//   - an Invoke API error fails it with Error = `Lambda.<ErrorType>` (e.g. Lambda.ResourceNotFoundException);
//   - no HTTP timeout of its own: a Task without TimeoutSeconds gets 900 s (Lambda's maximum)
//     instead of the library's 60 s default, as on AWS the function's own timeout ends it first.
// The server refuses to start without AWS_ENDPOINT_URL_LAMBDA (or AWS_ENDPOINT_URL), so a
// local run can never call real AWS.
const fs = require('node:fs');
const http = require('node:http');
const crypto = require('node:crypto');
const runtime = require('./sfn-runtime.cjs');

// SIGTERM/SIGINT: abort running executions, close the server, exit 0 (also while starting up:
// validating definitions takes a moment).
let server;
let stopping = false;
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
// A failure inside the library must not take the whole stack down; log it and go on.
process.on('unhandledRejection', (err) => log(`unhandled rejection: ${err && err.stack ? err.stack : err}`));

const args = parseArgs(process.argv.slice(2), { config: '', port: '', host: '127.0.0.1', quiet: false });
if (!args.config) fail('usage: sfn-server.cjs --config <file> [--port N] [--host H] [--quiet]');
const lambdaEndpoint = process.env.AWS_ENDPOINT_URL_LAMBDA || process.env.AWS_ENDPOINT_URL || '';
if (!lambdaEndpoint) fail('AWS_ENDPOINT_URL_LAMBDA is not set: Task states would invoke real AWS Lambda');

const config = JSON.parse(fs.readFileSync(args.config, 'utf8'));
const port = Number(args.port || config.port || 4583);
let limits;
try {
  limits = runtime.configure({ limits: config.limits, lambdaEndpoint, log, verbose: !args.quiet, onExecutionEnded: sendStatusChange });
} catch (err) {
  fail(`${args.config}: ${err.message}`);
}
log(`limits: ${Object.entries(limits).map(([key, value]) => `${key}=${value}`).join(' ')}` +
  `${config.limits ? '' : ' (AWS values)'}`);

/** stateMachineArn -> { arn, name, definition (as written), machine (compiled), creationDate } */
const machines = new Map();
const { executions, mapRuns } = runtime;

for (const entry of config.stateMachines || []) {
  // Optional "definitionSubstitutions": {"Name": "value"} replaces ${Name} in the file, as
  // SAM's DefinitionSubstitutions do; without it the file must be substituted already.
  let text = fs.readFileSync(entry.definitionFile, 'utf8');
  for (const [key, value] of Object.entries(entry.definitionSubstitutions || {})) {
    text = text.split('${' + key + '}').join(value);
  }
  const definition = JSON.parse(text);
  const arn = parseStateMachineArn(entry.arn);
  if (!arn) fail(`not a state machine ARN: ${entry.arn}`);
  let machine;
  try {
    // Validates the definition (asl-validator) and what the server supports; throws on either.
    machine = runtime.loadDefinition(definition);
  } catch (err) {
    fail(`${entry.definitionFile}: ${err.message}`);
  }
  machines.set(entry.arn, { arn: entry.arn, name: arn.name, definition, machine, creationDate: now(), principal: entry.principal });
}

/** Thrown by an op to answer with an AWS JSON error. */
class ApiError extends Error {
  constructor(type, message, status = 400) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

const operations = {
  // StartExecution: {stateMachineArn, name?, input?} -> {executionArn, startDate}.
  // Same name + same input while RUNNING returns the running execution (idempotent, as on
  // AWS for standard workflows); any other reuse of a name is ExecutionAlreadyExists.
  // An input over statePayloadBytes is a ValidationException: the API reference gives `input` a
  // 262144-byte constraint (service quotas: 256 KiB per execution input) but not the exception;
  // this is the answer observed from AWS for that constraint.
  StartExecution(req) {
    const inputText = req.input === undefined ? '{}' : req.input;
    if (typeof inputText === 'string' && Buffer.byteLength(inputText) > limits.statePayloadBytes) {
      throw new ApiError('ValidationException', "1 validation error detected: Value at 'input' failed to satisfy " +
        `constraint: Member must have size less than or equal to ${limits.statePayloadBytes} bytes in UTF-8 encoding`);
    }
    const sm = requireMachine(req.stateMachineArn);
    const name = req.name === undefined ? crypto.randomUUID() : req.name;
    if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
      throw new ApiError('InvalidName', `Invalid Name: '${name}'`);
    }
    let input;
    try {
      input = JSON.parse(inputText);
    } catch (err) {
      throw new ApiError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${err.message}'`);
    }
    const arn = parseStateMachineArn(sm.arn);
    const executionArn = `arn:${arn.partition}:states:${arn.region}:${arn.account}:execution:${arn.name}:${name}`;
    const existing = executions.get(executionArn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === inputText) {
        return { executionArn, startDate: existing.startDate };
      }
      throw new ApiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const record = runtime.startExecution({
      executionArn, stateMachineArn: sm.arn, stateMachineName: sm.name, name, label: name,
      machine: sm.machine, input, inputText,
      arnParts: { partition: arn.partition, region: arn.region, account: arn.account },
      roleArn: localRoleArn(sm.arn), principal: sm.principal,
    });
    return { executionArn, startDate: record.startDate };
  },

  // DescribeExecution: {executionArn} -> {executionArn, stateMachineArn, name, status,
  // startDate, stopDate?, input, inputDetails, output?, outputDetails?, error?, cause?,
  // mapRunArn? (a Distributed Map's child: the Map Run that started it)}.
  DescribeExecution(req) {
    const e = requireExecution(req.executionArn);
    return {
      executionArn: e.executionArn, stateMachineArn: e.stateMachineArn, name: e.name,
      status: e.status, startDate: e.startDate, stopDate: e.stopDate,
      input: e.input, inputDetails: { included: true },
      output: e.output, outputDetails: e.output === undefined ? undefined : { included: true },
      error: e.error, cause: e.cause, mapRunArn: e.mapRunArn,
    };
  },

  // StopExecution: {executionArn, error?, cause?} -> {stopDate}. Aborts a RUNNING execution
  // (running Wait/Map/Parallel stop, Distributed Map children are aborted; an in-flight Lambda
  // call finishes on the host but its result is dropped). On a closed execution it changes nothing.
  StopExecution(req) {
    const e = requireExecution(req.executionArn);
    runtime.stopExecution(e, { error: req.error, cause: req.cause });
    return { stopDate: e.stopDate };
  },

  // ListExecutions: {stateMachineArn | mapRunArn, statusFilter?, maxResults?, nextToken?} ->
  // {executions: [ExecutionListItem], nextToken?}, newest first. With mapRunArn: the child
  // executions of that Distributed Map run (their items carry mapRunArn).
  ListExecutions(req) {
    if (req.stateMachineArn !== undefined && req.mapRunArn !== undefined) {
      throw new ApiError('ValidationException', 'Specify either stateMachineArn or mapRunArn, not both');
    }
    const all = req.mapRunArn !== undefined
      ? [...requireMapRun(req.mapRunArn).children]
      : [...executions.values()].filter((e) => e.stateMachineArn === requireMachine(req.stateMachineArn).arn);
    const listed = all.filter((e) => !req.statusFilter || e.status === req.statusFilter).reverse();
    return page(listed, req, 'executions', (e) => ({
      executionArn: e.executionArn, stateMachineArn: e.stateMachineArn, name: e.name,
      status: e.status, startDate: e.startDate, stopDate: e.stopDate,
      mapRunArn: req.mapRunArn === undefined ? undefined : e.mapRunArn,
    }));
  },

  // GetExecutionHistory: {executionArn, maxResults?, nextToken?, reverseOrder?} ->
  // {events: [HistoryEvent], nextToken?}. The events AWS would write, synthesized from the run
  // (sfn-runtime.cjs): {id, previousEventId, timestamp, type, <type>EventDetails?}; details carry
  // names, indexes, resources, map run ARNs, errors and causes, not state input/output.
  GetExecutionHistory(req) {
    const e = requireExecution(req.executionArn);
    const events = req.reverseOrder ? [...e.events].reverse() : e.events;
    return page(events, req, 'events', (event) => event);
  },

  // DescribeMapRun: {mapRunArn} -> {mapRunArn, executionArn, status, startDate, stopDate?,
  // maxConcurrency, toleratedFailurePercentage, toleratedFailureCount, itemCounts, executionCounts}.
  DescribeMapRun(req) {
    const run = requireMapRun(req.mapRunArn);
    const counts = runtime.mapRunCounts(run);
    return {
      mapRunArn: run.mapRunArn, executionArn: run.executionArn, status: run.status,
      startDate: run.startDate, stopDate: run.stopDate, maxConcurrency: run.maxConcurrency,
      toleratedFailurePercentage: run.toleratedFailurePercentage, toleratedFailureCount: run.toleratedFailureCount,
      itemCounts: counts, executionCounts: counts,
    };
  },

  // ListMapRuns: {executionArn, maxResults?, nextToken?} -> {mapRuns: [MapRunListItem], nextToken?},
  // in start order.
  ListMapRuns(req) {
    const e = requireExecution(req.executionArn);
    const runs = [...mapRuns.values()].filter((run) => run.executionArn === e.executionArn);
    return page(runs, req, 'mapRuns', (run) => ({
      executionArn: run.executionArn, mapRunArn: run.mapRunArn, stateMachineArn: run.stateMachineArn,
      startDate: run.startDate, stopDate: run.stopDate,
    }));
  },

  // DescribeStateMachine: {stateMachineArn} -> {stateMachineArn, name, status, definition,
  // roleArn, type, creationDate}. For debugging and readiness checks.
  DescribeStateMachine(req) {
    const sm = requireMachine(req.stateMachineArn);
    return {
      stateMachineArn: sm.arn, name: sm.name, status: 'ACTIVE', type: 'STANDARD',
      definition: JSON.stringify(sm.definition), roleArn: localRoleArn(sm.arn), creationDate: sm.creationDate,
    };
  },

  // ListStateMachines: {maxResults?, nextToken?} -> {stateMachines: [StateMachineListItem], nextToken?}.
  ListStateMachines(req) {
    return page([...machines.values()], req, 'stateMachines', (sm) => ({
      stateMachineArn: sm.arn, name: sm.name, type: 'STANDARD', creationDate: sm.creationDate,
    }));
  },
};

// ---- HTTP ------------------------------------------------------------------------------

server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const requestId = crypto.randomUUID();
    let status = 200;
    let body;
    try {
      body = handle(req, Buffer.concat(chunks).toString('utf8'));
    } catch (err) {
      const apiError = err instanceof ApiError ? err : new ApiError('InternalFailure', err.message, 500);
      if (!(err instanceof ApiError)) log(`internal error: ${err.stack}`);
      status = apiError.status;
      body = { __type: apiError.type, message: apiError.message };
      res.setHeader('x-amzn-ErrorType', apiError.type);
    }
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/x-amz-json-1.0',
      'Content-Length': Buffer.byteLength(text),
      'x-amzn-RequestId': requestId,
    });
    res.end(text);
  });
});

/** Routes one AWS JSON 1.0 request to its operation. */
function handle(req, text) {
  const target = req.headers['x-amz-target'] || '';
  const op = target.startsWith('AWSStepFunctions.') ? target.slice('AWSStepFunctions.'.length) : '';
  if (req.method !== 'POST' || !Object.hasOwn(operations, op)) {
    throw new ApiError('UnknownOperationException', `Unknown operation: '${target || `${req.method} ${req.url}`}'`);
  }
  let request;
  try {
    request = text ? JSON.parse(text) : {};
  } catch (err) {
    throw new ApiError('SerializationException', `Request body is not JSON: ${err.message}`);
  }
  return operations[op](request || {});
}

server.on('error', (err) => fail(err.message));
server.listen(port, args.host, () => {
  log(`${machines.size} state machine(s): ${[...machines.keys()].join(', ')}; Lambda at ` +
    `${process.env.AWS_ENDPOINT_URL_LAMBDA || process.env.AWS_ENDPOINT_URL}`);
  process.stdout.write(`READY sfn ${server.address().port}\n`);
});

// ---- status-change events ----------------------------------------------------------------

// As Step Functions does for Standard workflows, every top-level execution that ends sends a
// "Step Functions Execution Status Change" event (source aws.states) to the default bus
// (docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html), through the
// local EventBridge at AWS_ENDPOINT_URL_EVENTBRIDGE (PutEvents, AWS JSON 1.1). AWS also sends
// one for RUNNING; this server sends the terminal ones (SUCCEEDED, FAILED, TIMED_OUT, ABORTED).
// Without AWS_ENDPOINT_URL_EVENTBRIDGE no event is sent. A failed send is logged, not retried.
const eventsEndpoint = (process.env.AWS_ENDPOINT_URL_EVENTBRIDGE || '').replace(/\/+$/, '');

function statusChangeDetail(e) {
  return {
    executionArn: e.executionArn, stateMachineArn: e.stateMachineArn, name: e.name, status: e.status,
    startDate: Math.round(e.startDate * 1000), stopDate: e.stopDate === undefined ? null : Math.round(e.stopDate * 1000),
    input: e.input, inputDetails: { included: true },
    output: e.output === undefined ? null : e.output, outputDetails: e.output === undefined ? null : { included: true },
    error: e.error === undefined ? null : e.error, cause: e.cause === undefined ? null : e.cause,
  };
}

function sendStatusChange(e) {
  if (!eventsEndpoint) return;
  const body = JSON.stringify({ Entries: [{
    Source: 'aws.states', DetailType: 'Step Functions Execution Status Change', EventBusName: 'default',
    Resources: [e.executionArn], Detail: JSON.stringify(statusChangeDetail(e)),
  }] });
  fetch(`${eventsEndpoint}/`, {
    method: 'POST', body,
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSEvents.PutEvents' },
  }).then((res) => {
    if (res.status !== 200) log(`status-change event of ${e.name} not sent: HTTP ${res.status}`);
  }, (err) => log(`status-change event of ${e.name} not sent: ${err.message}`));
}

// ---- helpers ---------------------------------------------------------------------------

function requireMachine(stateMachineArn) {
  if (typeof stateMachineArn !== 'string' || !stateMachineArn) {
    throw new ApiError('ValidationException', 'stateMachineArn is required');
  }
  if (!parseStateMachineArn(stateMachineArn)) throw new ApiError('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
  const sm = machines.get(stateMachineArn);
  if (!sm) throw new ApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
  return sm;
}

function requireExecution(executionArn) {
  if (typeof executionArn !== 'string' || !executionArn) {
    throw new ApiError('ValidationException', 'executionArn is required');
  }
  if (!/^arn:[^:]+:states:[^:]+:[^:]+:execution:[^:]+:[^:]+$/.test(executionArn)) {
    throw new ApiError('InvalidArn', `Invalid Arn: '${executionArn}'`);
  }
  const e = executions.get(executionArn);
  if (!e) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
  return e;
}

function requireMapRun(mapRunArn) {
  if (typeof mapRunArn !== 'string' || !mapRunArn) throw new ApiError('ValidationException', 'mapRunArn is required');
  if (!/^arn:[^:]+:states:[^:]+:[^:]+:mapRun:[^:]+:[^:]+$/.test(mapRunArn)) {
    throw new ApiError('InvalidArn', `Invalid Arn: '${mapRunArn}'`);
  }
  const run = mapRuns.get(mapRunArn);
  if (!run) throw new ApiError('ResourceNotFound', `Map Run Does Not Exist: '${mapRunArn}'`);
  return run;
}

/** arn:<partition>:states:<region>:<account>:stateMachine:<name> -> parts, or null. */
function parseStateMachineArn(arn) {
  const m = /^arn:([^:]+):states:([^:]+):([^:]+):stateMachine:([^:]+)$/.exec(String(arn));
  return m && { partition: m[1], region: m[2], account: m[3], name: m[4] };
}

function localRoleArn(stateMachineArn) {
  const arn = parseStateMachineArn(stateMachineArn);
  return `arn:${arn.partition}:iam::${arn.account}:role/local-${arn.name}`;
}

/** `maxResults`/`nextToken` paging over a list; the token is the next offset. */
function page(items, req, key, map) {
  const start = req.nextToken ? Number(req.nextToken) : 0;
  if (!Number.isInteger(start) || start < 0) throw new ApiError('InvalidToken', `Invalid Token: '${req.nextToken}'`);
  const size = req.maxResults > 0 ? Math.min(req.maxResults, 1000) : 100;
  const slice = items.slice(start, start + size);
  const out = { [key]: slice.map(map) };
  if (start + size < items.length) out.nextToken = String(start + size);
  return out;
}

/** Epoch seconds with millisecond precision, as the real API returns timestamps. */
function now() {
  return Date.now() / 1000;
}

function stop(signal) {
  if (stopping) return;
  stopping = true;
  log(`${signal}, aborting running executions and shutting down`);
  runtime.abortAll();
  if (!server || !server.listening) process.exit(0);
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 2000).unref();
}

function log(line) {
  process.stderr.write(`sfn ${line}\n`);
}

/** `--name value` pairs (boolean defaults take no value) over defaults. */
function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '');
    if (!argv[i].startsWith('--') || !(name in defaults)) fail(`unknown argument: ${argv[i]}`);
    if (typeof defaults[name] === 'boolean') {
      out[name] = true;
    } else {
      if (argv[i + 1] === undefined) fail(`missing value for ${argv[i]}`);
      out[name] = argv[++i];
    }
  }
  return out;
}

function fail(message) {
  process.stderr.write(`sfn-server: ${message}\n`);
  process.exit(2);
}
