'use strict';
// Helpers shared by the local-stack tests: spawn the servers, a fake Lambda Invoke API, an AWS
// JSON 1.0 client for the Step Functions server.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn } = require('node:child_process');

const HERE = path.join(__dirname, '..');
const FN = 'arn:aws:lambda:us-east-1:123456789012:function:';
const SM = 'arn:aws:states:us-east-1:123456789012:stateMachine:';

/** Spawns `node --require ./polyfill.cjs <script> ...` and resolves {child, port} once it prints READY. */
function startServer(script, args, env) {
  const child = spawn(process.execPath, ['--require', './polyfill.cjs', script, ...args], {
    cwd: HERE, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const m = /^READY \w+ (\d+)$/m.exec(String(chunk));
      if (m) resolve({ child, port: Number(m[1]), stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited ${code}: ${stderr}`)));
  });
}

/** SIGTERM; resolves with the exit code (or signal). */
function stopServer(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code, signal) => resolve(signal || code));
    child.kill('SIGTERM');
  });
}

/**
 * A fake Lambda Invoke API on a free port. `functions`: name -> (event) => result (or a Promise);
 * a thrown value is answered as a function error payload (X-Amz-Function-Error).
 * @returns {Promise<http.Server>} listening; its URL is `http://127.0.0.1:${server.address().port}`
 */
async function startFakeLambda(functions) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const name = decodeURIComponent(req.url.split('/')[3]).split(':').pop();
      try {
        const result = await functions[name](JSON.parse(body));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(result));
      } catch (payload) {
        res.writeHead(200, { 'X-Amz-Function-Error': 'Unhandled' }).end(JSON.stringify(payload));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * Writes one ASL file per definition and the server config to `dir`.
 * @param {string} dir
 * @param {object} definitions name -> ASL (the state machine ARN is SM + name)
 * @param {object} extra more config keys (e.g. limits)
 * @returns {string} the config file path
 */
function writeConfig(dir, definitions, extra = {}, substitutions = {}) {
  const stateMachines = Object.entries(definitions).map(([name, definition]) => {
    const definitionFile = path.join(dir, `${name}.asl.json`);
    fs.writeFileSync(definitionFile, JSON.stringify(definition));
    return { arn: SM + name, definitionFile, definitionSubstitutions: substitutions };
  });
  const file = path.join(dir, `sfn-${Object.keys(definitions).join('-').slice(0, 40)}.json`);
  fs.writeFileSync(file, JSON.stringify({ stateMachines, ...extra }));
  return file;
}

/** AWS JSON 1.0 client of the SFN server on `port`. */
function sfnClient(port) {
  async function call(op, body) {
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'X-Amz-Target': `AWSStepFunctions.${op}`, 'Content-Type': 'application/x-amz-json-1.0' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  /** Polls DescribeExecution until the execution is closed (10 s at most). */
  async function finished(executionArn) {
    for (let i = 0; i < 100; i++) {
      const { body } = await call('DescribeExecution', { executionArn });
      if (body.status !== 'RUNNING') return body;
      await sleep(100);
    }
    throw new Error(`${executionArn} still RUNNING`);
  }

  /** StartExecution and wait for the end; returns DescribeExecution's answer. */
  async function runToEnd(stateMachine, input) {
    const start = await call('StartExecution', { stateMachineArn: SM + stateMachine, input: JSON.stringify(input) });
    if (start.status !== 200) throw new Error(`StartExecution ${stateMachine}: ${JSON.stringify(start.body)}`);
    return finished(start.body.executionArn);
  }

  /** All events of GetExecutionHistory, following nextToken. */
  async function history(executionArn) {
    const events = [];
    let nextToken;
    do {
      const { status, body } = await call('GetExecutionHistory', { executionArn, maxResults: 1000, nextToken });
      if (status !== 200) throw new Error(`GetExecutionHistory: ${JSON.stringify(body)}`);
      events.push(...body.events);
      nextToken = body.nextToken;
    } while (nextToken);
    return events;
  }

  return { call, finished, runToEnd, history };
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

module.exports = { HERE, FN, SM, startServer, stopServer, startFakeLambda, writeConfig, sfnClient, sleep };
