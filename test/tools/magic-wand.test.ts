/**
 * select_color_region (魔棒, the magic wand) through the real Session. Expectations are computed here from the
 * raw pixels, independently of the engine: the per-channel premultiplied distance for "near", and a plain
 * breadth-first search with a queue for "contiguous". (ImageMagick's -fuzz measures a Euclidean distance, not
 * the per-channel one the tool promises, so it is no reference here.) A filled selection is read back from the
 * saved PSD by psd-tools.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { Raster } from '../../src/engine/model.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { rng } from '../support/rng.js';
import { newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, type RGBA, solid } from './layer-fixtures.js';
import { expectModes, labels, selected } from './selection-fixtures.js';

/** A `w × h` document with a pixel layer 'L' of `raster`, active. */
async function withLayer(w: number, h: number, raster: Raster): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: w, height: h });
  edit(s, (st) => addPixel(st, 'L', raster));
  await ok(s, 'select_layers', { names: ['L'] });
  return s;
}

/** A raster of `rect` whose pixel at document (x, y) is `f(x, y)`. */
function painted(
  rect: { x: number; y: number; w: number; h: number },
  f: (x: number, y: number) => RGBA,
): Raster {
  const data = new Uint8ClampedArray(rect.w * rect.h * 4);
  for (let y = 0; y < rect.h; y++) {
    for (let x = 0; x < rect.w; x++) data.set(f(rect.x + x, rect.y + y), (y * rect.w + x) * 4);
  }
  return { ...rect, data };
}

/** The pixel of `r` at document (x, y), transparent beyond it. */
function pixel(r: Raster, x: number, y: number): RGBA {
  const lx = x - r.x;
  const ly = y - r.y;
  if (lx < 0 || ly < 0 || lx >= r.w || ly >= r.h) return [0, 0, 0, 0];
  const i = (ly * r.w + lx) * 4;
  return [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!, r.data[i + 3]!];
}

/** Whether `p` is within `tol` of `q` on each of R·A/255, G·A/255, B·A/255 and A. */
function near(p: RGBA, q: RGBA, tol: number): boolean {
  if (Math.abs(p[3] - q[3]) > tol) return false;
  return [0, 1, 2].every((k) => Math.abs(p[k]! * p[3] - q[k]! * q[3]) <= tol * 255);
}

/** The expected selection over a `w × h` canvas: 255 where selected. */
function expected(
  r: Raster,
  w: number,
  h: number,
  sx: number,
  sy: number,
  tol: number,
  contiguous: boolean,
): number[] {
  const seed = pixel(r, sx, sy);
  const hit = (i: number) => near(pixel(r, i % w, Math.floor(i / w)), seed, tol);
  const out = new Array<number>(w * h).fill(0);
  if (!contiguous) return out.map((_, i) => (hit(i) ? 255 : 0));
  const queue = [sy * w + sx];
  out[queue[0]!] = 255;
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    const x = i % w;
    const neighbours = [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w];
    for (const n of neighbours) {
      if (n < 0 || n >= w * h || out[n] === 255 || !hit(n)) continue;
      out[n] = 255;
      queue.push(n);
    }
  }
  return out;
}

const GREY: RGBA = [100, 100, 100, 255];
const RED: RGBA = [200, 30, 30, 255];

/** Grey with two separate red squares, (2, 3)–(7, 9) and (20, 10)–(26, 16), on a 30 × 20 canvas. */
function twoSquares(): Raster {
  return painted({ x: 0, y: 0, w: 30, h: 20 }, (x, y) =>
    (x >= 2 && x < 7 && y >= 3 && y < 9) || (x >= 20 && x < 26 && y >= 10 && y < 16) ? RED : GREY,
  );
}

describe('select_color_region (magic wand)', () => {
  it('selects the connected region only, or every such pixel with contiguous false, as one step', async () => {
    const r = twoSquares();
    const s = await withLayer(30, 20, r);
    const steps = labels(s).length;
    const one = await ok(s, 'select_color_region', { x: 3, y: 4 });
    expect(labels(s)).toHaveLength(steps + 1);
    expect(labels(s).at(-1)).toBe('魔棒');
    expect(selected(s)).toEqual(expected(r, 30, 20, 3, 4, 32, true));
    expect(selected(s).filter((v) => v === 255)).toHaveLength(30);
    expect(one).toMatchObject({
      changed: true,
      sampled_color: '#c81e1e',
      sampled_alpha: 255,
      sampled_layer: 'L',
      tolerance: 32,
      contiguous: true,
      sample_all_layers: false,
      selection: { bounds: { left: 2, top: 3, right: 7, bottom: 9 } },
    });

    const both = await ok(s, 'select_color_region', { x: 3.7, y: 4.2, contiguous: false });
    expect(selected(s)).toEqual(expected(r, 30, 20, 3, 4, 32, false));
    expect(selected(s).filter((v) => v === 255)).toHaveLength(66);
    expect(both.selection).toMatchObject({ bounds: { left: 2, top: 3, right: 26, bottom: 16 } });
  });

  it('agrees with a plain search on a noisy picture, contiguous or not, at several tolerances', async () => {
    const random = rng(7);
    const palette: RGBA[] = [
      [10, 200, 30, 255],
      [30, 180, 50, 255],
      [60, 60, 220, 255],
      [10, 200, 30, 120],
      [0, 0, 0, 0],
      [255, 0, 0, 0],
    ];
    const r = painted({ x: 0, y: 0, w: 64, h: 48 }, () => palette[Math.floor(random() * palette.length)]!);
    const s = await withLayer(64, 48, r);
    for (const tolerance of [0, 20, 40, 130]) {
      for (const contiguous of [true, false]) {
        for (const [x, y] of [
          [5, 5],
          [40, 30],
          [63, 47],
        ] as const) {
          await ok(s, 'select_color_region', { x, y, tolerance, contiguous });
          expect(selected(s), `${tolerance} ${contiguous} ${x},${y}`).toEqual(
            expected(r, 64, 48, x, y, tolerance, contiguous),
          );
        }
      }
    }
  });

  it('takes a pixel exactly `tolerance` away on any channel, alpha included, and not one a level further', async () => {
    const seed: RGBA = [100, 100, 100, 255];
    const row: RGBA[] = [
      seed,
      [132, 100, 100, 255], // R +32: in
      [100, 67, 100, 255], // G −33: out
      [100, 100, 132, 255], // B +32: in
      [100, 100, 68, 255], // B −32: in
      [100, 100, 100, 223], // A −32: in (R·A etc. move by 12.5 only)
      [100, 100, 100, 222], // A −33: out
      [133, 100, 100, 255], // R +33: out
    ];
    const r = painted({ x: 0, y: 0, w: row.length, h: 1 }, (x) => row[x]!);
    const s = await withLayer(row.length, 1, r);
    await ok(s, 'select_color_region', { x: 0, y: 0, tolerance: 32, contiguous: false });
    expect(selected(s)).toEqual([255, 255, 0, 255, 255, 255, 0, 0]);
    await ok(s, 'select_color_region', { x: 0, y: 0, tolerance: 33, contiguous: false });
    expect(selected(s)).toEqual([255, 255, 255, 255, 255, 255, 255, 255]);
    await ok(s, 'select_color_region', { x: 0, y: 0, tolerance: 0, contiguous: false });
    expect(selected(s)).toEqual([255, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('on the active layer a click in its empty area selects the empty area (and the faint edge); with sample_all_layers it reads the picture', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 30, height: 20 });
    // Below: blue on the left half, green on the right. Top: a red square with a faint (alpha 20) ring.
    edit(s, (st) =>
      addPixel(
        st,
        'Below',
        painted({ x: 0, y: 0, w: 30, h: 20 }, (x) => (x < 15 ? [0, 0, 255, 255] : [0, 255, 0, 255])),
      ),
    );
    const top = painted({ x: 8, y: 5, w: 10, h: 10 }, (x, y) =>
      x >= 10 && x < 16 && y >= 7 && y < 13 ? RED : [255, 255, 0, 20],
    );
    edit(s, (st) => addPixel(st, 'Top', top));
    await ok(s, 'select_layers', { names: ['Top'] });

    const own = await ok(s, 'select_color_region', { x: 2, y: 2 });
    const square = (i: number) => {
      const x = i % 30;
      const y = Math.floor(i / 30);
      return x >= 10 && x < 16 && y >= 7 && y < 13;
    };
    expect(selected(s)).toEqual(selected(s).map((_, i) => (square(i) ? 0 : 255)));
    expect(own).toMatchObject({ sampled_color: '#000000', sampled_alpha: 0, sampled_layer: 'Top' });
    // Tolerance below the ring's alpha: the ring is left out.
    await ok(s, 'select_color_region', { x: 2, y: 2, tolerance: 19 });
    const ring = (i: number) => {
      const x = i % 30;
      const y = Math.floor(i / 30);
      return x >= 8 && x < 18 && y >= 5 && y < 15;
    };
    expect(selected(s)).toEqual(selected(s).map((_, i) => (ring(i) ? 0 : 255)));

    const all = await ok(s, 'select_color_region', { x: 2, y: 2, sample_all_layers: true });
    expect(all).toMatchObject({ sampled_color: '#0000ff', sampled_alpha: 255, sample_all_layers: true });
    expect(all.sampled_layer).toBeUndefined();
    // The composite: blue on the left but the square; the ring, yellow at alpha 20 over blue, moves each
    // channel by 20 levels, within the tolerance.
    expect(selected(s)).toEqual(selected(s).map((_, i) => (i % 30 < 15 && !square(i) ? 255 : 0)));
  });

  it('counts only the canvas part of a layer larger than the canvas; transparency beyond it is cut in two by it', async () => {
    // An opaque band across the whole canvas (and beyond it), rows 8–11: the transparent rows above and below
    // are not connected.
    const band = solid({ x: -50, y: 8, w: 200, h: 4 }, [0, 128, 0, 255]);
    const s = await withLayer(30, 20, band);
    await ok(s, 'select_color_region', { x: 3, y: 2 });
    expect(selected(s)).toEqual(selected(s).map((_, i) => (i < 8 * 30 ? 255 : 0)));
    await ok(s, 'select_color_region', { x: 29, y: 19 });
    expect(selected(s)).toEqual(selected(s).map((_, i) => (i >= 12 * 30 ? 255 : 0)));
    await ok(s, 'select_color_region', { x: 3, y: 2, contiguous: false });
    expect(selected(s)).toEqual(selected(s).map((_, i) => (i < 8 * 30 || i >= 12 * 30 ? 255 : 0)));
    const r = await ok(s, 'select_color_region', { x: 10, y: 9 });
    expect(selected(s)).toEqual(selected(s).map((_, i) => (i >= 8 * 30 && i < 12 * 30 ? 255 : 0)));
    expect(r.sampled_color).toBe('#008000');
  });

  it('selects around a small layer and not inside its closed frame, unless contiguous is false', async () => {
    // A 6 × 6 frame at (10, 5) on a 30 × 20 canvas: opaque border, transparent 4 × 4 inside.
    const frame = painted({ x: 10, y: 5, w: 6, h: 6 }, (x, y) =>
      x === 10 || x === 15 || y === 5 || y === 10 ? [0, 0, 0, 255] : [0, 0, 0, 0],
    );
    const s = await withLayer(30, 20, frame);
    for (const [x, y] of [
      [0, 0],
      [29, 19],
      [12, 2],
      [12, 7],
    ] as const) {
      for (const contiguous of [true, false]) {
        await ok(s, 'select_color_region', { x, y, contiguous });
        expect(selected(s), `${x},${y} ${contiguous}`).toEqual(expected(frame, 30, 20, x, y, 32, contiguous));
      }
    }
    // The inside alone: 16 pixels.
    await ok(s, 'select_color_region', { x: 12, y: 7 });
    expect(selected(s).filter((v) => v === 255)).toHaveLength(16);
  });

  it('reads a group merged and a fill layer as its colour everywhere', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 30, height: 20 });
    edit(s, (st) => {
      const g = addGroup(st, 'G', { opacity: 0.3 });
      return addPixel(g, 'a', solid({ x: 0, y: 0, w: 10, h: 20 }, RED), {}, idOf(g, 'G'));
    });
    await ok(s, 'select_layers', { names: ['G'] });
    const g = await ok(s, 'select_color_region', { x: 1, y: 1 });
    // The group's own pixels at full opacity: red.
    expect(g.sampled_color).toBe('#c81e1e');
    expect(selected(s)).toEqual(selected(s).map((_, i) => (i % 30 < 10 ? 255 : 0)));

    await ok(s, 'select_layers', { names: ['背景'] });
    expect(current(s).layers.get(current(s).active!)!.kind).toBe('fill');
    const bg = await ok(s, 'select_color_region', { x: 20, y: 5 });
    expect(bg).toMatchObject({ sampled_color: '#ffffff', selection: { whole_canvas: true } });
  });

  it('adds to, subtracts from and intersects with the selection there is', async () => {
    await expectModes(
      () => withLayer(30, 20, twoSquares()),
      'select_color_region',
      { x: 3, y: 4, contiguous: false },
      { left: 0, top: 0, right: 10, bottom: 20 },
    );
  });

  it('refuses a point off the canvas and a bad tolerance, changing nothing', async () => {
    const s = await withLayer(30, 20, twoSquares());
    await ok(s, 'select_rect', { left: 1, top: 1, right: 4, bottom: 4 });
    const steps = labels(s).length;
    const e = await refused(s, 'select_color_region', { x: 30, y: 5 }, 'out_of_bounds');
    expect(e.message).toContain('30×20');
    expect(e.details).toEqual([{ parameter: 'x', value: 30 }]);
    const ey = await refused(s, 'select_color_region', { x: 3, y: 20.5 }, 'out_of_bounds');
    expect(ey.details).toEqual([{ parameter: 'y', value: 20.5 }]);
    await refused(s, 'select_color_region', { x: -1, y: 5 }, 'invalid_arguments');
    await refused(s, 'select_color_region', { x: 3, y: 5, tolerance: 256 }, 'invalid_arguments');
    await refused(s, 'select_color_region', { x: 3, y: 5, tolerance: 2.5 }, 'invalid_arguments');
    expect(labels(s)).toHaveLength(steps);
  });

  it('floods a 16-megapixel one-pixel-wide serpentine without running out of stack', async () => {
    // Rows 0, 2, 4… are corridors; odd rows open at the right end (row 1, 5, …) or the left end (3, 7, …): one
    // path of about 8 million pixels, which a recursive fill could not follow.
    const n = 4000;
    const wall: RGBA = [0, 0, 0, 255];
    const open: RGBA = [255, 255, 255, 255];
    const data = new Uint8ClampedArray(n * n * 4);
    const words = new Uint32Array(data.buffer);
    const word = (c: RGBA) => new Uint32Array(new Uint8Array(c).buffer)[0]!;
    let corridor = 0;
    for (let y = 0; y < n; y++) {
      if (y % 2 === 0) {
        words.fill(word(open), y * n, (y + 1) * n);
        corridor += n;
        continue;
      }
      words.fill(word(wall), y * n, (y + 1) * n);
      words[y * n + (y % 4 === 1 ? n - 1 : 0)] = word(open);
      corridor++;
    }
    const s = await withLayer(n, n, { x: 0, y: 0, w: n, h: n, data });
    const started = performance.now();
    await ok(s, 'select_color_region', { x: 0, y: 0, tolerance: 0 });
    const took = performance.now() - started;
    const sel = current(s).selection!;
    let count = 0;
    for (const v of sel.data) if (v === 255) count++;
    expect(count).toBe(corridor);
    expect({ x: sel.x, y: sel.y, w: sel.w, h: sel.h }).toEqual({ x: 0, y: 0, w: n, h: n });
    expect(took).toBeLessThan(10_000);
  }, 60_000);

  it.skipIf(!psdToolsAvailable())(
    'a wand selection filled with fill_selection reads back from the PSD through psd-tools',
    async () => {
      const r = twoSquares();
      const s = await withLayer(30, 20, r);
      await ok(s, 'select_color_region', { x: 3, y: 4, contiguous: false });
      const want = selected(s);
      await ok(s, 'create_layer', { name: 'Paint' });
      await ok(s, 'fill_selection', { color: '#ffd700' });
      await ok(s, 'deselect');
      await ok(s, 'save_document_as', { path: 'wand.psd' });
      const { composite } = await readWithPsdTools(await s.workspace.read('wand.psd'), { composite: true });
      expect(composite).toMatchObject({ width: 30, height: 20 });
      for (let i = 0; i < 30 * 20; i++) {
        const got = [...composite!.data.subarray(i * 4, i * 4 + 3)];
        expect(got, `pixel ${i}`).toEqual(want[i] === 255 ? [255, 215, 0] : [100, 100, 100]);
      }
      const out = path.join(import.meta.dirname, '../../test-artifacts/selection');
      mkdirSync(out, { recursive: true });
      writeFileSync(
        path.join(out, 'magic-wand.png'),
        await sharp(Buffer.from(composite!.data), { raw: { width: 30, height: 20, channels: 4 } })
          .resize(300, 200, { kernel: 'nearest' })
          .png()
          .toBuffer(),
      );
    },
  );
});
