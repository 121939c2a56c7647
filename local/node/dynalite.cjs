'use strict';
// DynamoDB for the local stack: dynalite 4.0.0 on 127.0.0.1.
//
//   node --require ./polyfill.cjs dynalite.cjs [--port 4567] [--host 127.0.0.1] [--path DIR] [--faults-log FILE]
//
// In memory unless --path names a LevelDB directory. Prints exactly one line
// `READY dynamodb <port>` on stdout once listening (--port 0 picks a free port and prints it).
// SIGTERM/SIGINT close the server and exit 0. Table/item semantics are dynalite's: no
// transactions, PartiQL or TTL expiry (DESIGN.md §8).
//
// Faults on demand (faults.cjs; armed from Java by dev.richter.local.FaultInjector), none until set:
//   POST /__richter/faults  body {"seed", "rules": [...]} (faults.cjs's header): replaces every rule, counts back
//                           to 0; answers 200 and the state below, or 400 {"error", "message"} naming the bad rule;
//   GET  /__richter/faults  200 {"seed", "rules": [{"key", "table", "operation", "kind", "trigger", "seen", "fired"}]}
//                           (seen: requests the rule matched, fired: faults it injected, since the last POST).
// Only from loopback (403 otherwise). A fired fault answers as DynamoDB does (throttle: 400
// ProvisionedThroughputExceededException, internal: 500 InternalServerError), is logged on stderr
// (`dynalite: FAULT injected: ...`) and appended as one JSON line to --faults-log (the stack's faults.jsonl):
//   {"atMs", "component": "dynamodb", "target": <table>, "operation", "kind", "n": <rule's fired count>, "rule": <key>}
// written before the answer is sent. Requests no rule concerns go to dynalite untouched.
const { PassThrough } = require('node:stream');
const dynalite = require('dynalite');
const { createFaults, sendError } = require('./faults.cjs');

const CONTROL_PATH = '/__richter/faults';
const args = parseArgs(process.argv.slice(2), { port: '4567', host: '127.0.0.1', path: '', 'faults-log': '' });
const port = Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`bad --port: ${args.port}`);

const options = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
if (args.path) options.path = args.path;
const server = dynalite(options);
const faults = createFaults({ logFile: args['faults-log'], log: (line) => process.stderr.write(`dynalite: ${line}\n`) });
const dynaliteHandler = server.listeners('request')[0];
server.removeAllListeners('request');
server.on('request', (req, res) => {
  if (req.url.split('?')[0] === CONTROL_PATH) return control(req, res);
  const operation = String(req.headers['x-amz-target'] || '').split('.')[1] || '';
  if (!faults.concerns(operation)) return dynaliteHandler(req, res);
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    let parsed;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined; // dynalite answers the SerializationException
    }
    const fired = faults.decide(operation, parsed);
    if (fired) return sendError(res, fired.rule.kind, String(req.headers['content-type'] || '').split(';')[0].trim());
    // hand dynalite a replay of the body it would have read from the socket
    const replay = new PassThrough();
    Object.assign(replay, { headers: req.headers, method: req.method, url: req.url, socket: req.socket, connection: req.socket });
    dynaliteHandler(replay, res);
    replay.end(body);
  });
});

/** The fault control endpoint (loopback only). */
function control(req, res) {
  const reply = (status, doc) => {
    const text = JSON.stringify(doc);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
  };
  const from = req.socket.remoteAddress || '';
  if (!/^(127\.|::1$|::ffff:127\.)/.test(from)) {
    req.resume();
    return reply(403, { error: 'Forbidden', message: `${CONTROL_PATH} answers loopback only, not ${from}` });
  }
  if (req.method === 'GET') {
    req.resume();
    return reply(200, faults.state());
  }
  if (req.method !== 'POST') {
    req.resume();
    return reply(405, { error: 'MethodNotAllowed', message: `${CONTROL_PATH}: GET or POST` });
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      faults.set(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch (err) {
      return reply(400, { error: 'BadFaults', message: err.message });
    }
    return reply(200, faults.state());
  });
}

server.on('error', (err) => fail(`dynalite: ${err.message}`));
server.listen(port, args.host, () => {
  process.stdout.write(`READY dynamodb ${server.address().port}\n`);
});

let stopping = false;
function stop(signal) {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`dynalite: ${signal}, shutting down\n`);
  // Keep-alive connections from SDK clients would hold server.close() open: drop them.
  server.close(() => process.exit(0));
  if (server.closeAllConnections) server.closeAllConnections();
  setTimeout(() => process.exit(0), 3000).unref();
}
// dynalite rethrows a request stream's 'error' (index.js: req.on('error', err => { throw err })),
// so one client that aborts a request mid-body (an SDK call interrupted by its thread, a timeout)
// would take the whole emulator down. Such errors concern that one connection only: log and go on.
process.on('uncaughtException', (err) => {
  if (err && (err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.message === 'aborted')) {
    process.stderr.write(`dynalite: client connection dropped (${err.code || err.message}); continuing\n`);
    return;
  }
  process.stderr.write(`dynalite: fatal: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

/** `--name value` pairs over defaults; unknown names are an error. */
function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '');
    if (!argv[i].startsWith('--') || !(name in defaults) || argv[i + 1] === undefined) {
      fail(`usage: dynalite.cjs ${Object.keys(defaults).map((k) => `[--${k} V]`).join(' ')}`);
    }
    out[name] = argv[i + 1];
  }
  return out;
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
