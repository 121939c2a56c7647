'use strict';
// Answers every AWS JSON-protocol call (EventBridge PutEvents, ...) with a success that names no failed entry, on
// 127.0.0.1:<ephemeral>. Prints `READY stub <port>`.
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ FailedEntryCount: 0, Entries: [{ EventId: 'bench' }] }));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`READY stub ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
