/**
 * The native memory a long-running `atelier serve` keeps: the example garment flow (upload a marker and a photo,
 * identify, preview, apply, verify, save) in one session after another, each deleted after its flow, and the
 * serving process' RSS after the first and the last. Run twice in the same run: as `atelier serve` starts itself
 * (two malloc arenas, src/cli/few-arenas.ts) and with glibc's default of eight arenas per core, the baseline.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { serveCli, servingPid } from '../test/support/cli.js';
import { ratio, scratchDir } from './util.js';

const EXAMPLES = fileURLToPath(new URL('../examples/garment/', import.meta.url));
const FLOWS = 16;
const PIECES = ['图层 1', '图层 2', '图层 3', '图层 4'];

const rssMib = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function flow(url: string): Promise<void> {
  const { id } = (await (await fetch(`${url}/v1/sessions`, { method: 'POST' })).json()) as { id: string };
  const base = `${url}/v1/sessions/${id}`;
  for (const [file, role] of [
    ['pieces.psd', ''],
    ['photo-allover.jpg', 'garment'],
  ] as const) {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(EXAMPLES, file))]), file);
    if (role) form.append('role', role);
    const res = await fetch(`${base}/files`, { method: 'POST', body: form });
    if (!res.ok) throw new Error(`upload ${file}: ${res.status}`);
  }
  const calls: [string, Record<string, unknown>][] = [
    ['open_document', { path: 'pieces.psd' }],
    ['identify_pieces', {}],
    ['generate_garment_preview', {}],
    ['extract_and_apply_all_pieces', { pieces: PIECES.map((name) => ({ name, type: 'fill_pattern' })) }],
    ['verify_pattern_result', {}],
    ['save_document_as', { path: 'out.psd' }],
  ];
  for (const [name, args] of calls) {
    const res = await fetch(`${base}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_calls: [{ name, arguments: args }] }),
    });
    const body = (await res.json()) as { messages: { content: string }[] };
    if (!JSON.parse(body.messages[0]!.content).ok) throw new Error(`${name}: ${body.messages[0]!.content}`);
  }
  await fetch(base, { method: 'DELETE' });
}

async function run(env: NodeJS.ProcessEnv) {
  const children: ChildProcess[] = [];
  const { url, child } = await serveCli(scratchDir('rss'), children, env);
  const pid = servingPid(child.pid!);
  try {
    await flow(url);
    const first = rssMib(pid);
    const t = performance.now();
    for (let i = 1; i < FLOWS; i++) await flow(url);
    return { first, last: rssMib(pid), msPerFlow: (performance.now() - t) / (FLOWS - 1) };
  } finally {
    child.kill('SIGTERM');
  }
}

export async function benchServerRss(): Promise<string[]> {
  if (process.platform !== 'linux') return ['server RSS: measured on Linux only (/proc)'];
  const glibcDefault = await run({
    MALLOC_ARENA_MAX: String(8 * availableParallelism()),
    GLIBC_TUNABLES: undefined,
  });
  const own = await run({ MALLOC_ARENA_MAX: undefined, GLIBC_TUNABLES: undefined });
  const line = (what: string, r: typeof own) =>
    `server RSS, ${what}: ${r.first.toFixed(0)} MiB after 1 garment flow, ${r.last.toFixed(0)} MiB after ${FLOWS} (sessions deleted after each), ${(r.msPerFlow / 1000).toFixed(2)} s per flow`;
  return [
    line(`glibc's default arenas (${8 * availableParallelism()}; baseline)`, glibcDefault),
    line('as atelier serve starts (2 arenas)', own),
    `server RSS after ${FLOWS} flows: ${ratio(own.last, glibcDefault.last)} the baseline's; time per flow ${ratio(own.msPerFlow, glibcDefault.msPerFlow)}`,
  ];
}
