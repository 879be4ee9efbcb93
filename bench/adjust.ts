/**
 * Adjustments on a 4000 × 4000 layer, each through Session.call (the tool as a model calls it), against a
 * baseline measured in the same run:
 * - gaussian_blur radius 10 vs sharp blurring the same raw buffer with the same mask (σ 10, minAmplitude
 *   0.025, concurrency 2): target ≤ 1.3×. sharp's default blur(10) (a narrower, cheaper mask) is printed too;
 * - adjust_levels, adjust_hsl and invert_colors vs ImageMagick's `convert in.png … out.png` as a process (the
 *   script-per-call way: decode, adjust, encode): target ours ≥ 5× faster. ImageMagick writing raw pixels
 *   instead of PNG is printed too, to show how much of its time is the PNG encode.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { Session } from '../src/calls/session.js';
import { BLUR_MIN_AMPLITUDE } from '../src/engine/adjust/index.js';
import { pixelLayer } from '../src/engine/factory.js';
import type { Raster } from '../src/engine/model.js';
import { allocateId, insertLayer, setActive } from '../src/engine/tree.js';
import { median, ratio } from './util.js';

const SIZE = 4000;
const RUNS = 5;
const IM_RUNS = 3;
const CONVERT = '/usr/bin/convert';
const run = promisify(execFile);

/** A photo-like opaque picture: gradients, hashed noise and a few hard-edged blocks. */
export function photo(size: number): Raster {
  const data = new Uint8ClampedArray(size * size * 4);
  for (let y = 0; y < size; y++) {
    let o = y * size * 4;
    for (let x = 0; x < size; x++, o += 4) {
      let h = Math.imul((x * 73856093) ^ (y * 19349663), 0x27d4eb2d);
      h ^= h >>> 15;
      const n = (h & 31) - 16;
      const block = ((x >> 9) + (y >> 9)) % 5 === 0;
      data[o] = (block ? 220 : (x * 255) / size) + n;
      data[o + 1] = (block ? 40 : (y * 255) / size) + n;
      data[o + 2] = (block ? 60 : ((x + y) * 127) / size) + n;
      data[o + 3] = 255;
    }
  }
  return { x: 0, y: 0, w: size, h: size, data };
}

/** A session whose active document holds `raster` as the active pixel layer (not the background). */
export async function sessionWith(raster: Raster, dir: string): Promise<Session> {
  const session = new Session({ workspace: dir });
  await session.call({ name: 'create_document', arguments: { width: SIZE, height: SIZE } });
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  const [id, state] = allocateId(doc.state);
  tx.update(doc.id, setActive(insertLayer(state, pixelLayer(id, '照片', raster), null, 1), id));
  session.editor.commit(tx, 'bench', true);
  return session;
}

/** Median time of a tool call; each call is undone afterwards (untimed) so history does not pile up buffers. */
export async function timeTool(session: Session, name: string, args: unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = await session.call({ name, arguments: args });
    times.push(performance.now() - t);
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
    await session.call({ name: 'undo', arguments: { steps: 1 } });
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const ms = (v: number) => `${v.toFixed(0)} ms`;

export async function benchAdjust(): Promise<string[]> {
  sharp.concurrency(2);
  const dir = mkdtempSync(join(tmpdir(), 'atelier-bench-adjust-'));
  const lines: string[] = [];
  try {
    const raster = photo(SIZE);
    const session = await sessionWith(raster, dir);
    const raw = () =>
      sharp(Buffer.from(raster.data.buffer), { raw: { width: SIZE, height: SIZE, channels: 4 } });

    // Gaussian blur: ours and sharp alternate, so machine load affects both alike.
    const ours: number[] = [];
    const same: number[] = [];
    const dflt: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      const r = await session.call({ name: 'gaussian_blur', arguments: { radius: 10 } });
      ours.push(performance.now() - t);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      await session.call({ name: 'undo', arguments: { steps: 1 } });
      t = performance.now();
      await raw().blur({ sigma: 10, minAmplitude: BLUR_MIN_AMPLITUDE }).raw().toBuffer();
      same.push(performance.now() - t);
      t = performance.now();
      await raw().blur(10).raw().toBuffer();
      dflt.push(performance.now() - t);
    }
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
    const [blur, sharpSame, sharpDefault] = [med(ours), med(same), med(dflt)];
    lines.push(
      `adjust: gaussian_blur r10 ${SIZE}² via Session ${ms(blur)}; sharp blur σ10 (same mask) ${ms(sharpSame)}; ` +
        `ratio ${ratio(blur, sharpSame)} (target ≤ 1.30×)`,
      `adjust: sharp default blur(10) (minAmplitude 0.2, mask cut at 1.8σ) ${ms(sharpDefault)}; ` +
        `ours / that ${ratio(blur, sharpDefault)}`,
    );

    if (!existsSync(CONVERT)) {
      lines.push('adjust: /usr/bin/convert not found: ImageMagick comparison skipped');
      return lines;
    }
    const input = join(dir, 'in.png');
    await raw().png().toFile(input);
    const im = (ops: readonly string[], out: string) =>
      median(IM_RUNS, () => run(CONVERT, [input, ...ops, join(dir, out)], { maxBuffer: 1 << 20 }));
    const pct = (v: number) => `${((v / 255) * 100).toFixed(4)}%`;
    const cases: [string, string, unknown, readonly string[]][] = [
      [
        'levels',
        'adjust_levels',
        { black: 20, gamma: 1.2, white: 230 },
        ['-channel', 'RGB', '-level', `${pct(20)},${pct(230)},1.2`, '+channel'],
      ],
      [
        'hsl',
        'adjust_hsl',
        { hue: 30, saturation: -20, lightness: 0 },
        ['-modulate', `100,80,${100 + 30 / 1.8}`],
      ],
      ['invert', 'invert_colors', {}, ['-channel', 'RGB', '-negate', '+channel']],
    ];
    for (const [label, tool, args, ops] of cases) {
      const mine = await timeTool(session, tool, args);
      const imPng = await im(ops, 'out.png');
      const imRaw = await im(ops, 'out.rgba');
      lines.push(
        `adjust: ${label} ${SIZE}² via Session ${ms(mine)}; convert in.png … out.png ${ms(imPng)}; ` +
          `ImageMagick / ours ${ratio(imPng, mine)} (target ≥ 5×); convert to raw .rgba ${ms(imRaw)} ` +
          `(${ratio(imRaw, mine)})`,
      );
    }
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
