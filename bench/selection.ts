/**
 * The selection tools (and Modify › Expand) on a 4000 × 4000 photo, each through Session.call (as a model calls it; the time includes
 * combining with the selection, and the undo after each run is not timed), beside ImageMagick drawing the same
 * shape or flood-filling the same colour as a process into raw grey (the script-per-call way, its start-up
 * included): target ours ≤ 1× ImageMagick's. ImageMagick's flood fill compares colours by Euclidean distance, the
 * wand per channel, so that pair is the same job at a comparable tolerance, not the same pixels.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { photo, sessionWith, timeTool } from './adjust.js';
import { median, ratio } from './util.js';

const SIZE = 4000;
const IM_RUNS = 3;
const CONVERT = '/usr/bin/convert';
const run = promisify(execFile);

/** A star of `n` points about the centre: a long, sharp-cornered outline. */
function star(n: number): { x: number; y: number }[] {
  return Array.from({ length: 2 * n }, (_, i) => {
    const r = i % 2 === 0 ? 1900 : 700;
    const t = (Math.PI * i) / n;
    return { x: 2000 + r * Math.sin(t), y: 2000 - r * Math.cos(t) };
  });
}

/** A freehand lasso's edge: a wobbly loop of 4000 points, as a long drag gives. */
function freehand(): { x: number; y: number }[] {
  return Array.from({ length: 4000 }, (_, i) => {
    const t = (2 * Math.PI * i) / 4000;
    const r = 1500 + 120 * Math.sin(7 * t) + 40 * Math.sin(31 * t);
    return { x: 2000 + r * Math.cos(t), y: 2000 + r * Math.sin(t) };
  });
}

const ms = (v: number) => `${v.toFixed(0)} ms`;

/** The ellipse inside (100, 500)–(3900, 3500) as a one-byte mask, hard-edged. */
function ellipseMaskBytes(): Buffer {
  const out = Buffer.alloc(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const dx = (x + 0.5 - 2000) / 1900;
      const dy = (y + 0.5 - 2000) / 1500;
      if (dx * dx + dy * dy <= 1) out[y * SIZE + x] = 255;
    }
  }
  return out;
}

export async function benchSelection(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'atelier-bench-selection-'));
  const lines: string[] = [];
  try {
    const raster = photo(SIZE);
    const session = await sessionWith(raster, dir);
    const input = join(dir, 'in.png');
    await sharp(Buffer.from(raster.data.buffer), { raw: { width: SIZE, height: SIZE, channels: 4 } })
      .png()
      .toFile(input);
    const pts = (p: { x: number; y: number }[]) =>
      p.map((q) => `${q.x.toFixed(2)},${q.y.toFixed(2)}`).join(' ');
    const blank = ['-size', `${SIZE}x${SIZE}`, 'xc:black', '-fill', 'white'];
    const cases: [string, string, unknown, readonly string[]][] = [
      [
        'ellipse (canvas-wide)',
        'select_ellipse',
        { left: 100, top: 500, right: 3900, bottom: 3500 },
        [...blank, '-draw', 'ellipse 2000,2000 1900,1500 0,360'],
      ],
      [
        'polygon (60-point star)',
        'select_polygon',
        { points: star(30) },
        [...blank, '-draw', `polygon ${pts(star(30))}`],
      ],
      [
        'polygon (4000-point freehand)',
        'select_polygon',
        { points: freehand() },
        [...blank, '-draw', `polygon ${pts(freehand())}`],
      ],
      [
        'magic wand, contiguous, tolerance 32',
        'select_color_region',
        { x: 300, y: 300, tolerance: 32 },
        [input, '-fuzz', '12.5%', '-fill', 'white', '-draw', 'color 300,300 floodfill'],
      ],
      [
        'magic wand, whole canvas, tolerance 32',
        'select_color_region',
        { x: 300, y: 300, tolerance: 32, contiguous: false },
        [input, '-fuzz', '12.5%', '-fill', 'white', '-opaque', '#d8283c'],
      ],
    ];
    const haveIm = existsSync(CONVERT);
    for (const [label, tool, args, ops] of cases) {
      const mine = await timeTool(session, tool, args);
      if (!haveIm) {
        lines.push(`selection: ${label} ${SIZE}² via Session ${ms(mine)} (no /usr/bin/convert to compare)`);
        continue;
      }
      const im = await median(IM_RUNS, () =>
        run(CONVERT, [...ops, '-colorspace', 'gray', join(dir, 'out.gray')], { maxBuffer: 1 << 20 }),
      );
      lines.push(
        `selection: ${label} ${SIZE}² via Session ${ms(mine)}; convert … out.gray ${ms(im)}; ours / ImageMagick ` +
          `${ratio(mine, im)} (target ≤ 1×)`,
      );
    }
    // Expand a canvas-wide ellipse by 20 px beside sharp's dilate(20) of the same mask (a square, on a thresholded
    // mask: cheaper than a Euclidean reach, and the nearest library operation; ImageMagick's Dilate Disk:20 took
    // over 100 s).
    await session.call({
      name: 'select_ellipse',
      arguments: { left: 100, top: 500, right: 3900, bottom: 3500 },
    });
    const grow = await timeTool(session, 'modify_selection', { operation: 'expand', amount: 20 });
    await session.call({ name: 'undo', arguments: { steps: 1 } });
    const mask = ellipseMaskBytes();
    const sq = await median(IM_RUNS, () =>
      sharp(mask, { raw: { width: SIZE, height: SIZE, channels: 1 } })
        .dilate(20)
        .raw()
        .toBuffer(),
    );
    lines.push(
      `selection: expand a canvas-wide ellipse by 20 px ${SIZE}² via Session ${ms(grow)}; sharp dilate(20) of the ` +
        `same mask ${ms(sq)}; ours / sharp ${ratio(grow, sq)}`,
    );
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
