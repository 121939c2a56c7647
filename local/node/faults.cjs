'use strict';
// DynamoDB faults on demand for dynalite.cjs (Java side: dev.richter.local.LocalFaults / FaultInjector).
//
// Config (POST /__richter/faults on dynalite.cjs; tables already resolved to physical names by Java):
//   {"seed": "<decimal int64>", "rules": [{"key": "dynamodb.RunsTable.GetItem", "table": "richter-runs" | "*",
//     "operation": "GetItem" | "*", "kind": "throttle" | "internal",
//     "trigger": {"every": true} | {"p": 0.3} | {"nth": 2} | {"from": 3}}]}
// A request matches a rule when its operation (X-Amz-Target DynamoDB_20120810.<Operation>) and one of its tables
// (the body's TableName, or the keys of RequestItems for BatchGetItem/BatchWriteItem) match. Each matching rule counts
// the request (counts start at 0 at every set); the first rule in order whose trigger selects it fires:
//   throttle -> HTTP 400 ProvisionedThroughputExceededException, internal -> HTTP 500 InternalServerError,
// the shapes DynamoDB answers (docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
// @p: decides with unit(seed, key, k) < p, the same function as LocalFaults.unit in Java.
const fs = require('node:fs');
const zlib = require('node:zlib');

const ERRORS = {
  throttle: {
    status: 400,
    body: {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: 'The level of configured provisioned throughput for the table was exceeded. ' +
        'Consider increasing your provisioning level with the UpdateTable API.',
    },
  },
  internal: {
    status: 500,
    body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
  },
};

/** MurmurHash3's 32-bit finalizer on int32 (Java's int arithmetic). */
function mix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/**
 * A number in [0, 1) from seed (decimal string or BigInt, int64), rule key and call number k (1-based): FNV-1a of the
 * key's UTF-16 units mixed with both 32-bit halves of seed and k. Equals LocalFaults.unit(seed, key, k) in Java.
 */
function unit(seed, key, k) {
  const s = BigInt(seed);
  const seedLo = Number(BigInt.asIntN(32, s));
  const seedHi = Number(BigInt.asIntN(32, s >> 32n));
  const kLo = Number(BigInt.asIntN(32, BigInt(k)));
  const kHi = Number(BigInt.asIntN(32, BigInt(k) >> 32n));
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h = mix32(h ^ mix32(seedLo ^ mix32(seedHi)));
  h = mix32(h ^ mix32(kLo ^ mix32((kHi + 0x9e3779b9) | 0)));
  return (h >>> 0) / 4294967296;
}

/** Whether the k-th matching call fires under `trigger`. */
function selects(trigger, k, seed, key) {
  if (trigger.every) return true;
  if (trigger.p !== undefined) return unit(seed, key, k) < trigger.p;
  if (trigger.nth !== undefined) return k === trigger.nth;
  return k >= trigger.from;
}

/** Throws naming the rule when `config` is not the shape above. */
function validate(config) {
  if (!config || typeof config !== 'object' || !Array.isArray(config.rules)) throw new Error('expected {"seed", "rules": [...]}');
  try {
    BigInt(config.seed === undefined ? 0 : config.seed);
  } catch {
    throw new Error(`seed: not an integer: ${config.seed}`);
  }
  const keys = new Set();
  for (const r of config.rules) {
    const name = r && r.key ? r.key : JSON.stringify(r);
    if (!r || typeof r.key !== 'string' || typeof r.table !== 'string' || typeof r.operation !== 'string') {
      throw new Error(`rule ${name}: key, table and operation are required strings`);
    }
    if (keys.has(r.key)) throw new Error(`rule ${name}: given twice`);
    keys.add(r.key);
    if (!ERRORS[r.kind]) throw new Error(`rule ${name}: kind must be throttle or internal, was ${r.kind}`);
    const t = r.trigger || {};
    const ok = t.every === true || (typeof t.p === 'number' && t.p >= 0 && t.p <= 1) ||
      (Number.isInteger(t.nth) && t.nth >= 1) || (Number.isInteger(t.from) && t.from >= 1);
    if (!ok) throw new Error(`rule ${name}: trigger must be {"every": true}, {"p": 0..1}, {"nth": n>=1} or {"from": n>=1}`);
  }
}

/** The tables a request names: TableName, or RequestItems' keys. */
function tablesOf(body) {
  if (!body || typeof body !== 'object') return [];
  if (typeof body.TableName === 'string') return [body.TableName];
  if (body.RequestItems && typeof body.RequestItems === 'object') return Object.keys(body.RequestItems);
  return [];
}

/**
 * The armed rules and their counts.
 * @param {{logFile?: string, log: (line: string) => void}} options logFile: faults.jsonl path (appended to), or none
 */
function createFaults({ logFile, log }) {
  let seed = '0';
  let rules = [];

  function set(config) {
    validate(config);
    seed = String(config.seed === undefined ? 0 : config.seed);
    rules = config.rules.map((r) => ({ ...r, seen: 0, fired: 0 }));
    log(rules.length ? `faults armed: ${rules.map((r) => r.key).join(', ')}` : 'faults cleared');
  }

  function state() {
    return { seed, rules: rules.map(({ key, table, operation, kind, trigger, seen, fired }) => ({ key, table, operation, kind, trigger, seen, fired })) };
  }

  /** Whether some rule could match `operation` (the body need not be read otherwise). */
  function concerns(operation) {
    return rules.some((r) => r.operation === '*' || r.operation === operation);
  }

  /**
   * Counts one request against every matching rule; returns {rule, table} of the one that fires (its fired count
   * incremented, its faults.jsonl line written and logged), or null.
   */
  function decide(operation, body) {
    const tables = tablesOf(body);
    let chosen = null;
    for (const r of rules) {
      if (r.operation !== '*' && r.operation !== operation) continue;
      const table = r.table === '*' ? (tables[0] === undefined ? '' : tables[0]) : tables.find((t) => t === r.table);
      if (table === undefined) continue;
      r.seen += 1;
      if (!chosen && selects(r.trigger, r.seen, seed, r.key)) chosen = { rule: r, table };
    }
    if (!chosen) return null;
    const { rule, table } = chosen;
    rule.fired += 1;
    const line = { atMs: Date.now(), component: 'dynamodb', target: table, operation, kind: rule.kind, n: rule.fired, rule: rule.key };
    if (logFile) fs.appendFileSync(logFile, `${JSON.stringify(line)}\n`);
    log(`FAULT injected: dynamodb ${table} ${operation} ${rule.kind} (rule ${rule.key}, n=${rule.fired})`);
    return chosen;
  }

  return { set, state, concerns, decide };
}

/** Sends the DynamoDB error of `kind` as dynalite sends its own (JSON 1.0, request id, CRC32). */
function sendError(res, kind, contentType) {
  const { status, body } = ERRORS[kind];
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType || 'application/x-amz-json-1.0');
  res.setHeader('x-amzn-RequestId', `RICHTERFAULT${Date.now()}`);
  if (zlib.crc32) res.setHeader('x-amz-crc32', String(zlib.crc32(text)));
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

module.exports = { createFaults, unit, sendError, ERRORS };
