'use strict';
// The execution engine behind sfn-server.cjs: runs ASL with aws-local-stepfunctions 3.0.0 and adds
// what Richter relies on and the library lacks or does more leniently than AWS:
//
//   - AWS limits, each lowerable by configuration (see AWS_LIMITS): inline Map concurrency, Distributed
//     Map concurrency, history events per execution, payload size per state / task / execution;
//   - the execution history AWS writes (GetExecutionHistory), synthesized from the library's events;
//   - Map states run here, not by the library: inline Maps as iterations inside the execution (their
//     events count in its history), Distributed Maps as child executions with their own history;
//   - Lambda Task states invoke the Lambda Invoke API with AWS's error shapes (invokeLambda).
//
// How it drives the library: each definition is rewritten before the library sees it (compileMachine):
// every Map state becomes a Task state with the same InputPath/ResultSelector/ResultPath/OutputPath/
// Retry/Catch/Next/End whose local handler (`taskResourceLocalHandlers`, keyed by state name) runs the
// Map; Lambda Tasks get local handlers that invoke the function. A Scope is one library run (an
// execution's top level, or one inline Map iteration): it reads the run's event stream to write the
// AWS history, to check payload sizes and to know which states a Parallel abandoned.
//
// AWS sources:
//   [quotas]   https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html
//   [history]  https://docs.aws.amazon.com/step-functions/latest/dg/bp-history-limit.html
//   [map]      https://docs.aws.amazon.com/step-functions/latest/dg/state-map.html
//   [dmap]     https://docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html
//   [errors]   https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html
//   [events]   https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html
const crypto = require('node:crypto');
const http = require('node:http');
const https = require('node:https');
const { StateMachine, ExecutionError, ExecutionAbortedError, ExecutionTimeoutError } = require('aws-local-stepfunctions');

/**
 * AWS's values, the defaults of the config's "limits"; a configured value may only be lower.
 *   inlineMapMaxConcurrency: [map] "Inline mode ... supports up to 40 concurrent iterations", whatever
 *     MaxConcurrency says (0, the default, means "as many as possible", i.e. 40).
 *   distributedMapMaxConcurrency: [map]/[dmap] "up to 10,000 parallel child workflow executions"; the
 *     default when MaxConcurrency is 0 or absent.
 *   historyEventsPerExecution: [quotas] "Maximum execution history size: 25,000 events"; [history]:
 *     at 24,999 events only ExecutionSucceeded may follow, any other event fails the execution.
 *   statePayloadBytes: [quotas] "Maximum input or output size for a task, state, or execution:
 *     256 KiB of data as a UTF-8 encoded string" (262,144 bytes); [errors] States.DataLimitExceeded.
 */
const AWS_LIMITS = Object.freeze({
  inlineMapMaxConcurrency: 40,
  distributedMapMaxConcurrency: 10000,
  historyEventsPerExecution: 25000,
  statePayloadBytes: 262144,
});

const DEFAULT_TASK_TIMEOUT_SECONDS = 900; // Lambda's maximum; the library's default would be 60 s
// The library gives every Task a timeout (60 s when TimeoutSeconds is absent). The Task standing for
// a Map gets the longest one a Node timer can hold (2^31-1 ms, about 24.8 days), i.e. none in practice.
const MAP_TASK_TIMEOUT_SECONDS = Math.floor(0x7fffffff / 1000);
const MAP_TASK_RESOURCE = 'arn:aws:lambda:local:000000000000:function:local-map-state';
// In the library, States.TaskFailed matches any error of a Task state; a Map state is no Task on AWS.
const NEVER_MATCHING_ERROR = 'Local.TaskFailedDoesNotMatchMapStates';
const LAMBDA_FUNCTION_ARN = /^arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+(:[^:]+)?$/;
const TERMINAL_EVENTS = {
  SUCCEEDED: ['ExecutionSucceeded', 'executionSucceededEventDetails'],
  FAILED: ['ExecutionFailed', 'executionFailedEventDetails'],
  ABORTED: ['ExecutionAborted', 'executionAbortedEventDetails'],
  TIMED_OUT: ['ExecutionTimedOut', 'executionTimedOutEventDetails'],
};

let limits = AWS_LIMITS;
let lambdaEndpoint = '';
let log = () => {};
let verbose = false;
/** executionArn -> ExecutionRecord (see startExecution); child executions of Distributed Maps too. */
const executions = new Map();
/** mapRunArn -> MapRun (see runDistributedMap). */
const mapRuns = new Map();

/**
 * Sets up the runtime once, before compiling definitions.
 * @param {{limits?: object, lambdaEndpoint: string, log: (line: string) => void, verbose: boolean}} options
 *   limits: the config's "limits" object (may be absent); lambdaEndpoint: base URL of the Lambda
 *   Invoke API; log: one stderr line; verbose: log every library event.
 * @returns {object} the effective limits. Throws on an unknown key, a non-integer or a value above AWS's.
 */
/** Called with the record of every top-level execution that closes (options.onExecutionEnded). */
let onExecutionEnded = () => {};

function configure(options) {
  limits = resolveLimits(options.limits);
  onExecutionEnded = options.onExecutionEnded || (() => {});
  lambdaEndpoint = options.lambdaEndpoint.replace(/\/+$/, '');
  log = options.log;
  verbose = options.verbose;
  return limits;
}

function resolveLimits(configured) {
  if (configured === undefined) return AWS_LIMITS;
  if (configured === null || typeof configured !== 'object' || Array.isArray(configured)) {
    throw new Error('"limits" must be an object');
  }
  const resolved = { ...AWS_LIMITS };
  for (const [key, value] of Object.entries(configured)) {
    if (!Object.hasOwn(AWS_LIMITS, key)) {
      throw new Error(`unknown limit "${key}" (known: ${Object.keys(AWS_LIMITS).join(', ')})`);
    }
    if (!Number.isInteger(value) || value < 1 || value > AWS_LIMITS[key]) {
      throw new Error(`limit "${key}" must be an integer from 1 to AWS's ${AWS_LIMITS[key]}, got ${JSON.stringify(value)}`);
    }
    resolved[key] = value;
  }
  return Object.freeze(resolved);
}

// ---- definitions -----------------------------------------------------------------------

/**
 * Checks a definition as the library does (asl-validator: ASL rules, ARNs, paths, unique state
 * names), plus what this server cannot run, and prepares it (compileMachine). Throws with a message
 * naming the state at fault.
 * @param {object} definition ASL, substituted
 * @returns {Machine}
 */
function loadDefinition(definition) {
  checkDistributedMaps(definition); // before the validator, whose message for these is obscure
  new StateMachine(structuredClone(definition)); // eslint-disable-line no-new -- validates, throws
  return compileMachine(definition);
}

/** A DISTRIBUTED Map needs ExecutionType STANDARD ([dmap]); EXPRESS children are not supported. */
function checkDistributedMaps(definition) {
  for (const [name, state] of Object.entries(definition.States || {})) {
    for (const branch of state.Branches || []) checkDistributedMaps(branch);
    const processor = state.ItemProcessor || state.Iterator;
    if (!processor) continue;
    const config = processor.ProcessorConfig || {};
    if (config.Mode === 'DISTRIBUTED' && config.ExecutionType !== 'STANDARD') {
      throw new Error(`Map state '${name}': ItemProcessor.ProcessorConfig.ExecutionType must be "STANDARD" ` +
        `(EXPRESS child workflows are not supported locally), got ${JSON.stringify(config.ExecutionType)}`);
    }
    checkDistributedMaps(processor);
  }
}

/**
 * Rewrites a (validated) definition for the library.
 * @typedef {object} Machine
 * @property {object} definition  what the library runs: Map states replaced by Tasks (mapAsTask),
 *   Lambda Tasks without a timeout given 900 s
 * @property {StateMachine} library
 * @property {Map<string, StateInfo>} states  the states of one scope: the top level and Parallel
 *   branches (a Map's ItemProcessor is a Machine of its own, StateInfo.processor)
 * @property {Map<string, Set<string>>} parallels  Parallel state name -> names of all states inside it
 * @typedef {object} StateInfo
 * @property {string} name
 * @property {string} type  the ASL Type (Task, Map, Parallel, Pass, Choice, Wait, Succeed, Fail)
 * @property {'lambda'|'inlineMap'|'distributedMap'|'parallel'|'plain'} kind
 * @property {object} def  the state's ASL as written
 * @property {string} [resource]  Lambda function ARN (lambda)
 * @property {Machine} [processor]  the ItemProcessor/Iterator (maps)
 * @property {StateMachine} [itemsReader]  evaluates ItemsPath (maps; absent for '$')
 * @property {StateMachine} [itemSelector]  evaluates ItemSelector/Parameters (maps; absent if none)
 * @property {string} [label]  Label, else the state name (distributedMap)
 */
function compileMachine(definition) {
  const machine = { states: new Map(), parallels: new Map() };
  machine.definition = rewriteStates(definition, machine, []);
  machine.library = new StateMachine(machine.definition, { validationOptions: { noValidate: true } });
  return machine;
}

function rewriteStates(definition, machine, enclosingParallels) {
  const states = {};
  for (const [name, state] of Object.entries(definition.States)) {
    for (const parallel of enclosingParallels) machine.parallels.get(parallel).add(name);
    let info = { name, type: state.Type, kind: 'plain', def: state };
    let runnable = state;
    if (state.Type === 'Task') {
      if (!LAMBDA_FUNCTION_ARN.test(state.Resource)) {
        throw new Error(`Task '${name}': Resource must be a Lambda function ARN, got '${state.Resource}'`);
      }
      info = { ...info, kind: 'lambda', resource: state.Resource };
      if (state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined) {
        runnable = { ...state, TimeoutSeconds: DEFAULT_TASK_TIMEOUT_SECONDS };
      }
    } else if (state.Type === 'Map') {
      info = mapInfo(name, state);
      runnable = mapAsTask(state);
    } else if (state.Type === 'Parallel') {
      info = { ...info, kind: 'parallel' };
      machine.parallels.set(name, new Set());
      const inside = [...enclosingParallels, name];
      runnable = { ...state, Branches: state.Branches.map((branch) => rewriteStates(branch, machine, inside)) };
    }
    machine.states.set(name, info);
    states[name] = runnable;
  }
  return { ...definition, States: states };
}

/** StateInfo of a Map state; throws on fields the local server does not implement. */
function mapInfo(name, state) {
  const processor = state.ItemProcessor || state.Iterator;
  const { ProcessorConfig: config = {}, ...steps } = processor;
  const distributed = config.Mode === 'DISTRIBUTED';
  const unsupported = distributed
    ? ['MaxConcurrencyPath', 'ItemReader', 'ResultWriter', 'ItemBatcher', 'ToleratedFailureCountPath', 'ToleratedFailurePercentagePath']
    : ['MaxConcurrencyPath'];
  for (const field of unsupported) {
    if (state[field] !== undefined) {
      throw new Error(`Map state '${name}': ${field} is not supported by the local Step Functions server` +
        (field === 'MaxConcurrencyPath' ? ' (use MaxConcurrency)' : ''));
    }
  }
  const selector = state.ItemSelector ?? state.Parameters;
  return {
    name, type: 'Map', kind: distributed ? 'distributedMap' : 'inlineMap', def: state,
    label: state.Label || name,
    processor: compileMachine(steps),
    itemsReader: state.ItemsPath === undefined || state.ItemsPath === '$' ? undefined : passMachine({ InputPath: state.ItemsPath }),
    itemSelector: selector === undefined ? undefined : passMachine({ Parameters: selector }),
  };
}

/**
 * The Task the library runs in place of a Map state: same input/output processing, Retry, Catch and
 * transition; its local handler (Scope.handlers) runs the Map. No Parameters (the handler applies
 * ItemSelector per item) and no timeout of its own (see MAP_TASK_TIMEOUT_SECONDS).
 */
function mapAsTask(state) {
  const task = { Type: 'Task', Resource: MAP_TASK_RESOURCE, TimeoutSeconds: MAP_TASK_TIMEOUT_SECONDS };
  for (const field of ['Comment', 'InputPath', 'ResultSelector', 'ResultPath', 'OutputPath', 'Next', 'End']) {
    if (Object.hasOwn(state, field)) task[field] = state[field];
  }
  for (const field of ['Retry', 'Catch']) {
    if (!state[field]) continue;
    task[field] = state[field].map((rule) => ({
      ...rule,
      ErrorEquals: rule.ErrorEquals.map((error) => (error === 'States.TaskFailed' ? NEVER_MATCHING_ERROR : error)),
    }));
  }
  return task;
}

/**
 * A one-state machine {Pass, <fields>} used to evaluate ItemsPath (as InputPath) and ItemSelector
 * (as Parameters) with the library's own JSONPath, intrinsic functions and `$$` context.
 */
function passMachine(fields) {
  const definition = { StartAt: 'Select', States: { Select: { Type: 'Pass', ...fields, End: true } } };
  return new StateMachine(definition, { validationOptions: { noValidate: true } });
}

/** Runs a passMachine; throws the library's error (e.g. States.Runtime for a missing path). */
async function evaluate(machine, input, context) {
  try {
    return await machine.run(input, { context }).result;
  } catch (err) {
    throw innerError(err);
  }
}

// ---- executions ------------------------------------------------------------------------

/**
 * Creates, registers and starts an execution (a StartExecution, or a Distributed Map's child).
 * @param {object} spec
 *   {executionArn, stateMachineArn, stateMachineName, name, label, machine: Machine, input (JSON
 *    value), inputText, arnParts: {partition, region, account}, roleArn, mapRunArn?}
 * @returns {ExecutionRecord} {executionArn, stateMachineArn, stateMachineName, name, label, status:
 *   RUNNING|SUCCEEDED|FAILED|ABORTED|TIMED_OUT, input (text), startDate, stopDate?, output? (text),
 *   error?, cause?, mapRunArn?, events: [HistoryEvent], context ($$), scope: Scope, done: Promise
 *   resolved when it closes}
 */
function startExecution(spec) {
  const { machine, input, inputText, ...fields } = spec;
  const record = {
    ...fields, status: 'RUNNING', input: inputText, startDate: now(), stopDate: undefined,
    output: undefined, error: undefined, cause: undefined, events: [],
    // The library fills Execution.Input/StartTime; these are the ids ASL may read from $$.
    context: {
      Execution: { Id: fields.executionArn, Name: fields.name, RoleArn: fields.roleArn },
      StateMachine: { Id: fields.stateMachineArn, Name: fields.stateMachineName },
    },
  };
  record.done = new Promise((resolve) => (record.closed = resolve));
  executions.set(record.executionArn, record);
  record.scope = new Scope(record, machine, record.label);
  if (!appendEvent(record, 'ExecutionStarted', { executionStartedEventDetails: { roleArn: record.roleArn } })) return record;
  record.scope.run(input).then(
    (output) => finish(record, 'SUCCEEDED', { output: JSON.stringify(output === undefined ? null : output) }),
    (err) => {
      if (err instanceof ExecutionAbortedError) return finish(record, 'ABORTED', {});
      if (err instanceof ExecutionTimeoutError) {
        return finish(record, 'TIMED_OUT', { error: 'States.Timeout', cause: 'Execution timed out' });
      }
      // ExecutionError wraps the failing state's error: name = ASL error name, message = cause.
      const inner = innerError(err);
      return finish(record, 'FAILED', { error: inner.name, cause: inner.message });
    },
  );
  return record;
}

/**
 * Closes a RUNNING execution once (later outcomes are ignored): records the outcome, writes the
 * terminal history event, and stops whatever still runs in it (library run, Map iterations, child
 * executions). @returns {boolean} whether it was RUNNING.
 */
function finish(record, status, { output, error, cause }) {
  if (record.status !== 'RUNNING') return false;
  Object.assign(record, { status, output, error, cause, stopDate: now() });
  const [type, detailsKey] = TERMINAL_EVENTS[status];
  const details = status === 'SUCCEEDED' ? {} : { ...(error !== undefined && { error }), ...(cause !== undefined && { cause }) };
  pushEvent(record, type, { [detailsKey]: details });
  log(`${record.label} ${status}${error ? ` ${error}: ${truncate(cause)}` : ''}`);
  record.scope.abort();
  record.closed();
  // A Distributed Map's children are not top-level executions: their status changes are not sent here.
  if (record.mapRunArn === undefined) onExecutionEnded(record);
  return true;
}

/** StopExecution: aborts a RUNNING execution, its Map runs and child executions. */
function stopExecution(record, { error, cause }) {
  finish(record, 'ABORTED', { error, cause });
}

/** Aborts every running execution (server shutdown). */
function abortAll() {
  for (const record of executions.values()) finish(record, 'ABORTED', {});
}

// ---- history ---------------------------------------------------------------------------

/**
 * Appends a non-terminal event to an execution's history, as AWS counts them ([events]). When the
 * history already holds historyEventsPerExecution - 1 events, only the terminal event still fits
 * ([history]): the execution fails with States.Runtime instead (ExecutionFailed is its last event).
 * @returns {boolean} false when the execution is (now) closed: the caller must stop.
 */
function appendEvent(record, type, details) {
  if (record.status !== 'RUNNING') return false;
  if (record.events.length >= limits.historyEventsPerExecution - 1) {
    finish(record, 'FAILED', {
      error: 'States.Runtime',
      cause: `The execution history exceeded the quota of ${limits.historyEventsPerExecution} events ` +
        '(Step Functions service quotas: 25,000 history events per execution)',
    });
    return false;
  }
  pushEvent(record, type, details);
  return true;
}

/** HistoryEvent: {id, previousEventId, timestamp, type, ...<type>EventDetails}. */
function pushEvent(record, type, details) {
  const id = record.events.length + 1;
  record.events.push({ id, previousEventId: id - 1, timestamp: now(), type, ...details });
}

// ---- scopes ----------------------------------------------------------------------------

/**
 * One library run inside an execution: its top level, or one inline Map iteration. Writes the run's
 * AWS history events into the execution (from the library's event stream and from its own Task
 * handlers), fails the execution on an oversized state input/output, and owns the Map runs its
 * states started. Within a scope a state name is unique and runs at most once at a time (Maps start
 * new scopes; a Parallel's branches have distinct state names), so per-name bookkeeping is exact.
 */
class Scope {
  /**
   * @param {ExecutionRecord} record  the execution whose history and limits apply
   * @param {Machine} machine
   * @param {string} label  for log lines
   */
  constructor(record, machine, label) {
    this.record = record;
    this.machine = machine;
    this.label = label;
    this.aborted = false;
    this.execution = undefined; // the library's {abort, eventLogs, result}
    /** Map runs in flight: {stateName, abort()}. */
    this.mapRuns = new Set();
    /** Lambda Task name -> attempts whose end event is not written yet. */
    this.lambdaInFlight = new Map();
    /** Parallel states that failed (no ParallelStateSucceeded on exit after a Catch). */
    this.failedParallels = new Set();
    /** States inside a Parallel whose branch failed: the library abandons them; never run again. */
    this.cancelled = new Set();
  }

  /** Runs the machine; resolves with its output once its events are written, rejects like the library. */
  async run(input) {
    this.execution = this.machine.library.run(input, {
      overrides: { taskResourceLocalHandlers: this.handlers() },
      context: this.record.context,
    });
    const [result] = await Promise.allSettled([this.execution.result, this.consume(this.execution.eventLogs)]);
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  }

  /** Stops the library run and the Map runs started in it; its later events are ignored. */
  abort() {
    if (this.aborted) return;
    this.aborted = true;
    if (this.execution) this.execution.abort();
    for (const run of [...this.mapRuns]) run.abort();
  }

  alive() {
    return !this.aborted && this.record.status === 'RUNNING';
  }

  append(type, details) {
    return this.alive() && appendEvent(this.record, type, details);
  }

  /** {stateName: input => Promise<result>} for the library's taskResourceLocalHandlers. */
  handlers() {
    const handlers = {};
    for (const info of this.machine.states.values()) {
      if (info.kind === 'lambda') handlers[info.name] = (input) => this.invokeTask(info, input);
      if (info.kind === 'inlineMap') handlers[info.name] = (input) => runInlineMap(this, info, input);
      if (info.kind === 'distributedMap') handlers[info.name] = (input) => runDistributedMap(this, info, input);
    }
    return handlers;
  }

  /**
   * First step of every handler: lets the event stream catch up (the library calls a handler
   * synchronously after dispatching StateEntered, and its events reach us through promise chains
   * only), then refuses to go on in a closed execution, an aborted scope or an abandoned branch.
   */
  async barrier(info) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.alive() || this.cancelled.has(info.name)) throw abortedError();
  }

  /**
   * A Lambda Task attempt: LambdaFunctionScheduled + LambdaFunctionStarted, then the Invoke call.
   * The effective input (after Parameters) and the result are held to statePayloadBytes ([errors]).
   */
  async invokeTask(info, input) {
    await this.barrier(info);
    const payload = JSON.stringify(input === undefined ? null : input);
    if (Buffer.byteLength(payload) > limits.statePayloadBytes) {
      throw dataLimitError(`The state/task '${info.resource}' received an input with a size exceeding the maximum number of bytes service limit.`);
    }
    this.lambdaInFlight.set(info.name, (this.lambdaInFlight.get(info.name) || 0) + 1);
    if (!this.append('LambdaFunctionScheduled', { lambdaFunctionScheduledEventDetails: { resource: info.resource } }) ||
        !this.append('LambdaFunctionStarted', {})) {
      throw abortedError();
    }
    return invokeLambda(info.resource, payload, this.record.principal);
  }

  /** Ends a Lambda attempt's bookkeeping; false if none was started (e.g. Parameters failed). */
  endLambdaAttempt(name) {
    const n = this.lambdaInFlight.get(name) || 0;
    if (n === 0) return false;
    if (n === 1) this.lambdaInFlight.delete(name);
    else this.lambdaInFlight.set(name, n - 1);
    return true;
  }

  async consume(eventLogs) {
    try {
      for await (const event of eventLogs) this.onEvent(event);
    } catch (err) {
      log(`${this.label} event log ended: ${err.stack || err}`);
    }
  }

  /**
   * Library event -> AWS history events ([events]). Per state type:
   *   Task (Lambda): TaskStateEntered, per attempt LambdaFunctionScheduled + LambdaFunctionStarted
   *     (written by invokeTask) + LambdaFunctionSucceeded|Failed|TimedOut, TaskStateExited;
   *   Pass/Choice/Wait/Succeed: <Type>StateEntered, <Type>StateExited; Fail: FailStateEntered;
   *   Parallel: ParallelStateEntered, ParallelStateStarted, ParallelStateSucceeded|Failed,
   *     ParallelStateExited (branch states write their own; branches write none);
   *   Map: MapStateEntered, MapStateExited here, the rest by runInlineMap / runDistributedMap.
   * The execution's own start and end are written by startExecution and finish.
   */
  onEvent(event) {
    if (verbose) this.logEvent(event);
    if (!this.alive()) return;
    const info = event.state && (this.machine.states.get(event.state.name) ||
      { name: event.state.name, type: event.state.type, kind: 'plain' });
    switch (event.type) {
      case 'StateEntered': return this.entered(info, event.state.input);
      case 'StateExited': return this.exited(info, event.state.output);
      case 'StateFailed': return this.failed(info, event);
      case 'StateRetried': return this.retried(info);
      case 'ParallelBranchFailed': return this.branchFailed(event.parentState.name);
      default: return undefined; // Execution*, ParallelBranchStarted/Succeeded, StateCaught: no event of their own
    }
  }

  entered(info, input) {
    if (!this.checkPayload(info.name, input, 'received an input')) return;
    const details = { stateEnteredEventDetails: { name: info.name } };
    switch (info.kind) {
      case 'lambda': this.append('TaskStateEntered', details); break;
      case 'inlineMap':
      case 'distributedMap': this.append('MapStateEntered', details); break;
      case 'parallel':
        this.failedParallels.delete(info.name);
        for (const name of this.machine.parallels.get(info.name)) this.cancelled.delete(name);
        if (this.append('ParallelStateEntered', details)) this.append('ParallelStateStarted', {});
        break;
      default: this.append(`${info.type}StateEntered`, details);
    }
  }

  exited(info, output) {
    if (!this.checkPayload(info.name, output, 'returned a result')) return;
    const details = { stateExitedEventDetails: { name: info.name } };
    switch (info.kind) {
      case 'lambda':
        if (this.endLambdaAttempt(info.name) && !this.append('LambdaFunctionSucceeded', {})) return;
        this.append('TaskStateExited', details);
        break;
      case 'inlineMap':
      case 'distributedMap': this.append('MapStateExited', details); break;
      case 'parallel':
        if (!this.failedParallels.delete(info.name) && !this.append('ParallelStateSucceeded', {})) return;
        this.append('ParallelStateExited', details);
        break;
      default: this.append(`${info.type}StateExited`, details);
    }
  }

  failed(info, event) {
    const failure = { error: event.Error, cause: typeof event.Cause === 'string' ? event.Cause : JSON.stringify(event.Cause) };
    if (info.kind === 'lambda' && this.endLambdaAttempt(info.name)) {
      if (event.Error === 'States.Timeout') this.append('LambdaFunctionTimedOut', { lambdaFunctionTimedOutEventDetails: failure });
      else this.append('LambdaFunctionFailed', { lambdaFunctionFailedEventDetails: failure });
    } else if (info.kind === 'parallel') {
      this.failedParallels.add(info.name);
      this.append('ParallelStateFailed', {});
    }
  }

  retried(info) {
    if (info.kind !== 'parallel') return;
    this.failedParallels.delete(info.name);
    for (const name of this.machine.parallels.get(info.name)) this.cancelled.delete(name);
    this.append('ParallelStateStarted', {});
  }

  /**
   * A branch of Parallel `name` failed: the library aborts the other branches, but a Task handler
   * in flight there is not told, and a Retry would even call it again. Stop the Map runs inside,
   * forget their Lambda attempts and refuse those states until the Parallel runs again.
   */
  branchFailed(name) {
    const inside = this.machine.parallels.get(name) || new Set();
    for (const state of inside) {
      this.cancelled.add(state);
      this.lambdaInFlight.delete(state);
    }
    for (const run of [...this.mapRuns]) if (inside.has(run.stateName)) run.abort();
  }

  /** Fails the execution with States.DataLimitExceeded (uncatchable, [errors]) if value is too big. */
  checkPayload(name, value, what) {
    const size = payloadBytes(value);
    if (size <= limits.statePayloadBytes) return true;
    finish(this.record, 'FAILED', {
      error: 'States.DataLimitExceeded',
      cause: `The state/task '${name}' ${what} with a size exceeding the maximum number of bytes service limit ` +
        `(${size} > ${limits.statePayloadBytes} bytes).`,
    });
    return false;
  }

  /** One stderr line per library event: `sfn <label> +<ms since the execution started> <Event> <Type>:<State>`. */
  logEvent(event) {
    const info = event.state && this.machine.states.get(event.state.name);
    const state = event.state ? ` ${info ? info.type : event.state.type}:${event.state.name}` : '';
    const parent = event.parentState ? ` ${event.parentState.name}` : '';
    const error = event.Error ? ` ${event.Error}` : '';
    log(`${this.label} +${Math.round(Date.now() - this.record.startDate * 1000)}ms ${event.type}${state}${parent}${error}`);
  }
}

// ---- Map states ------------------------------------------------------------------------

/** ItemsPath (default $) applied to the Map's effective input; throws States.Runtime unless an array. */
async function selectItems(scope, info, input) {
  const items = info.itemsReader ? await evaluate(info.itemsReader, input, scope.record.context) : input;
  if (!Array.isArray(items)) {
    throw terminalError('States.Runtime', `Map state '${info.name}': ItemsPath '${info.def.ItemsPath || '$'}' ` +
      `evaluated to ${truncate(JSON.stringify(items))}, but expected an array`);
  }
  return items;
}

/** One item's input: ItemSelector (or Parameters) over the Map's input, with $$.Map.Item.{Index,Value}. */
function selectItem(scope, info, input, items, index) {
  if (!info.itemSelector) return items[index];
  const context = { ...scope.record.context, Map: { Item: { Index: index, Value: items[index] } } };
  return evaluate(info.itemSelector, input, context);
}

/**
 * Runs worker(index) for index 0..count-1 in order, at most `limit` at once; starts no more once
 * stopped() is true. Resolves when every started worker has settled. Workers must not throw.
 */
async function runPool(count, limit, worker, stopped) {
  let next = 0;
  const lane = async () => {
    while (next < count && !stopped()) await worker(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

/**
 * Inline Map ([map]): each item runs as an iteration inside this execution (a Scope of the
 * ItemProcessor), at most min(MaxConcurrency || inlineMapMaxConcurrency, inlineMapMaxConcurrency)
 * at once. History (in this execution): MapStateStarted, per iteration MapIterationStarted +
 * MapIterationSucceeded|Failed|Aborted, MapStateSucceeded|Failed (+ MapStateEntered/Exited from the
 * event stream: 4 + 2n), plus the iterations' own states. The first failing iteration aborts the
 * others, no further item starts, and the Map fails with that iteration's error.
 * @returns {Promise<Array>} the iterations' outputs in item order
 */
async function runInlineMap(scope, info, input) {
  await scope.barrier(info);
  const items = await selectItems(scope, info, input);
  if (!scope.alive()) throw abortedError();
  const limit = Math.min(info.def.MaxConcurrency || limits.inlineMapMaxConcurrency, limits.inlineMapMaxConcurrency);
  const iterations = new Set();
  const run = {
    stateName: info.name, aborted: false, failure: undefined,
    stopped() { return this.aborted || this.failure !== undefined; },
    fail(err) {
      if (this.stopped()) return;
      this.failure = err;
      for (const iteration of iterations) iteration.abort();
    },
    abort() {
      this.aborted = true;
      for (const iteration of iterations) iteration.abort();
    },
  };
  scope.mapRuns.add(run); // before any event: an event may close the execution, which aborts the run
  scope.append('MapStateStarted', { mapStateStartedEventDetails: { length: items.length } });
  const results = new Array(items.length);
  const iterate = async (index) => {
    let itemInput;
    try {
      itemInput = await selectItem(scope, info, input, items, index);
    } catch (err) {
      return run.fail(err);
    }
    if (run.stopped()) return undefined;
    const iteration = new Scope(scope.record, info.processor, `${scope.label}/${info.name}[${index}]`);
    const details = (key) => ({ [key]: { name: info.name, index } });
    iterations.add(iteration);
    scope.append('MapIterationStarted', details('mapIterationStartedEventDetails'));
    try {
      results[index] = await iteration.run(itemInput);
      scope.append('MapIterationSucceeded', details('mapIterationSucceededEventDetails'));
    } catch (err) {
      if (iteration.aborted || err instanceof ExecutionAbortedError) {
        scope.append('MapIterationAborted', details('mapIterationAbortedEventDetails'));
      } else {
        scope.append('MapIterationFailed', details('mapIterationFailedEventDetails'));
        run.fail(innerError(err));
      }
    } finally {
      iterations.delete(iteration);
    }
    return undefined;
  };
  try {
    await runPool(items.length, limit, iterate, () => run.stopped() || !scope.alive());
  } finally {
    scope.mapRuns.delete(run);
  }
  if (run.aborted) throw abortedError();
  if (run.failure) {
    scope.append('MapStateFailed', {});
    throw run.failure;
  }
  scope.append('MapStateSucceeded', {});
  return results;
}

/**
 * Distributed Map ([dmap]): a Map Run starts each item as a child execution of the ItemProcessor
 * (own record, history and limits; ARN execution:<stateMachineName>/<Label or state name>:<uuid>),
 * at most min(MaxConcurrency || distributedMapMaxConcurrency, distributedMapMaxConcurrency) at once.
 * Failure tolerance: ToleratedFailureCount / ToleratedFailurePercentage (of all items); with neither,
 * no failure is tolerated. A child FAILED, TIMED_OUT or ABORTED is a failure; once failures exceed
 * the tolerance the Map Run fails: running children are aborted, no further item starts, and the
 * state fails with States.ExceedToleratedFailureThreshold.
 * History (in this execution): MapStateStarted, MapRunStarted, MapRunSucceeded|Failed,
 * MapStateSucceeded|Failed (+ MapStateEntered/Exited from the event stream: 6).
 * @returns {Promise<Array>} per item in order: the child's output, or {Error, Cause} of a tolerated
 *   failed child (Error = the child's status when it has no error, e.g. "ABORTED")
 */
async function runDistributedMap(scope, info, input) {
  await scope.barrier(info);
  const items = await selectItems(scope, info, input);
  if (!scope.alive()) throw abortedError();
  const parent = scope.record;
  const { partition, region, account } = parent.arnParts;
  const childMachineName = `${parent.stateMachineName}/${info.label}`;
  const state = info.def;
  const mapRun = {
    mapRunArn: `arn:${partition}:states:${region}:${account}:mapRun:${childMachineName}:${crypto.randomUUID()}`,
    executionArn: parent.executionArn,
    stateMachineArn: `arn:${partition}:states:${region}:${account}:stateMachine:${childMachineName}`,
    stateMachineName: childMachineName,
    stateName: info.name,
    status: 'RUNNING', startDate: now(), stopDate: undefined, failure: undefined,
    maxConcurrency: state.MaxConcurrency || 0,
    toleratedFailureCount: state.ToleratedFailureCount || 0,
    toleratedFailurePercentage: state.ToleratedFailurePercentage || 0,
    total: items.length, failed: 0,
    /** Child ExecutionRecords in start order. */
    children: [],
    abort() { closeMapRun(this, 'ABORTED'); },
  };
  mapRuns.set(mapRun.mapRunArn, mapRun);
  scope.mapRuns.add(mapRun); // before any event: an event may close the execution, which aborts the run
  if (scope.append('MapStateStarted', { mapStateStartedEventDetails: { length: items.length } })) {
    scope.append('MapRunStarted', { mapRunStartedEventDetails: { mapRunArn: mapRun.mapRunArn } });
  }
  log(`${scope.label} ${info.name}: Map Run ${mapRun.mapRunArn} over ${items.length} item(s)`);

  const denied = await mapRunDenial(parent, childMachineName);
  if (denied) {
    closeMapRun(mapRun, 'FAILED', taskError('States.Runtime', denied));
    scope.mapRuns.delete(mapRun);
    if (scope.append('MapRunFailed', { mapRunFailedEventDetails: { error: 'States.Runtime', cause: denied } })) {
      scope.append('MapStateFailed', {});
    }
    throw mapRun.failure;
  }
  const limit = Math.min(state.MaxConcurrency || limits.distributedMapMaxConcurrency, limits.distributedMapMaxConcurrency);
  const results = new Array(items.length);
  const runItem = async (index) => {
    let childInput;
    try {
      childInput = await selectItem(scope, info, input, items, index);
    } catch (err) {
      return closeMapRun(mapRun, 'FAILED', err);
    }
    if (mapRun.status !== 'RUNNING') return undefined;
    const name = crypto.randomUUID();
    const child = startExecution({
      executionArn: `arn:${partition}:states:${region}:${account}:execution:${childMachineName}:${name}`,
      stateMachineArn: mapRun.stateMachineArn, stateMachineName: childMachineName, name,
      label: `${childMachineName}:${name.slice(0, 8)}`,
      machine: info.processor, input: childInput, inputText: JSON.stringify(childInput),
      arnParts: parent.arnParts, roleArn: parent.roleArn, principal: parent.principal, mapRunArn: mapRun.mapRunArn,
    });
    mapRun.children.push(child);
    await child.done;
    if (child.status === 'SUCCEEDED') {
      results[index] = JSON.parse(child.output);
      return undefined;
    }
    results[index] = { Error: child.error || child.status, ...(child.cause !== undefined && { Cause: child.cause }) };
    if (mapRun.status !== 'RUNNING') return undefined; // aborted by the Map Run itself
    mapRun.failed += 1;
    if (exceedsTolerance(mapRun.failed, items.length, state)) {
      closeMapRun(mapRun, 'FAILED', taskError('States.ExceedToleratedFailureThreshold',
        `The specified tolerated failure threshold was exceeded: ${mapRun.failed} of ${items.length} item(s) failed ` +
        `(ToleratedFailureCount ${state.ToleratedFailureCount ?? '-'}, ToleratedFailurePercentage ` +
        `${state.ToleratedFailurePercentage ?? '-'}; Map Run ${mapRun.mapRunArn})`));
    }
    return undefined;
  };
  try {
    await runPool(items.length, limit, runItem, () => mapRun.status !== 'RUNNING' || !scope.alive());
  } finally {
    scope.mapRuns.delete(mapRun);
  }
  if (!scope.alive()) closeMapRun(mapRun, 'ABORTED');
  if (mapRun.status === 'RUNNING') {
    Object.assign(mapRun, { status: 'SUCCEEDED', stopDate: now() });
    if (scope.append('MapRunSucceeded', {})) scope.append('MapStateSucceeded', {});
    return results;
  }
  if (mapRun.status === 'ABORTED') {
    scope.append('MapRunAborted', {});
    throw abortedError();
  }
  const failure = { error: mapRun.failure.name, cause: mapRun.failure.message };
  if (scope.append('MapRunFailed', { mapRunFailedEventDetails: failure })) scope.append('MapStateFailed', {});
  throw mapRun.failure;
}

/**
 * What the execution role of `parent` must be allowed for a Distributed Map to run child executions
 * (docs.aws.amazon.com/step-functions/latest/dg/iam-policies-eg-dist-map.html): states:StartExecution on
 * the state machine, states:DescribeExecution and states:StopExecution on its child executions
 * (execution:<machine>/<label>:<name>). Asked of the Lambda host's IAM (one evaluator, in Java).
 * @returns {Promise<string|undefined>} AWS's denial message of the first refused action, or undefined
 *   when all are allowed or the execution has no principal (IAM not configured)
 */
async function mapRunDenial(parent, childMachineName) {
  if (!parent.principal) return undefined;
  const { partition, region, account } = parent.arnParts;
  const root = parent.stateMachineArn.replace(/\/.*$/, ''); // a child's machine is <root>/<label>
  const child = `arn:${partition}:states:${region}:${account}:execution:${childMachineName}:${crypto.randomUUID()}`;
  for (const [action, resource] of [['states:StartExecution', root], ['states:DescribeExecution', child],
    ['states:StopExecution', child]]) {
    const answer = await iamCheck({ principal: parent.principal, action, resource, session: parent.principal });
    if (answer.denied) return answer.denied;
  }
  return undefined;
}

/** POST {lambdaEndpoint}/richter-local/iam/check -> {denied: message|null}. */
function iamCheck(question) {
  const url = new URL(`${lambdaEndpoint}/richter-local/iam/check`);
  const body = JSON.stringify(question);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (err) {
            reject(taskError('States.Runtime', `IAM check failed: ${err.message}`));
          }
        });
      });
    req.on('error', (err) => reject(taskError('States.Runtime', `IAM check failed: ${err.message}`)));
    req.end(body);
  });
}

/** Ends a RUNNING Map Run as FAILED (with `failure`) or ABORTED; aborts its running children. */
function closeMapRun(mapRun, status, failure) {
  if (mapRun.status !== 'RUNNING') return;
  Object.assign(mapRun, { status, failure, stopDate: now() });
  for (const child of mapRun.children) finish(child, 'ABORTED', {});
}

/** [dmap] failure threshold: exceeded when failures are more than the count or the percentage of all items. */
function exceedsTolerance(failed, total, state) {
  const count = state.ToleratedFailureCount;
  const percentage = state.ToleratedFailurePercentage;
  if (count === undefined && percentage === undefined) return failed > 0;
  return (count !== undefined && failed > count) || (percentage !== undefined && (failed * 100) / total > percentage);
}

/**
 * DescribeMapRun's counts: {pending, running, succeeded, failed, timedOut, aborted, total,
 * resultsWritten, failuresNotRedrivable, pendingRedrive}; items and child executions are one-to-one.
 */
function mapRunCounts(mapRun) {
  const count = (status) => mapRun.children.filter((child) => child.status === status).length;
  return {
    pending: mapRun.status === 'RUNNING' ? mapRun.total - mapRun.children.length : 0,
    running: count('RUNNING'), succeeded: count('SUCCEEDED'), failed: count('FAILED'),
    timedOut: count('TIMED_OUT'), aborted: count('ABORTED'), total: mapRun.total,
    resultsWritten: 0, failuresNotRedrivable: 0, pendingRedrive: 0,
  };
}

// ---- Lambda ----------------------------------------------------------------------------

/**
 * Lambda Invoke (RequestResponse) of `functionArn` with the JSON text `body` -> the function's result.
 * Throws an ASL error (`name` matched by Retry/Catch, `message` the Cause):
 *   - a function error (header X-Amz-Function-Error): Error = the payload's errorType, Cause = the
 *     payload JSON text, as on AWS;
 *   - an Invoke API error: Lambda.<x-amzn-ErrorType>, but Lambda.AWSLambdaException for AccessDeniedException
 *     (the state machine's role may not invoke it: `principal`, sent as x-richter-principal, is checked by
 *     the Lambda host); an unreachable host: Lambda.SdkClientException;
 *   - a result over statePayloadBytes: States.DataLimitExceeded, which no Retry/Catch matches ([errors]).
 * No HTTP timeout of its own: the Task's TimeoutSeconds (900 s by default) ends it.
 */
function invokeLambda(functionArn, body, principal) {
  const url = new URL(`${lambdaEndpoint}/2015-03-31/functions/${encodeURIComponent(functionArn)}/invocations`);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'X-Amz-Invocation-Type': 'RequestResponse',
        ...(principal && { 'x-richter-principal': principal }),
      },
    }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', (err) => reject(taskError('Lambda.SdkClientException', err.message)));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        if (res.statusCode < 200 || res.statusCode > 299) {
          const type = String(res.headers['x-amzn-errortype'] || 'ServiceException').split(':')[0];
          if (type === 'AccessDeniedException') {
            // Step Functions' Lambda client has no AccessDeniedException type: the Task fails with
            // Lambda.AWSLambdaException and a Cause in the Java SDK's form
            let message = text;
            try { message = JSON.parse(text).Message || text; } catch { /* not JSON: the text itself */ }
            return reject(taskError('Lambda.AWSLambdaException', `${message} (Service: AWSLambda; Status Code: ${res.statusCode}; ` +
              `Error Code: AccessDeniedException; Request ID: ${res.headers['x-amzn-requestid'] || ''}; Proxy: null)`));
          }
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
        if (bytes.length > limits.statePayloadBytes) {
          return reject(dataLimitError(`The state/task '${functionArn}' returned a result with a size exceeding ` +
            `the maximum number of bytes service limit (${bytes.length} > ${limits.statePayloadBytes} bytes).`));
        }
        return resolve(result);
      });
    });
    req.on('error', (err) => reject(taskError('Lambda.SdkClientException', `Unable to invoke ${functionArn}: ${err.message}`)));
    req.end(body);
  });
}

// ---- errors and helpers ----------------------------------------------------------------

/** An ASL error: `name` is matched by Retry/Catch, `message` is its Cause. */
function taskError(name, cause) {
  const error = new Error(cause);
  error.name = name;
  return error;
}

/** An error no Retry or Catch matches, States.ALL included (the library reads these flags). */
function terminalError(name, cause) {
  const error = taskError(name, cause);
  error.isRetryable = false;
  error.isCatchable = false;
  return error;
}

/** [errors] "DataLimitExceeded is a terminal error that can't be caught by the States.ALL error type." */
function dataLimitError(cause) {
  return terminalError('States.DataLimitExceeded', cause);
}

/** What a handler throws when its scope was stopped; nothing records it (the run is over). */
function abortedError() {
  return terminalError('States.Runtime', 'aborted');
}

/** The library wraps a run's failure in ExecutionError; its `cause` is the state's error. */
function innerError(err) {
  return err instanceof ExecutionError && err.cause ? err.cause : err;
}

/** Size of a JSON value as AWS measures payloads: UTF-8 bytes of its JSON text. */
function payloadBytes(value) {
  return Buffer.byteLength(JSON.stringify(value === undefined ? null : value));
}

/** Epoch seconds with millisecond precision, as the real API returns timestamps. */
function now() {
  return Date.now() / 1000;
}

function truncate(text) {
  const s = String(text);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

module.exports = {
  AWS_LIMITS, configure, loadDefinition, startExecution, stopExecution, abortAll, mapRunCounts,
  executions, mapRuns,
};
