/**
 * Vector masks read from a PSD: a pixel layer's vector mask becomes its layer mask, a shape layer saved without
 * pixels is drawn from its path. psd-tools (an independent reader, its own compositor drawing the same paths) is
 * the reference for what the file looks like.
 */
import { type BezierKnot, type BezierPath, writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../../src/engine/composite/index.js';
import { decodePsd } from '../../../src/engine/io/psd.js';
import { psdToolsAvailable, readWithPsdTools } from '../../support/psd-tools.js';

const W = 200;
const H = 160;

/** A corner knot: both control points on the anchor. */
const corner = (x: number, y: number): BezierKnot => ({ linked: false, points: [x, y, x, y, x, y] });

function polygon(points: readonly [number, number][], operation: BezierPath['operation']): BezierPath {
  return { open: false, operation, fillRule: 'non-zero', knots: points.map(([x, y]) => corner(x, y)) };
}

/** An ellipse as four Bézier knots (the usual κ = 0.5523 handles). */
function ellipse(cx: number, cy: number, rx: number, ry: number): BezierPath {
  const k = 0.5523;
  const knot = (x: number, y: number, dx: number, dy: number): BezierKnot => ({
    linked: true,
    points: [x - dx, y - dy, x, y, x + dx, y + dy],
  });
  return {
    open: false,
    operation: 'combine',
    fillRule: 'non-zero',
    knots: [
      knot(cx, cy - ry, rx * k, 0),
      knot(cx + rx, cy, 0, ry * k),
      knot(cx, cy + ry, -rx * k, 0),
      knot(cx - rx, cy, 0, -ry * k),
    ],
  };
}

function solid(r: number, g: number, b: number) {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) data.set([r, g, b, 255], i * 4);
  return { width: W, height: H, data };
}

/** White ground; a red print shown through a diamond with a square cut out; a blue ellipse shape layer. */
function fileWithVectorMasks(): Uint8Array {
  return writePsdBuffer({
    width: W,
    height: H,
    imageData: solid(255, 255, 255),
    children: [
      { name: '底', left: 0, top: 0, imageData: solid(255, 255, 255) },
      {
        name: '印花',
        left: 0,
        top: 0,
        imageData: solid(220, 30, 40),
        vectorMask: {
          paths: [
            polygon(
              [
                [70, 10],
                [130, 80],
                [70, 150],
                [10, 80],
              ],
              'combine',
            ),
            polygon(
              [
                [55, 65],
                [85, 65],
                [85, 95],
                [55, 95],
              ],
              'subtract',
            ),
          ],
        },
      },
      {
        name: '椭圆',
        left: 0,
        top: 0,
        vectorFill: { type: 'color', color: { r: 20, g: 40, b: 230 } },
        vectorMask: { paths: [ellipse(160, 80, 30, 50)] },
      },
    ],
  });
}

const px = (data: ArrayLike<number>, x: number, y: number) =>
  Array.from({ length: 3 }, (_, c) => data[(y * W + x) * 4 + c]!);

describe('PSD vector masks', () => {
  it('become layer masks, and a shape saved without pixels is drawn from its path', async () => {
    const { state, warnings } = await decodePsd(fileWithVectorMasks());
    expect(warnings.some((w) => w.includes('印花') && w.includes('矢量蒙版已转为图层蒙版'))).toBe(true);
    expect(warnings.some((w) => w.includes('椭圆') && w.includes('绘制为像素图层'))).toBe(true);
    const out = renderDocument(state).data;
    expect(px(out, 70, 40)).toEqual([220, 30, 40]); // inside the diamond
    expect(px(out, 70, 80)).toEqual([255, 255, 255]); // the square cut out of it
    expect(px(out, 15, 20)).toEqual([255, 255, 255]); // outside the diamond
    expect(px(out, 160, 80)).toEqual([20, 40, 230]); // the ellipse
    expect(px(out, 135, 40)).toEqual([255, 255, 255]); // beside it, inside its bounds
  });

  it.skipIf(!psdToolsAvailable())('looks as psd-tools draws the same file', async () => {
    const file = fileWithVectorMasks();
    const { state } = await decodePsd(file);
    const ours = renderDocument(state).data;
    const { composite } = await readWithPsdTools(file, { composite: true });
    expect([composite!.width, composite!.height]).toEqual([W, H]);
    // Edges are anti-aliased by two rasterisers with their own pixel-centre conventions: compared away from
    // them (where our 3 × 3 neighbourhood is one colour), the two agree; and each colour covers the same area.
    const at = (d: ArrayLike<number>, i: number) => d[i * 4]! * 65536 + d[i * 4 + 1]! * 256 + d[i * 4 + 2]!;
    let inner = 0;
    let differ = 0;
    const area = (d: ArrayLike<number>, rgb: number) => {
      let n = 0;
      for (let i = 0; i < W * H; i++) if (at(d, i) === rgb) n++;
      return n;
    };
    for (let y = 1; y < H - 1; y++) {
      for (let x = 1; x < W - 1; x++) {
        const i = y * W + x;
        const flat = [-W - 1, -W, -W + 1, -1, 1, W - 1, W, W + 1].every(
          (o) => at(ours, i + o) === at(ours, i),
        );
        if (!flat) continue;
        inner++;
        if (at(ours, i) !== at(composite!.data, i)) differ++;
      }
    }
    expect(inner).toBeGreaterThan(W * H * 0.85);
    expect(differ).toBe(0);
    for (const rgb of [0xdc1e28, 0x1428e6]) {
      const a = area(ours, rgb);
      expect(Math.abs(a - area(composite!.data, rgb)) / a).toBeLessThan(0.03);
    }
  });
});
