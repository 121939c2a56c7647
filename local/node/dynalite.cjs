'use strict';
// DynamoDB for the local stack: dynalite 4.0.0 on 127.0.0.1.
//
//   node --require ./polyfill.cjs dynalite.cjs [--port 4567] [--host 127.0.0.1] [--path DIR]
//
// In memory unless --path names a LevelDB directory. Prints exactly one line
// `READY dynamodb <port>` on stdout once listening (--port 0 picks a free port and prints it).
// SIGTERM/SIGINT close the server and exit 0. Table/item semantics are dynalite's: no
// transactions, PartiQL or TTL expiry (DESIGN.md §8).
const dynalite = require('dynalite');

const args = parseArgs(process.argv.slice(2), { port: '4567', host: '127.0.0.1', path: '' });
const port = Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`bad --port: ${args.port}`);

const options = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
if (args.path) options.path = args.path;
const server = dynalite(options);

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
