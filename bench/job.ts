/**
 * A whole job as a model would run it, through Session.call, beside ImageMagick doing the same work in the same
 * run (issue 13): a 4000² document, ten layers each made by create_layer, select_rect, fill_selection,
 * set_layer_blend_mode and deselect, then gaussian_blur and adjust_levels on the last one, saved as a layered
 * PSD and as a PNG (55 calls). ImageMagick builds the same ten layers (the last blurred and levelled with its
 * transparent surroundings), composites them with the same blend modes, and writes the PNG and a layered PSD
 * (it keeps no blend modes in the PSD) in one `convert` process. The two composites agree (mean absolute error
 * 0.2 % of full scale when last compared). Not the same work in one respect: ImageMagick (Q16) writes its PSD
 * with 16 bits per channel, uncompressed (554 MiB against our 6.9 MiB RLE); asking for `-depth 8` or
 * `-compress RLE` makes it exceed Debian's policy.xml pixel-cache limits (1 GiB disk) on this job.
 *
 * Printed: the job's median time, ImageMagick's, their ratio, and the share of the selection calls
 * (select_rect, fill_selection, deselect) in the job's time — the part that should cost what it covers.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Session } from '../src/calls/session.js';
import { median, ratio } from './util.js';

const SIZE = 4000;
const RUNS = 3;
const CONVERT = '/usr/bin/convert';
const BLUR_RADIUS = 10;
const LEVELS = { black: 20, gamma: 1.2, white: 230 };
const SELECTION_TOOLS = new Set(['select_rect', 'fill_selection', 'deselect']);

/** Our blend-mode names and ImageMagick's compose operators for them. */
const MODES: readonly [string, string][] = [
  ['multiply', 'Multiply'],
  ['screen', 'Screen'],
  ['overlay', 'Overlay'],
  ['darken', 'Darken'],
  ['lighten', 'Lighten'],
  ['soft_light', 'SoftLight'],
  ['hard_light', 'HardLight'],
  ['difference', 'Difference'],
  ['exclusion', 'Exclusion'],
  ['normal', 'Over'],
];

interface Block {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly color: string;
  readonly mode: readonly [string, string];
}

/** Ten large, overlapping rectangles (2400 × 2600 each), as a poster layout might have. */
const BLOCKS: readonly Block[] = MODES.map((mode, i) => ({
  x: 100 + 140 * i,
  y: 60 + 120 * i,
  w: 2400,
  h: 2600,
  color: `#${((0x3a7bd5 + i * 0x1f2e3d) & 0xffffff).toString(16).padStart(6, '0')}`,
  mode,
}));

type Call = readonly [string, Record<string, unknown>];

function jobCalls(): Call[] {
  const calls: Call[] = [['create_document', { width: SIZE, height: SIZE }]];
  BLOCKS.forEach((b, i) => {
    const name = `色块${i + 1}`;
    calls.push(
      ['create_layer', { name }],
      ['select_rect', { left: b.x, top: b.y, right: b.x + b.w, bottom: b.y + b.h }],
      ['fill_selection', { color: b.color }],
      ['set_layer_blend_mode', { name, mode: b.mode[0] }],
      ['deselect', {}],
    );
  });
  calls.push(
    ['gaussian_blur', { radius: BLUR_RADIUS }],
    ['adjust_levels', LEVELS],
    ['save_document_as', { path: 'job.psd' }],
    ['save_document_as', { path: 'job.png' }],
  );
  return calls;
}

/** One run of the job in a fresh session: total time and time per tool name. */
async function runJob(dir: string): Promise<{ total: number; byTool: Map<string, number> }> {
  const session = new Session({ workspace: dir });
  const byTool = new Map<string, number>();
  const start = performance.now();
  for (const [name, args] of jobCalls()) {
    const t = performance.now();
    const r = await session.call({ name, arguments: args });
    byTool.set(name, (byTool.get(name) ?? 0) + performance.now() - t);
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  }
  return { total: performance.now() - start, byTool };
}

/** The same job as one `convert` command line. */
function imageMagickArgs(dir: string): string[] {
  const pct = (v: number) => `${((v / 255) * 100).toFixed(4)}%`;
  const args = ['-size', `${SIZE}x${SIZE}`, 'xc:white', '-write', 'mpr:bg', '+delete'];
  // The blurred layer carries its transparent surroundings as far as the blur reaches (3σ), as ours does.
  const margin = 3 * BLUR_RADIUS;
  BLOCKS.forEach((b, i) => {
    if (i < BLOCKS.length - 1) {
      args.push('-size', `${b.w}x${b.h}`, `xc:${b.color}`, '-repage', `+${b.x}+${b.y}`);
    } else {
      args.push(
        '-size',
        `${b.w + 2 * margin}x${b.h + 2 * margin}`,
        'xc:none',
        '-fill',
        b.color,
        '-draw',
        `rectangle ${margin},${margin} ${margin + b.w - 1},${margin + b.h - 1}`,
        '-channel',
        'RGBA',
        '-blur',
        `0x${BLUR_RADIUS}`,
        '-channel',
        'RGB',
        '-level',
        `${pct(LEVELS.black)},${pct(LEVELS.white)},${LEVELS.gamma}`,
        '+channel',
        '-repage',
        `+${b.x - margin}+${b.y - margin}`,
      );
    }
    args.push('-write', `mpr:L${i}`, '+delete');
  });
  args.push('mpr:bg');
  BLOCKS.forEach((b, i) => {
    const off = i < BLOCKS.length - 1 ? 0 : margin;
    args.push(`mpr:L${i}`, '-geometry', `+${b.x - off}+${b.y - off}`, '-compose', b.mode[1], '-composite');
  });
  args.push('-write', join(dir, 'im.png'), '-compose', 'Over', 'mpr:bg');
  BLOCKS.forEach((_b, i) => {
    args.push(`mpr:L${i}`);
  });
  args.push(join(dir, 'im.psd'));
  return args;
}

const ms = (v: number) => `${v.toFixed(0)} ms`;

export async function benchJob(): Promise<string[]> {
  const lines: string[] = [];
  const totals: number[] = [];
  const shares: number[] = [];
  const byTool = new Map<string, number[]>();
  const root = mkdtempSync(join(tmpdir(), 'atelier-bench-job-'));
  const run = promisify(execFile);
  try {
    let imTime = Number.NaN;
    const haveIm = existsSync(CONVERT);
    for (let i = 0; i < RUNS; i++) {
      const dir = join(root, `run${i}`);
      const job = await runJob(dir);
      totals.push(job.total);
      let selection = 0;
      for (const [name, t] of job.byTool) {
        if (SELECTION_TOOLS.has(name)) selection += t;
        byTool.set(name, [...(byTool.get(name) ?? []), t]);
      }
      shares.push(selection / job.total);
    }
    if (haveIm)
      imTime = await median(RUNS, () => run(CONVERT, imageMagickArgs(root), { maxBuffer: 1 << 20 }));
    const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
    const med = (a: number[]) => sorted(a)[Math.floor(a.length / 2)]!;
    const ours = med(totals);
    const spread = `${ms(sorted(totals)[0]!)}–${ms(sorted(totals).at(-1)!)}`;
    const psd = statSync(join(root, 'run0', 'job.psd')).size;
    lines.push(
      `job: ${jobCalls().length} calls on ${SIZE}² (10 × select_rect + fill + blend, blur, levels, PSD + PNG) ` +
        `median ${ms(ours)} (runs ${spread}); PSD ${(psd / 2 ** 20).toFixed(1)} MiB`,
    );
    lines.push(
      haveIm
        ? `job: ImageMagick convert, same work, ${ms(imTime)}; ours / ImageMagick ${ratio(ours, imTime)}`
        : 'job: /usr/bin/convert not found: ImageMagick comparison skipped',
    );
    const selectionShare = med(shares);
    lines.push(
      `job: select_rect + fill_selection + deselect ${(selectionShare * 100).toFixed(1)} % of the job ` +
        `(runs ${sorted(shares)
          .map((s) => `${(s * 100).toFixed(1)} %`)
          .join(', ')})`,
    );
    const perTool = [...byTool.entries()]
      .map(([name, t]) => [name, med(t)] as const)
      .sort((a, b) => b[1] - a[1])
      .map(([name, t]) => `${name} ${ms(t)}`);
    lines.push(`job: time per tool (median of runs, summed over its calls): ${perTool.join(', ')}`);
    return lines;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
