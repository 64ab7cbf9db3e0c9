#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Test-only fault-injection proxy for the aztables retry tests.
//
// Sits in front of Azurite and, for each request, draws from a seeded PRNG
// (in arrival order, so a sequential client sees the same schedule on every
// run with the same seed) whether to forward it untouched or to inject one
// of these faults:
//
//   status_500 .. status_429        answer with that status instead of forwarding
//   status_429_hint_ms              429 + x-ms-retry-after-ms (Cosmos throttling)
//   status_503_retry_after_ms       503 + retry-after-ms
//   status_503_retry_after_s        503 + Retry-After: <seconds>
//   status_503_retry_after_date     503 + Retry-After: <HTTP date>
//   applied_500, applied_503        forward (the write IS applied), then answer 500/503
//   reset_before                    reset the connection without forwarding
//   reset_after                     forward, wait for the answer, then reset the connection
//   stall_before                    never forward; hold the connection past the client timeout
//   stall_after                     forward, then hold the answer past the client timeout
//   truncate                        forward, send the answer cut short, close
//
// Usage:
//   node fault_proxy.js --target http://127.0.0.1:PORT --seed N [--rate 0.3]
//        [--stall-ms 1000] [--weights kind=w,kind=w,...] [--log FILE]
// Prints "listening <port>" on stdout when ready (it binds a free port).
// Control (never faulted, never consumes a random draw):
//   GET  /__proxy/stats              JSON counters
//   POST /__proxy/rate?value=0.3     change the fault rate (0 = plain proxy)
'use strict';

const http = require('http');
const fs = require('fs');

function parseArgs(argv) {
  const a = { rate: 0.3, seed: 1, stallMs: 1000, weights: '', target: '', log: '' };
  for (let i = 2; i < argv.length; i += 2) {
    const k = argv[i], v = argv[i + 1];
    if (v === undefined) throw new Error(`missing value for ${k}`);
    if (k === '--target') a.target = v;
    else if (k === '--seed') a.seed = Number(v) >>> 0;
    else if (k === '--rate') a.rate = Number(v);
    else if (k === '--stall-ms') a.stallMs = Number(v);
    else if (k === '--weights') a.weights = v;
    else if (k === '--log') a.log = v;
    else throw new Error(`unknown option ${k}`);
  }
  if (!a.target) throw new Error('--target is required');
  return a;
}

// mulberry32: small, fast, good enough for a test schedule; fully determined by the seed.
function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEFAULT_WEIGHTS = {
  status_500: 3, status_503: 3, status_504: 2, status_408: 2, status_429: 2,
  status_429_hint_ms: 2, status_503_retry_after_ms: 1, status_503_retry_after_s: 1,
  status_503_retry_after_date: 1, applied_500: 3, applied_503: 1,
  reset_before: 3, reset_after: 4, stall_before: 1, stall_after: 1, truncate: 4,
};

const args = parseArgs(process.argv);
const target = new URL(args.target);
const weights = Object.assign({}, DEFAULT_WEIGHTS);
if (args.weights) {
  for (const kv of args.weights.split(',')) {
    const [k, v] = kv.split('=');
    if (!(k in DEFAULT_WEIGHTS)) throw new Error(`unknown fault kind ${k}`);
    weights[k] = Number(v);
  }
}
const kinds = Object.keys(weights).filter((k) => weights[k] > 0);
const totalWeight = kinds.reduce((s, k) => s + weights[k], 0);
const rand = prng(args.seed);
let rate = args.rate;
const logStream = args.log ? fs.createWriteStream(args.log) : null;

const stats = { requests: 0, forwarded: 0, faults: 0, by_kind: {} };
for (const k of Object.keys(DEFAULT_WEIGHTS)) stats.by_kind[k] = 0;

const upstreamAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function pick() {
  const u = rand();
  const v = rand();  // always two draws per request: the schedule does not depend on the rate's outcome
  if (u >= rate || totalWeight === 0) return null;
  let x = v * totalWeight;
  for (const k of kinds) {
    x -= weights[k];
    if (x < 0) return k;
  }
  return kinds[kinds.length - 1];
}

function forward(req, body) {
  return new Promise((resolve, reject) => {
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (['host', 'connection', 'content-length', 'transfer-encoding', 'expect', 'keep-alive'].includes(k)) continue;
      headers[k] = v;
    }
    headers.host = target.host;
    headers['content-length'] = String(body.length);
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: upstreamAgent },
      (r) => {
        const chunks = [];
        r.on('data', (c) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode, message: r.statusMessage, rawHeaders: r.rawHeaders, body: Buffer.concat(chunks) }));
        r.on('error', reject);
      });
    up.on('error', reject);
    up.end(body);
  });
}

function responseHeaders(up) {
  const out = [];
  for (let i = 0; i < up.rawHeaders.length; i += 2) {
    const k = up.rawHeaders[i].toLowerCase();
    if (['connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(k)) continue;
    out.push([up.rawHeaders[i], up.rawHeaders[i + 1]]);
  }
  out.push(['Content-Length', String(up.body.length)]);
  return out;
}

function relay(res, up) {
  const h = {};
  for (const [k, v] of responseHeaders(up)) {
    if (h[k] === undefined) h[k] = v;
    else h[k] = [].concat(h[k], v);
  }
  res.writeHead(up.status, up.message, h);
  res.end(up.body);
}

const CODES = { 500: 'OperationTimedOut', 503: 'ServerBusy', 504: 'GatewayTimeout', 408: 'RequestTimeout', 429: 'TooManyRequests' };

function answer(res, status, extra) {
  const code = CODES[status] || 'InjectedFault';
  const body = JSON.stringify({ 'odata.error': { code, message: { lang: 'en-US', value: `Injected fault ${status}` } } });
  res.writeHead(status, Object.assign({
    'Content-Type': 'application/json;odata=minimalmetadata;streaming=true;charset=utf-8',
    'x-ms-error-code': code,
    'Content-Length': String(Buffer.byteLength(body)),
  }, extra || {}));
  res.end(body);
}

function reset(socket) {
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

function truncate(socket, up) {
  let head = `HTTP/1.1 ${up.status} ${up.message}\r\n`;
  for (const [k, v] of responseHeaders(up)) head += `${k}: ${v}\r\n`;
  head += '\r\n';
  if (up.body.length >= 2) {
    socket.write(Buffer.concat([Buffer.from(head), up.body.subarray(0, Math.floor(up.body.length / 2))]));
  } else {
    // No body to cut: cut the status line instead (a header block ended by a
    // close would be accepted as complete).
    socket.write(head.substring(0, 11));
  }
  socket.end();
  setTimeout(() => socket.destroy(), 50);
}

function control(req, res) {
  const u = new URL(req.url, 'http://x');
  if (u.pathname === '/__proxy/stats') {
    const body = JSON.stringify(stats);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  } else if (u.pathname === '/__proxy/rate') {
    rate = Number(u.searchParams.get('value'));
    res.writeHead(204);
    res.end();
  } else {
    res.writeHead(404);
    res.end();
  }
}

async function handle(req, res, body) {
  if (req.url.startsWith('/__proxy/')) return control(req, res);
  const n = ++stats.requests;
  const fault = pick();
  if (logStream) logStream.write(`${n} ${req.method} ${req.url} ${fault || '-'}\n`);
  const socket = req.socket;
  if (fault) {
    stats.faults++;
    stats.by_kind[fault]++;
  }
  try {
    switch (fault) {
      case null: {
        const up = await forward(req, body);
        stats.forwarded++;
        return relay(res, up);
      }
      case 'status_500': return answer(res, 500);
      case 'status_503': return answer(res, 503);
      case 'status_504': return answer(res, 504);
      case 'status_408': return answer(res, 408);
      case 'status_429': return answer(res, 429);
      case 'status_429_hint_ms': return answer(res, 429, { 'x-ms-retry-after-ms': '3' });
      case 'status_503_retry_after_ms': return answer(res, 503, { 'retry-after-ms': '2' });
      case 'status_503_retry_after_s': return answer(res, 503, { 'Retry-After': '1' });
      case 'status_503_retry_after_date':
        return answer(res, 503, { 'Retry-After': new Date(Date.now() + 2000).toUTCString() });
      case 'applied_500':
      case 'applied_503': {
        await forward(req, body);
        stats.forwarded++;
        return answer(res, fault === 'applied_500' ? 500 : 503);
      }
      case 'reset_before': return reset(socket);
      case 'reset_after': {
        await forward(req, body);
        stats.forwarded++;
        return reset(socket);
      }
      case 'stall_before': {
        setTimeout(() => socket.destroy(), args.stallMs);
        return;
      }
      case 'stall_after': {
        await forward(req, body);
        stats.forwarded++;
        setTimeout(() => socket.destroy(), args.stallMs);
        return;
      }
      case 'truncate': {
        const up = await forward(req, body);
        stats.forwarded++;
        return truncate(socket, up);
      }
      default: throw new Error(`unhandled fault ${fault}`);
    }
  } catch (e) {
    if (logStream) logStream.write(`${n} upstream error ${e.message}\n`);
    socket.destroy();
  }
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => { handle(req, res, Buffer.concat(chunks)); });
});
server.keepAliveTimeout = 30000;
server.on('clientError', (err, socket) => socket.destroy());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
const stop = () => {
  if (logStream) logStream.end();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
