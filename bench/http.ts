/**
 * Tool calls over HTTP on loopback — query calls and small edits, one call per request — against a bare
 * hello-world route of the same framework (hono on @hono/node-server) measured in the same run, and the same
 * calls in-process. The load comes from a separate Node process (keep-alive connections, fixed concurrency),
 * so the server's event loop is not shared with the client's. Target: the tool-call route at least half the
 * hello-world throughput.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { Session } from '../src/calls/session.js';
import { startServer } from '../src/server/server.js';
import { microsPerCall, scratchDir } from './util.js';

const CONCURRENCY = 16;
const WARMUP_MS = 400;
const DURATION_MS = 1500;
/** Runs are interleaved and each figure is the best of its rounds, so a burst of other load on the machine
 * does not land on one side of the comparison only. */
const ROUNDS = 5;

/** The load generator, run as `node --input-type=module -e`: one keep-alive worker per connection. */
const LOAD_SCRIPT = `
import http from 'node:http';
const { targets, concurrency, warmupMs, durationMs } = JSON.parse(process.env.LOAD_SPEC);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const send = (t) => new Promise((resolve) => {
  const url = new URL(t.url);
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: t.method, agent,
    headers: t.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(t.body) } : {} }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode === 200));
  });
  req.on('error', () => resolve(false));
  req.end(t.body);
});
const latencies = [];
let errors = 0;
let total = 0;
const start = performance.now();
const measureFrom = start + warmupMs;
const end = measureFrom + durationMs;
await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
  const t = targets[w % targets.length];
  for (;;) {
    const t0 = performance.now();
    if (t0 >= end) return;
    const ok = await send(t);
    const t1 = performance.now();
    total++;
    if (t0 >= measureFrom) { latencies.push(t1 - t0); if (!ok) errors++; }
  }
}));
latencies.sort((a, b) => a - b);
const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
process.stdout.write(JSON.stringify({ count: latencies.length, total, errors, rps: latencies.length / (durationMs / 1000), p50: q(0.5), p99: q(0.99) }));
agent.destroy();
`;

interface Target {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
}

interface LoadResult {
  count: number;
  /** Requests including the warm-up. */
  total: number;
  /** This (the server's) process's CPU time per request over the whole run, in µs. */
  cpuMicros: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

function load(targets: Target[]): Promise<LoadResult> {
  const spec = { targets, concurrency: CONCURRENCY, warmupMs: WARMUP_MS, durationMs: DURATION_MS };
  const cpuBefore = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', LOAD_SCRIPT], {
      env: { ...process.env, LOAD_SPEC: JSON.stringify(spec) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`load generator exited with ${code}`));
        return;
      }
      const cpu = process.cpuUsage(cpuBefore);
      const result = JSON.parse(out) as Omit<LoadResult, 'cpuMicros'>;
      resolve({ ...result, cpuMicros: (cpu.user + cpu.system) / result.total });
    });
  });
}

function call(name: string, args: unknown, id = 'call_1') {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

const fmt = (r: LoadResult) =>
  `${Math.round(r.rps).toLocaleString('en-US')} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms` +
  (r.errors ? `, ${r.errors} ERRORS` : '');

function best(runs: LoadResult[]): LoadResult {
  return runs.reduce((a, b) => (b.rps > a.rps ? b : a));
}

function leastCpu(runs: LoadResult[]): number {
  return Math.min(...runs.map((r) => r.cpuMicros));
}

export async function benchHttp(): Promise<string[]> {
  // The baselines: the same framework and adapter answering a constant (GET), and reading a body first (POST).
  const hello = new Hono();
  hello.get('/hello', (c) => c.text('hello'));
  hello.post('/hello', async (c) => c.json({ bytes: (await c.req.text()).length }));
  const helloServer = createAdaptorServer({ fetch: hello.fetch, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => helloServer.listen(0, '127.0.0.1', resolve));
  const helloUrl = `http://127.0.0.1:${(helloServer.address() as AddressInfo).port}/hello`;

  const server = await startServer({
    port: 0,
    workspace: scratchDir('http'),
    maxSessions: CONCURRENCY + 4,
    log: () => {},
  });
  // One session per connection, each with a small document and a few layers.
  const ids: string[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const res = await fetch(`${server.url}/v1/sessions`, { method: 'POST' });
    const { id } = (await res.json()) as { id: string };
    const setup = [call('create_document', { width: 256, height: 256 })];
    for (const name of ['前片', '后片', '袖子']) setup.push(call('create_layer', { name }));
    await fetch(`${server.url}/v1/sessions/${id}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_calls: setup }),
    });
    ids.push(id);
  }
  const body = (tc: unknown) => JSON.stringify({ tool_calls: [tc] });
  const targetsFor = (tc: unknown): Target[] =>
    ids.map((id) => ({ url: `${server.url}/v1/sessions/${id}/tool-calls`, method: 'POST', body: body(tc) }));
  const query = call('get_layer_bounds', { name: '前片' });
  const edit = call('set_layer_opacity', { name: '后片', opacity: 60 });

  const runs: Record<'hello' | 'helloPost' | 'query' | 'edit', LoadResult[]> = {
    hello: [],
    helloPost: [],
    query: [],
    edit: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    runs.hello.push(await load([{ url: helloUrl, method: 'GET' }]));
    runs.helloPost.push(await load([{ url: helloUrl, method: 'POST', body: body(query) }]));
    runs.query.push(await load(targetsFor(query)));
    runs.edit.push(await load(targetsFor(edit)));
  }
  await server.close();
  await new Promise<void>((resolve) => helloServer.close(() => resolve()));

  // The same calls in-process, one session, one after another.
  const session = new Session({ workspace: scratchDir('http') });
  await session.call(call('create_document', { width: 256, height: 256 }));
  for (const name of ['前片', '后片', '袖子']) await session.call(call('create_layer', { name }));
  const queryInProcess = await microsPerCall(() => session.call(query), 500, 9);
  const editInProcess = await microsPerCall(() => session.call(edit), 500, 9);

  const baseline = best(runs.hello);
  const cpu = (k: keyof typeof runs) => leastCpu(runs[k]);
  const cpuShare = (k: keyof typeof runs) => `${((cpu('hello') / cpu(k)) * 100).toFixed(0)}%`;
  const share = (r: LoadResult) => `${((r.rps / baseline.rps) * 100).toFixed(0)}% of hello-world`;
  const perSecond = (micros: number) => Math.round(1e6 / micros).toLocaleString('en-US');
  return [
    `http: load from a separate process, ${CONCURRENCY} keep-alive connections; best of ${ROUNDS} interleaved ${DURATION_MS / 1000} s runs`,
    `http: hello-world GET (hono + @hono/node-server): ${fmt(baseline)}`,
    `http: hello-world POST (reads the same body): ${fmt(best(runs.helloPost))} — ${share(best(runs.helloPost))}`,
    `http: tool call, query (get_layer_bounds): ${fmt(best(runs.query))} — ${share(best(runs.query))} (target ≥ 50%)`,
    `http: tool call, small edit (set_layer_opacity): ${fmt(best(runs.edit))} — ${share(best(runs.edit))} (target ≥ 50%)`,
    `http: server CPU per request (machine-load independent): hello-world ${cpu('hello').toFixed(0)} µs, POST ${cpu('helloPost').toFixed(0)} µs, query ${cpu('query').toFixed(0)} µs, edit ${cpu('edit').toFixed(0)} µs — capacity ${cpuShare('query')} / ${cpuShare('edit')} of hello-world`,
    `http: same calls in-process: query ${queryInProcess.toFixed(1)} µs/call (${perSecond(queryInProcess)}/s), edit ${editInProcess.toFixed(1)} µs/call (${perSecond(editInProcess)}/s)`,
  ];
}
