'use strict';
// A minimal AWS Step Functions API for the local stack, running real ASL with
// aws-local-stepfunctions 3.0.0.
//
//   AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:9001 \
//   node --require ./polyfill.cjs sfn-server.cjs --config stack.json [--port 4583] [--host 127.0.0.1] [--quiet]
//
// Config: {"port": 4583, "stateMachines": [{"arn": "arn:aws:states:...:stateMachine:NAME",
//          "definitionFile": "/abs/path/NAME.json", "definitionSubstitutions": {...}}]}
// (definitionSubstitutions is optional: without it the file must be substituted already).
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
const https = require('node:https');
const crypto = require('node:crypto');
const { StateMachine, ExecutionError, ExecutionAbortedError, ExecutionTimeoutError } = require('aws-local-stepfunctions');

// SIGTERM/SIGINT: abort running executions, close the server, exit 0 (also while starting up:
// validating definitions takes a moment).
let server;
let stopping = false;
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
// A failure inside the library must not take the whole stack down; log it and go on.
process.on('unhandledRejection', (err) => log(`unhandled rejection: ${err && err.stack ? err.stack : err}`));

const DEFAULT_TASK_TIMEOUT_SECONDS = 900;
const LAMBDA_FUNCTION_ARN = /^arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+(:[^:]+)?$/;

const args = parseArgs(process.argv.slice(2), { config: '', port: '', host: '127.0.0.1', quiet: false });
if (!args.config) fail('usage: sfn-server.cjs --config <file> [--port N] [--host H] [--quiet]');
const lambdaEndpoint = (process.env.AWS_ENDPOINT_URL_LAMBDA || process.env.AWS_ENDPOINT_URL || '').replace(/\/+$/, '');
if (!lambdaEndpoint) fail('AWS_ENDPOINT_URL_LAMBDA is not set: Task states would invoke real AWS Lambda');

const config = JSON.parse(fs.readFileSync(args.config, 'utf8'));
const port = Number(args.port || config.port || 4583);

/** stateMachineArn -> { arn, name, definition, machine, handlers, creationDate } */
const machines = new Map();
/** executionArn -> execution record (see StartExecution) */
const executions = new Map();

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
  let handlers;
  try {
    const runnable = structuredClone(definition);
    handlers = lambdaTaskHandlers(runnable);
    // Validates the definition (asl-validator) and throws on an invalid one.
    machine = new StateMachine(runnable);
  } catch (err) {
    fail(`${entry.definitionFile}: ${err.message}`);
  }
  machines.set(entry.arn, { arn: entry.arn, name: arn.name, definition, machine, handlers, creationDate: now() });
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
  StartExecution(req) {
    const sm = requireMachine(req.stateMachineArn);
    const name = req.name === undefined ? crypto.randomUUID() : req.name;
    if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
      throw new ApiError('InvalidName', `Invalid Name: '${name}'`);
    }
    const inputText = req.input === undefined ? '{}' : req.input;
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
    const record = {
      executionArn, stateMachineArn: sm.arn, name, status: 'RUNNING', input: inputText,
      startDate: now(), stopDate: undefined, output: undefined, error: undefined, cause: undefined,
      abort: undefined,
    };
    executions.set(executionArn, record);
    run(sm, record, input);
    return { executionArn, startDate: record.startDate };
  },

  // DescribeExecution: {executionArn} -> {executionArn, stateMachineArn, name, status,
  // startDate, stopDate?, input, inputDetails, output?, outputDetails?, error?, cause?}.
  DescribeExecution(req) {
    const e = requireExecution(req.executionArn);
    return {
      executionArn: e.executionArn, stateMachineArn: e.stateMachineArn, name: e.name,
      status: e.status, startDate: e.startDate, stopDate: e.stopDate,
      input: e.input, inputDetails: { included: true },
      output: e.output, outputDetails: e.output === undefined ? undefined : { included: true },
      error: e.error, cause: e.cause,
    };
  },

  // StopExecution: {executionArn, error?, cause?} -> {stopDate}. Aborts a RUNNING execution
  // (the library's abort: running Wait/Map/Parallel stop, an in-flight Lambda call finishes on
  // the host but its result is dropped). On a closed execution it changes nothing.
  StopExecution(req) {
    const e = requireExecution(req.executionArn);
    if (e.status === 'RUNNING') {
      const abort = e.abort;
      finish(e, 'ABORTED', { error: req.error, cause: req.cause });
      if (abort) abort();
    }
    return { stopDate: e.stopDate };
  },

  // ListExecutions: {stateMachineArn, statusFilter?, maxResults?, nextToken?} ->
  // {executions: [ExecutionListItem], nextToken?}, newest first.
  ListExecutions(req) {
    const sm = requireMachine(req.stateMachineArn);
    const all = [...executions.values()]
      .filter((e) => e.stateMachineArn === sm.arn && (!req.statusFilter || e.status === req.statusFilter))
      .reverse();
    return page(all, req, 'executions', (e) => ({
      executionArn: e.executionArn, stateMachineArn: e.stateMachineArn, name: e.name,
      status: e.status, startDate: e.startDate, stopDate: e.stopDate,
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

/** Runs one execution in the background and records how it ends. */
function run(sm, record, input) {
  const execution = sm.machine.run(input, {
    overrides: { taskResourceLocalHandlers: sm.handlers },
    // The library fills Execution.Input/StartTime; add the ids ASL may read from $$.
    context: {
      Execution: { Id: record.executionArn, Name: record.name, RoleArn: localRoleArn(sm.arn) },
      StateMachine: { Id: sm.arn, Name: sm.name },
    },
  });
  record.abort = execution.abort;
  if (!args.quiet) logEvents(record, execution.eventLogs);
  else drain(execution.eventLogs);

  execution.result.then(
    (output) => finish(record, 'SUCCEEDED', { output: JSON.stringify(output) }),
    (err) => {
      if (err instanceof ExecutionAbortedError) return finish(record, 'ABORTED', {});
      if (err instanceof ExecutionTimeoutError) {
        return finish(record, 'TIMED_OUT', { error: 'States.Timeout', cause: 'Execution timed out' });
      }
      // ExecutionError wraps the failing state's error: name = ASL error name, message = cause.
      const inner = err instanceof ExecutionError && err.cause ? err.cause : err;
      return finish(record, 'FAILED', { error: inner.name, cause: inner.message });
    },
  );
}

/** Closes a RUNNING execution once; later outcomes (e.g. after StopExecution) are ignored. */
function finish(record, status, { output, error, cause }) {
  if (record.status !== 'RUNNING') return;
  Object.assign(record, { status, output, error, cause, stopDate: now(), abort: undefined });
  log(`${record.name} ${status}${error ? ` ${error}: ${truncate(cause)}` : ''}`);
}

/** One stderr line per library event: `sfn <execution> +<ms> <Event> <Type>:<State>[index]`. */
async function logEvents(record, eventLogs) {
  const started = Date.now();
  try {
    for await (const event of eventLogs) {
      const state = event.state ? ` ${event.state.type}:${event.state.name}` : '';
      const index = event.index === undefined ? '' : `[${event.index}]`;
      const parent = event.parentState ? ` ${event.parentState.name}` : '';
      const error = event.Error ? ` ${event.Error}` : '';
      log(`${record.name} +${Date.now() - started}ms ${event.type}${state}${index}${parent}${error}`);
    }
  } catch (err) {
    log(`${record.name} event log ended: ${err.message}`);
  }
}

async function drain(eventLogs) {
  try {
    for await (const _ of eventLogs); // eslint-disable-line no-unused-vars
  } catch {
    // nothing to report in quiet mode
  }
}

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

// ---- Lambda tasks ----------------------------------------------------------------------

/**
 * Walks a definition (States, Parallel Branches, Map ItemProcessor/Iterator) and returns
 * {stateName: input => result} invoking each Task's Lambda; ASL state names are unique across
 * a whole state machine, so one flat map serves nested states. Also gives Tasks without a
 * timeout the AWS-like default (see top of file). Throws on a non-Lambda Task resource.
 */
function lambdaTaskHandlers(definition, handlers = {}) {
  for (const [name, state] of Object.entries(definition.States || {})) {
    if (state.Type === 'Task') {
      if (!LAMBDA_FUNCTION_ARN.test(state.Resource)) {
        throw new Error(`Task '${name}': Resource must be a Lambda function ARN, got '${state.Resource}'`);
      }
      if (state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined) {
        state.TimeoutSeconds = DEFAULT_TASK_TIMEOUT_SECONDS;
      }
      handlers[name] = (input) => invokeLambda(state.Resource, input);
    }
    for (const branch of state.Branches || []) lambdaTaskHandlers(branch, handlers);
    if (state.ItemProcessor || state.Iterator) lambdaTaskHandlers(state.ItemProcessor || state.Iterator, handlers);
  }
  return handlers;
}

/** A Task failure: `name` is the ASL error name matched by Retry/Catch, `message` its Cause. */
function taskError(name, cause) {
  const error = new Error(cause);
  error.name = name;
  return error;
}

/** Lambda Invoke (RequestResponse) -> the function's result, or throws a taskError. */
function invokeLambda(functionArn, payload) {
  const url = new URL(`${lambdaEndpoint}/2015-03-31/functions/${encodeURIComponent(functionArn)}/invocations`);
  const body = JSON.stringify(payload === undefined ? null : payload);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'X-Amz-Invocation-Type': 'RequestResponse',
      },
    }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', (err) => reject(taskError('Lambda.SdkClientException', err.message)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode < 200 || res.statusCode > 299) {
          const type = String(res.headers['x-amzn-errortype'] || 'ServiceException').split(':')[0];
          return reject(taskError(`Lambda.${type}`, text || `HTTP ${res.statusCode}`));
        }
        let result;
        let parseError;
        try {
          result = text ? JSON.parse(text) : null;
        } catch (err) {
          parseError = err;
        }
        if (res.headers['x-amz-function-error']) {
          const type = result && typeof result.errorType === 'string' ? result.errorType : 'Lambda.Unknown';
          return reject(taskError(type, text));
        }
        if (parseError) {
          return reject(taskError('Lambda.InvalidResponse', `Function returned non-JSON payload: ${truncate(text)}`));
        }
        return resolve(result);
      });
    });
    req.on('error', (err) => reject(taskError('Lambda.SdkClientException', `Unable to invoke ${functionArn}: ${err.message}`)));
    req.end(body);
  });
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

function truncate(text) {
  const s = String(text);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

function stop(signal) {
  if (stopping) return;
  stopping = true;
  log(`${signal}, aborting running executions and shutting down`);
  for (const e of executions.values()) if (e.abort) e.abort();
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
