/**
 * Mixed load on one real server (`startServer`, port 0, a temporary workspace): 20 sessions make small calls
 * (get_layer_bounds / set_layer_opacity on 400 × 300 documents, a short pause between calls) and the health check
 * is polled, first with nothing else running (idle), then while 3 other sessions run heavy calls back to back —
 * gaussian_blur on 8000², PSD save of a 9000 × 18000 marker, the garment flow (identify → preview → apply →
 * verify) on synthetic pieces and photo. The small calls and health checks come from a separate Node process, so
 * their latencies are what a client sees, not shares of the server's own event loop. Target: the small calls'
 * p99 under heavy load ≤ 10× their idle p99, and no request refused or reset.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { startServer } from '../src/server/server.js';
import { DOC, garmentPhoto, NAMES, type PieceKey, piecePng } from '../test/support/garment-fixtures.js';
import { postJson } from './util.js';

const SMALL_SESSIONS = 20;
const IDLE_MS = 8_000;
const LOADED_MS = 25_000;
/** Between two small calls of one session: people and models pause, they do not hammer. */
const SMALL_PAUSE_MS = 20;
const HEALTH_EVERY_MS = 100;

/** The light clients, run as `node --input-type=module -e`; prints the latencies of both phases. */
const CLIENT_SCRIPT = `
import http from 'node:http';
const { base, sessions, pauseMs, healthEveryMs } = JSON.parse(process.env.LOAD_SPEC);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const send = (method, path, body) => new Promise((resolve) => {
  const url = new URL(base + path);
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, agent,
    headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d) => { text += d; });
    res.on('end', () => resolve({ status: res.statusCode, text }));
  });
  req.on('error', (err) => resolve({ status: 0, text: String(err.code ?? err) }));
  req.end(body);
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let phase = null;
const figures = {};
const record = (kind, ms, ok) => {
  if (!phase) return;
  const f = (figures[phase] ??= { small: [], health: [], errors: [] });
  f[kind].push(ms);
  if (ok !== true) f.errors.push(kind + ': ' + ok);
};
let running = true;
const small = async (id, i) => {
  for (let n = 0; running; n++) {
    const call = n % 2
      ? { name: 'set_layer_opacity', arguments: { name: 'a', opacity: 10 + ((n + i) % 90) } }
      : { name: 'get_layer_bounds', arguments: { name: 'a' } };
    const t0 = performance.now();
    const r = await send('POST', '/v1/sessions/' + id + '/tool-calls', JSON.stringify({ tool_calls: [call] }));
    const ok = r.status === 200 && JSON.parse(r.text).messages[0].content.includes('"ok":true') ? true : r.status + ' ' + r.text.slice(0, 120);
    record('small', performance.now() - t0, ok);
    await sleep(pauseMs);
  }
};
const health = async () => {
  while (running) {
    const t0 = performance.now();
    const r = await send('GET', '/v1/health');
    record('health', performance.now() - t0, r.status === 200 ? true : r.status + ' ' + r.text.slice(0, 120));
    await sleep(healthEveryMs);
  }
};
process.stdin.setEncoding('utf8');
let input = '';
process.stdin.on('data', (d) => {
  input += d;
  let nl;
  while ((nl = input.indexOf('\\n')) >= 0) {
    const cmd = input.slice(0, nl).trim();
    input = input.slice(nl + 1);
    if (cmd === 'stop') { running = false; phase = null; }
    else phase = cmd;
    process.stdout.write('ack ' + cmd + '\\n');
  }
});
const loops = [health(), ...sessions.map((id, i) => small(id, i))];
await Promise.all(loops);
const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN; };
const out = {};
for (const [name, f] of Object.entries(figures)) {
  out[name] = { count: f.small.length, p50: q(f.small, 0.5), p99: q(f.small, 0.99), max: q(f.small, 1),
    healthCount: f.health.length, healthP99: q(f.health, 0.99), errors: f.errors.length, firstErrors: f.errors.slice(0, 3) };
}
process.stdout.write('result ' + JSON.stringify(out) + '\\n');
agent.destroy();
process.exit(0);
`;

interface Phase {
  count: number;
  p50: number;
  p99: number;
  max: number;
  healthCount: number;
  healthP99: number;
  errors: number;
  firstErrors: string[];
}

type Result = { ok: boolean; error?: unknown; [key: string]: unknown };

export async function benchMixed(): Promise<string[]> {
  const ws = mkdtempSync(join(tmpdir(), 'atelier-bench-mixed-'));
  const server = await startServer({ port: 0, host: '127.0.0.1', workspace: ws, log: () => {} });
  const base = server.url;
  const post = (path: string, body: unknown) => postJson(base, path, body);
  const open = async () => (await post('/v1/sessions', {})).id as string;
  const call = async (id: string, name: string, args: Record<string, unknown> = {}): Promise<Result> => {
    const { messages } = (await post(`/v1/sessions/${id}/tool-calls`, {
      tool_calls: [{ name, arguments: args }],
    })) as { messages: { content: string }[] };
    const result = JSON.parse(messages[0]!.content) as Result;
    if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
    return result;
  };
  const upload = async (id: string, name: string, bytes: Buffer, role?: string) => {
    const query = `name=${encodeURIComponent(name)}${role ? `&role=${role}` : ''}`;
    const res = await fetch(`${base}/v1/sessions/${id}/files?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(bytes),
    });
    if (!res.ok) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
  };

  const lines: string[] = [];
  try {
    const small: string[] = [];
    for (let i = 0; i < SMALL_SESSIONS; i++) {
      const id = await open();
      await call(id, 'create_document', { width: 400, height: 300 });
      await call(id, 'create_layer', { name: 'a' });
      await call(id, 'fill_selection', { color: '#336699' });
      small.push(id);
    }

    // The heavy sessions, set up before the measurement starts.
    const blur = await open();
    await call(blur, 'create_document', { width: 8000, height: 8000 });
    await call(blur, 'create_layer', { name: 'p' });
    await call(blur, 'fill_selection', { color: '#c8503c' });
    await call(blur, 'select_rect', { left: 1000, top: 1000, right: 7000, bottom: 5000 });
    await call(blur, 'fill_selection', { color: '#204060' });
    await call(blur, 'deselect');

    const marker = await open();
    const [pw, ph] = [2000, 3000];
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}"><ellipse cx="${pw / 2}" cy="${ph / 2}" rx="${pw / 2}" ry="${ph / 2}" fill="#c8503c"/></svg>`;
    await upload(marker, 'piece.png', await sharp(Buffer.from(svg)).png().toBuffer());
    await call(marker, 'create_document', { width: 9000, height: 18000, name: 'marker' });
    for (let i = 0; i < 8; i++) {
      await call(marker, 'place_image', { path: 'piece.png', name: `piece-${i}` });
      await call(marker, 'rasterize_layer', { name: `piece-${i}` });
      await call(marker, 'move_layer', {
        name: `piece-${i}`,
        dx: -3500 + (i % 4) * 2200,
        dy: -7500 + Math.floor(i / 4) * 1900,
      });
    }

    const garment = await open();
    await call(garment, 'create_document', {
      width: DOC.width,
      height: DOC.height,
      resolution: DOC.dpi,
      name: '裁片',
    });
    for (const key of ['back', 'right', 'front', 'collar', 'left'] as PieceKey[]) {
      await upload(garment, `piece-${key}.png`, await piecePng(key));
      await call(garment, 'place_image', { path: `piece-${key}.png`, name: NAMES.zh[key] });
    }
    await upload(garment, 'shirt.png', await garmentPhoto('fill'), 'garment');

    const client = spawn(process.execPath, ['--input-type=module', '-e', CLIENT_SCRIPT], {
      env: {
        ...process.env,
        LOAD_SPEC: JSON.stringify({
          base,
          sessions: small,
          pauseMs: SMALL_PAUSE_MS,
          healthEveryMs: HEALTH_EVERY_MS,
        }),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const acks: (() => void)[] = [];
    client.stdout.setEncoding('utf8');
    client.stdout.on('data', (d: string) => {
      out += d;
      for (const _ of d.matchAll(/ack /g)) acks.shift()?.();
    });
    const command = (cmd: string) =>
      new Promise<void>((resolve) => {
        acks.push(resolve);
        client.stdin.write(`${cmd}\n`);
      });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const done = new Promise<void>((resolve) => client.on('exit', () => resolve()));

    await sleep(1000); // connections up, code paths warm
    await command('idle');
    await sleep(IDLE_MS);
    await command('warmup');

    let heavy = true;
    const heavyCalls = { blur: 0, save: 0, garment: 0 };
    const heavyErrors: string[] = [];
    const loop = async (step: () => Promise<void>) => {
      while (heavy) {
        await step().catch((err: unknown) => {
          heavyErrors.push(String(err).slice(0, 200));
          return sleep(500);
        });
      }
    };
    const heavyLoops = [
      loop(async () => {
        await call(blur, 'gaussian_blur', { radius: 12 });
        await call(blur, 'undo');
        heavyCalls.blur++;
      }),
      loop(async () => {
        await call(marker, 'save_document_as', { path: 'marker.psd' });
        heavyCalls.save++;
      }),
      loop(async () => {
        const found = await call(garment, 'identify_pieces');
        await call(garment, 'generate_garment_preview');
        await call(garment, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
        await call(garment, 'verify_pattern_result');
        await call(garment, 'undo');
        heavyCalls.garment++;
      }),
    ];
    await sleep(2000); // every heavy session is inside its first call
    await command('loaded');
    await sleep(LOADED_MS);
    await command('stop');
    heavy = false;
    await Promise.all(heavyLoops);
    await done;
    const result = JSON.parse(out.slice(out.indexOf('result ') + 7)) as Record<string, Phase>;
    const idle = result.idle!;
    const loaded = result.loaded!;
    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    lines.push(
      `mixed: ${SMALL_SESSIONS} sessions of small calls (${SMALL_PAUSE_MS} ms apart) + /v1/health every ${HEALTH_EVERY_MS} ms`,
      `  idle        : small p50 ${f(idle.p50)}, p99 ${f(idle.p99)}, max ${f(idle.max)} (${idle.count} calls); health p99 ${f(idle.healthP99)} (${idle.healthCount}); errors ${idle.errors}`,
      `  3 heavy     : small p50 ${f(loaded.p50)}, p99 ${f(loaded.p99)}, max ${f(loaded.max)} (${loaded.count} calls); health p99 ${f(loaded.healthP99)} (${loaded.healthCount}); errors ${loaded.errors}`,
      `  heavy work done while measured: ${heavyCalls.blur} blur(s) 8000², ${heavyCalls.save} PSD save(s) 9000×18000, ${heavyCalls.garment} garment flow(s)`,
      `  small p99 loaded/idle ${(loaded.p99 / idle.p99).toFixed(1)}× (target ≤ 10×); refused or reset: ${idle.errors + loaded.errors + (result.warmup?.errors ?? 0)} (target 0)`,
    );
    for (const e of heavyErrors.slice(0, 3)) lines.push(`  heavy call failed: ${e}`);
    for (const e of [...idle.firstErrors, ...loaded.firstErrors]) lines.push(`  error: ${e}`);
  } finally {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  }
  return lines;
}
