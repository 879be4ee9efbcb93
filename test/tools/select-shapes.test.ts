/**
 * select_ellipse (椭圆选区) and select_polygon (多边形套索) through the real Session, as a model calls them. The
 * anti-aliased masks are checked against ImageMagick drawing the same shapes: 16× larger without anti-aliasing
 * and averaged back (area coverage, the reference for the values), and at 1× with its own anti-aliasing (which
 * draws edges about a third of a pixel wider, so ours must lie inside it). Modes, cuts to the canvas and
 * refusals go through the same paths as select_rect; a selection filled and saved reads back from psd-tools.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { drawnByImageMagick, imageMagickAvailable } from '../support/imagemagick.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { ok, refused } from '../support/session.js';
import { current } from './layer-fixtures.js';
import { emptyLayerDoc, expectModes, labels, selected } from './selection-fixtures.js';

const setup = emptyLayerDoc;

interface Diff {
  readonly mean: number;
  readonly max: number;
  /** max(ours − theirs): how far ours reaches beyond theirs. */
  readonly above: number;
}

function diff(ours: readonly number[], theirs: Uint8Array): Diff {
  expect(ours.length).toBe(theirs.length);
  let sum = 0;
  let max = 0;
  let above = Number.NEGATIVE_INFINITY;
  ours.forEach((v, i) => {
    const d = v - theirs[i]!;
    sum += Math.abs(d);
    max = Math.max(max, Math.abs(d));
    above = Math.max(above, d);
  });
  return { mean: sum / ours.length, max, above };
}

/** The selected area in pixels (the sum of coverage). */
function area(values: readonly number[]): number {
  return values.reduce((a, v) => a + v, 0) / 255;
}

const W = 120;
const H = 90;
/** Edges with fractions, so the anti-aliasing is not helped by whole pixels. */
const BOX = { left: 10.5, top: 8, right: 97.25, bottom: 71 };
const CX = (BOX.left + BOX.right) / 2;
const CY = (BOX.top + BOX.bottom) / 2;
const RX = (BOX.right - BOX.left) / 2;
const RY = (BOX.bottom - BOX.top) / 2;
const ELLIPSE = (at: (v: number) => number, size: (v: number) => number) =>
  `ellipse ${at(CX)},${at(CY)} ${size(RX)},${size(RY)} 0,360`;

/** A five-pointed star drawn in one stroke: its centre pentagon is enclosed twice. */
const STAR = [
  { x: 60, y: 5 },
  { x: 80.5, y: 80 },
  { x: 10, y: 30.25 },
  { x: 110, y: 30.25 },
  { x: 39.5, y: 80 },
];
/** A concave outline (an arrow) with fractional corners. */
const ARROW = [
  { x: 5.3, y: 40.1 },
  { x: 60.7, y: 4.2 },
  { x: 60.2, y: 25.5 },
  { x: 114.6, y: 25.5 },
  { x: 114.6, y: 60.8 },
  { x: 60.2, y: 60.8 },
  { x: 60.7, y: 85.9 },
];

function polygonMvg(points: readonly { x: number; y: number }[]) {
  return (at: (v: number) => number) =>
    `fill-rule evenodd polygon ${points.map((p) => `${at(p.x)},${at(p.y)}`).join(' ')}`;
}

/**
 * The tolerances against ImageMagick, measured on these shapes: against the 16× reference (itself within about
 * 8 levels of the true coverage) mean 0.12–0.18 levels, max 11–16 levels at single edge pixels; ImageMagick's
 * own 1× anti-aliasing is wider, mean |diff| 1.9–3.3 levels, and never below ours.
 */
const SS_MEAN = 0.3;
const SS_MAX = 24;
const AA_MEAN = 4;

describe('select_ellipse', () => {
  it.skipIf(!imageMagickAvailable())(
    'selects the inscribed ellipse with area coverage at its edge, as ImageMagick draws it, as one step',
    async () => {
      const s = await setup(W, H);
      const steps = labels(s).length;
      const r = await ok(s, 'select_ellipse', BOX);
      expect(labels(s)).toHaveLength(steps + 1);
      expect(labels(s).at(-1)).toBe('椭圆选区');
      const ours = selected(s);

      const reference = await drawnByImageMagick(W, H, ELLIPSE, 16);
      const ss = diff(ours, reference);
      expect(ss.mean).toBeLessThan(SS_MEAN);
      expect(ss.max).toBeLessThanOrEqual(SS_MAX);
      // The area is the ellipse's, πab, within a tenth of a percent (chords, not Skia's coarser curves).
      expect(Math.abs(area(ours) - Math.PI * RX * RY) / (Math.PI * RX * RY)).toBeLessThan(0.001);
      // Anti-aliased: a ring of partly selected pixels all round, about the perimeter long.
      expect(ours.filter((v) => v > 0 && v < 255).length).toBeGreaterThan(200);

      const aa = diff(ours, await drawnByImageMagick(W, H, ELLIPSE));
      expect(aa.mean).toBeLessThan(AA_MEAN);
      expect(aa.above).toBeLessThanOrEqual(0);

      expect(r.selection).toMatchObject({
        active: true,
        bounds: { left: 10, top: 8, right: 98, bottom: 71 },
        whole_canvas: false,
      });
      await ok(s, 'undo');
      expect(current(s).selection).toBeNull();
    },
  );

  it('draws a large ellipse in tiles without seams: its quarters mirror one another, its area is πab', async () => {
    // The drawing tiles (2048 px wide, 512 rows) meet at x = 2098 and y = 522, far from the mirror lines.
    const w = 2300;
    const h = 600;
    const s = await setup(w, h);
    await ok(s, 'select_ellipse', { left: 50, top: 10, right: 2250, bottom: 590 });
    const v = selected(s);
    let worst = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        worst = Math.max(
          worst,
          Math.abs(v[i]! - v[y * w + w - 1 - x]!),
          Math.abs(v[i]! - v[(h - 1 - y) * w + x]!),
        );
      }
    }
    expect(worst).toBeLessThanOrEqual(20);
    expect(v[300 * w + 2098]).toBe(255);
    expect(v[522 * w + 1150]).toBe(255);
    expect(Math.abs(area(v) - Math.PI * 1100 * 290) / (Math.PI * 1100 * 290)).toBeLessThan(0.0002);
  });

  it('adds to, subtracts from and intersects with a rectangle, value by value', async () => {
    await expectModes(() => setup(W, H), 'select_ellipse', BOX, {
      left: 50,
      top: 30,
      right: 115,
      bottom: 85,
    });
    // With no selection, intersect leaves none and adds no step.
    const none = await setup(W, H);
    const steps = labels(none).length;
    expect((await ok(none, 'select_ellipse', { ...BOX, mode: 'intersect' })).changed).toBe(false);
    expect(labels(none)).toHaveLength(steps);
  });

  it('cuts an ellipse to the canvas and says so; one inside says nothing', async () => {
    const s = await setup(40, 30);
    const inside = await ok(s, 'select_ellipse', { left: 2, top: 2, right: 20, bottom: 12 });
    expect(inside.warnings).toBeUndefined();
    const r = await ok(s, 'select_ellipse', { left: -20, top: -10, right: 20, bottom: 20 });
    expect(JSON.stringify(r.warnings)).toContain('椭圆超出画布（40×30 像素）的部分已裁掉');
    const v = selected(s);
    expect(v[5 * 40 + 0]).toBe(255); // the centre (0, 5) is on the canvas edge
    expect(v[5 * 40 + 25]).toBe(0);
    expect(r.selection).toMatchObject({ bounds: { left: 0, top: 0, right: 20, bottom: 20 } });
  });

  it('refuses bad edges naming them, an ellipse off the canvas and one too thin to cover a pixel, changing nothing', async () => {
    const s = await setup(40, 30);
    await ok(s, 'select_rect', { left: 1, top: 1, right: 4, bottom: 4 });
    const steps = labels(s).length;
    const e1 = await refused(
      s,
      'select_ellipse',
      { left: 9, top: 6, right: 2, bottom: 6 },
      'invalid_arguments',
    );
    expect((e1.details as { parameter: string }[]).map((d) => d.parameter)).toEqual(['right', 'bottom']);
    expect(e1.message).toContain('椭圆无效');
    const e2 = await refused(
      s,
      'select_ellipse',
      { left: 40, top: 0, right: 60, bottom: 5 },
      'out_of_bounds',
    );
    expect(e2.message).toContain('40×30');
    // Its box reaches the canvas's corner, the curve does not.
    await refused(s, 'select_ellipse', { left: -20, top: -20, right: 1.5, bottom: 1.5 }, 'out_of_bounds');
    const thin = await refused(
      s,
      'select_ellipse',
      { left: 5, top: 5, right: 5.001, bottom: 6 },
      'invalid_arguments',
    );
    expect(thin.message).toContain('太小或太窄');
    await refused(s, 'select_ellipse', { left: 0, top: 0, right: 5e6, bottom: 5 }, 'invalid_arguments');
    expect(labels(s)).toHaveLength(steps);
  });
});

describe('select_polygon', () => {
  it.skipIf(!imageMagickAvailable())(
    'fills a self-intersecting star by the even-odd rule, as ImageMagick does: the centre enclosed twice stays out',
    async () => {
      const s = await setup(W, H);
      const r = await ok(s, 'select_polygon', { points: STAR });
      expect(labels(s).at(-1)).toBe('多边形套索');
      expect(r.points).toBe(5);
      const ours = selected(s);
      expect(ours[45 * W + 60]).toBe(0); // the centre pentagon
      expect(ours[15 * W + 60]).toBe(255); // the top tip
      expect(ours[35 * W + 20]).toBe(255); // the left tip

      const ss = diff(ours, await drawnByImageMagick(W, H, polygonMvg(STAR), 16));
      expect(ss.mean).toBeLessThan(SS_MEAN);
      expect(ss.max).toBeLessThanOrEqual(SS_MAX);
      const aa = diff(ours, await drawnByImageMagick(W, H, polygonMvg(STAR)));
      expect(aa.mean).toBeLessThan(AA_MEAN);
      expect(aa.above).toBeLessThanOrEqual(0);
    },
  );

  it.skipIf(!imageMagickAvailable())(
    'selects a concave polygon with fractional corners as ImageMagick draws it; its area is the shoelace area',
    async () => {
      const s = await setup(W, H);
      await ok(s, 'select_polygon', { points: ARROW });
      const ours = selected(s);
      const ss = diff(ours, await drawnByImageMagick(W, H, polygonMvg(ARROW), 16));
      expect(ss.mean).toBeLessThan(SS_MEAN);
      expect(ss.max).toBeLessThanOrEqual(SS_MAX);
      const aa = diff(ours, await drawnByImageMagick(W, H, polygonMvg(ARROW)));
      expect(aa.mean).toBeLessThan(AA_MEAN);
      expect(aa.above).toBeLessThanOrEqual(0);
      let shoelace = 0;
      ARROW.forEach((p, i) => {
        const q = ARROW[(i + 1) % ARROW.length]!;
        shoelace += p.x * q.y - q.x * p.y;
      });
      expect(Math.abs(area(ours) - Math.abs(shoelace) / 2)).toBeLessThan(0.002 * (Math.abs(shoelace) / 2));
    },
  );

  it('cuts corners far beyond the canvas exactly, with a warning', async () => {
    const s = await setup(20, 10);
    const r = await ok(s, 'select_polygon', {
      points: [
        { x: -900_000, y: 2.5 },
        { x: 900_000, y: 2.5 },
        { x: 900_000, y: 7.25 },
        { x: -900_000, y: 7.25 },
      ],
    });
    expect(JSON.stringify(r.warnings)).toContain('多边形超出画布');
    const v = selected(s);
    const rows = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((y) => v.slice(y * 20, y * 20 + 20));
    for (const row of rows) expect(new Set(row).size).toBe(1); // every row uniform: the edges are level
    const column = rows.map((row) => row[0]!);
    expect([...column.slice(0, 2), ...column.slice(8)]).toEqual([0, 0, 0, 0]);
    expect(column.slice(3, 7)).toEqual([255, 255, 255, 255]);
    // Row 2 is half covered (from y = 2.5), row 7 a quarter (to y = 7.25).
    expect(Math.abs(column[2]! - 127.5)).toBeLessThanOrEqual(2);
    expect(Math.abs(column[7]! - 63.75)).toBeLessThanOrEqual(2);
  });

  it('adds to, subtracts from and intersects with a rectangle, value by value', async () => {
    await expectModes(
      () => setup(W, H),
      'select_polygon',
      { points: ARROW },
      { left: 0, top: 0, right: 40, bottom: 50 },
    );
  });

  it('refuses too few corners, repeated ones, corners on a line, a polygon off the canvas or too far away, changing nothing', async () => {
    const s = await setup(40, 30);
    await ok(s, 'select_rect', { left: 1, top: 1, right: 4, bottom: 4 });
    const steps = labels(s).length;
    const few = await refused(
      s,
      'select_polygon',
      {
        points: [
          { x: 1, y: 1 },
          { x: 9, y: 9 },
        ],
      },
      'invalid_arguments',
    );
    expect(few.message).toContain('至少需要 3 个顶点');
    const same = await refused(
      s,
      'select_polygon',
      {
        points: [
          { x: 1, y: 1 },
          { x: 9, y: 9 },
          { x: 1, y: 1 },
          { x: 9, y: 9 },
        ],
      },
      'invalid_arguments',
    );
    expect(same.message).toContain('只有 2 个不同的顶点');
    const line = await refused(
      s,
      'select_polygon',
      {
        points: [
          { x: 1, y: 1 },
          { x: 5, y: 3 },
          { x: 21, y: 11 },
          { x: 9, y: 5 },
        ],
      },
      'invalid_arguments',
    );
    expect(line.message).toContain('同一条直线');
    expect(line.hint).toContain('3 个不在同一条直线上');
    const off = await refused(
      s,
      'select_polygon',
      {
        points: [
          { x: 50, y: 1 },
          { x: 60, y: 1 },
          { x: 55, y: 9 },
        ],
      },
      'out_of_bounds',
    );
    expect(off.message).toContain('完全在画布之外');
    // A sliver thinner than any pixel's coverage, on the canvas.
    await refused(
      s,
      'select_polygon',
      {
        points: [
          { x: 1, y: 1 },
          { x: 30, y: 1 },
          { x: 30, y: 1.001 },
        ],
      },
      'invalid_arguments',
    );
    const far = await refused(
      s,
      'select_polygon',
      {
        points: [
          { x: 1, y: 1 },
          { x: 1e12, y: 1 },
          { x: 5, y: 9 },
        ],
      },
      'invalid_arguments',
    );
    expect(far.details).toMatchObject([{ parameter: 'points[1].x' }]);
    expect(far.message).toContain('1000000');
    expect(labels(s)).toHaveLength(steps);
  });
});

describe('filled and saved', () => {
  it.skipIf(!psdToolsAvailable())(
    'an ellipse and a star filled with fill_selection read back from the PSD through psd-tools, edges blended; the wand takes what is around them',
    async () => {
      const s = await setup(W, H);
      await ok(s, 'select_ellipse', BOX);
      const ellipse = selected(s);
      await ok(s, 'fill_selection', { color: '#ff0000' });
      await ok(s, 'select_polygon', { points: STAR });
      const star = selected(s);
      await ok(s, 'fill_selection', { color: '#0000ff' });
      await ok(s, 'deselect');
      await ok(s, 'save_document_as', { path: 'shapes.psd' });
      const { composite } = await readWithPsdTools(await s.workspace.read('shapes.psd'), { composite: true });
      expect(composite).toMatchObject({ width: W, height: H });
      const at = (i: number) => [...composite!.data.subarray(i * 4, i * 4 + 3)];
      // Expected: red over white by the ellipse's coverage, then blue over that by the star's.
      let edges = 0;
      for (let i = 0; i < W * H; i++) {
        const e = ellipse[i]! / 255;
        const t = star[i]! / 255;
        const red = [255, 255 * (1 - e), 255 * (1 - e)];
        const want = [red[0]! * (1 - t), red[1]! * (1 - t), red[2]! * (1 - t) + 255 * t];
        if ((e > 0 && e < 1) || (t > 0 && t < 1)) edges++;
        for (const [k, v] of at(i).entries()) {
          expect(Math.abs(v - want[k]!), `pixel ${i}`).toBeLessThanOrEqual(2);
        }
      }
      expect(edges).toBeGreaterThan(300);
      expect(at(45 * W + 60)).toEqual([255, 0, 0]); // the star's centre shows the ellipse
      expect(at(2 * W + 2)).toEqual([255, 255, 255]);

      // For a look, the three tools together: the magic wand on the picture, clicked in the white corner, takes
      // the white around both shapes (and their palest edge pixels); filled green on a layer of its own.
      await ok(s, 'create_layer', { name: 'Wand' });
      await ok(s, 'select_color_region', { x: 2, y: 2, sample_all_layers: true });
      await ok(s, 'fill_selection', { color: '#2e8b57' });
      await ok(s, 'deselect');
      await ok(s, 'save_document_as', { path: 'shapes.png' });
      const look = await sharp(Buffer.from(await s.workspace.read('shapes.png')))
        .resize(W * 4, H * 4, { kernel: 'nearest' })
        .png()
        .toBuffer();
      const out = path.join(import.meta.dirname, '../../test-artifacts/selection');
      mkdirSync(out, { recursive: true });
      writeFileSync(path.join(out, 'ellipse-star-wand.png'), look);
      const { data, info } = await sharp(look).raw().toBuffer({ resolveWithObject: true });
      const seen = (x: number, y: number) => {
        const i = (y * 4 * info.width + x * 4) * info.channels;
        return [...data.subarray(i, i + 3)];
      };
      expect(seen(2, 2)).toEqual([0x2e, 0x8b, 0x57]);
      expect(seen(60, 45)).toEqual([255, 0, 0]); // the star's centre: the ellipse, not the wand
      expect(seen(60, 15)).toEqual([0, 0, 255]);
    },
  );
});
