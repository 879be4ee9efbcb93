/**
 * fill_gradient, Photoshop's Gradient tool, through the real Session; ImageMagick's gradients are the reference
 * for the pixels. ImageMagick places a gradient by pixel index (pixel x at coordinate x), Atelier by pixel centre
 * (pixel x at x + 0.5, as Photoshop and the canvas do): a vector from (sx, sy) here is ImageMagick's from
 * (sx − 0.5, sy − 0.5). Tolerance 1 level (the two round halves differently, and Atelier dithers by default: a
 * value between two levels becomes either of them).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { Raster } from '../../src/engine/model.js';
import { CONVERT, imageMagickAvailable } from '../support/imagemagick.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';
import { current, named } from './layer-fixtures.js';

const run = promisify(execFile);
const W = 200;
const H = 100;

/** ImageMagick's gradient (`kind` with its -define settings) as straight RGB bytes, W × H. */
async function magick(kind: string, defines: string[]): Promise<Uint8Array> {
  const args = [
    '-size',
    `${W}x${H}`,
    ...defines.flatMap((d) => ['-define', d]),
    kind,
    '-depth',
    '8',
    'rgb:-',
  ];
  const { stdout } = await run(CONVERT, args, { encoding: 'buffer', maxBuffer: 1 << 24 });
  return new Uint8Array(stdout);
}

/** The layer's pixels over the whole canvas as RGB, and the largest difference from `want` (opaque pixels). */
function maxDiff(r: Raster, want: Uint8Array): number {
  expect([r.x, r.y, r.w, r.h]).toEqual([0, 0, W, H]);
  let worst = 0;
  for (let p = 0; p < W * H; p++) {
    expect(r.data[p * 4 + 3]).toBe(255);
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(r.data[p * 4 + c]! - want[p * 3 + c]!));
  }
  return worst;
}

async function withLayer(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: W, height: H, name: '渐变' });
  await ok(s, 'create_layer', { name: '渐变层' });
  return s;
}

function layer(s: Session): Raster {
  const l = named(current(s), '渐变层');
  if (l.kind !== 'pixel') throw new Error(`渐变层 is ${l.kind}`);
  return l.raster;
}

describe.runIf(imageMagickAvailable())('fill_gradient draws what ImageMagick draws', () => {
  it('linear, along a slanted drag, with the ends held beyond it', async () => {
    const s = await withLayer();
    const r = await ok(s, 'fill_gradient', {
      start_x: 30,
      start_y: 20,
      end_x: 170,
      end_y: 70,
      start_color: '#e63946',
      end_color: '#1d3557',
    });
    expect(r).toMatchObject({ type: 'linear', area: 'whole_layer', start_color: '#e63946' });
    const want = await magick('gradient:#e63946-#1d3557', ['gradient:vector=29.5,19.5,169.5,69.5']);
    expect(maxDiff(layer(s), want)).toBeLessThanOrEqual(1);
    // Before the start: the start colour; past the end: the end colour.
    expect([...layer(s).data.subarray(0, 3)]).toEqual([0xe6, 0x39, 0x46]);
    const last = (W * H - 1) * 4;
    expect([...layer(s).data.subarray(last, last + 3)]).toEqual([0x1d, 0x35, 0x57]);
  });

  it('three colours: a stop at 50 % draws two gradients side by side', async () => {
    const s = await withLayer();
    const r = await ok(s, 'fill_gradient', {
      start_x: 0,
      start_y: 0,
      end_x: W,
      end_y: 0,
      start_color: '#e63946',
      end_color: '#1d3557',
      stops: [{ location: 50, color: '#F1C40F' }],
    });
    expect(r).toMatchObject({ stops: [{ location: 50, color: '#f1c40f' }] });
    // Each half is ImageMagick's two-colour gradient over 100 px, pixel x at its centre x + 0.5.
    const half = (colors: string) => [
      '(',
      '-size',
      `${W / 2}x${H}`,
      '-define',
      `gradient:vector=-0.5,0,${W / 2 - 0.5},0`,
      `gradient:${colors}`,
      ')',
    ];
    const { stdout } = await run(
      CONVERT,
      [...half('#e63946-#f1c40f'), ...half('#f1c40f-#1d3557'), '+append', '-depth', '8', 'rgb:-'],
      { encoding: 'buffer', maxBuffer: 1 << 24 },
    );
    expect(maxDiff(layer(s), new Uint8Array(stdout))).toBeLessThanOrEqual(1);
  });

  it('radial, from the start out to the end’s distance', async () => {
    const s = await withLayer();
    await ok(s, 'fill_gradient', {
      start_x: 100,
      start_y: 50,
      end_x: 160,
      end_y: 50,
      start_color: '#ffffff',
      end_color: '#2a9d8f',
      type: 'radial',
    });
    const want = await magick('radial-gradient:#ffffff-#2a9d8f', [
      'gradient:center=99.5,49.5',
      'gradient:radii=60,60',
    ]);
    expect(maxDiff(layer(s), want)).toBeLessThanOrEqual(1);
  });

  it('reflected: the same both ways from the start', async () => {
    const s = await withLayer();
    await ok(s, 'fill_gradient', {
      start_x: 100,
      start_y: 0,
      end_x: 160,
      end_y: 0,
      start_color: '#000000',
      end_color: '#ffffff',
      type: 'reflected',
    });
    const d = layer(s).data;
    for (const dx of [5, 20, 45, 80]) {
      const left = (10 * W + (99 - dx)) * 4;
      const right = (10 * W + (100 + dx)) * 4;
      expect(Math.abs(d[left]! - d[right]!)).toBeLessThanOrEqual(1);
    }
    expect(d[(10 * W + 100) * 4]).toBeLessThanOrEqual(3);
    expect(d[(10 * W + 199) * 4]).toBe(255);
    expect(d[(10 * W + 0) * 4]).toBe(255);
  });
});

describe('fill_gradient on a layer, as Photoshop’s Gradient tool paints', () => {
  it('inside the selection only; to transparent, over what is there', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: W, height: H, name: '渐变' });
    await ok(s, 'select_rect', { left: 50, top: 20, right: 150, bottom: 80 });
    // On the white background: red fading to nothing, left to right across the selection.
    const r = await ok(s, 'fill_gradient', {
      start_x: 50,
      start_y: 0,
      end_x: 150,
      end_y: 0,
      start_color: '#ff0000',
      end_color: '#ff0000',
      end_opacity: 0,
    });
    expect(r).toMatchObject({
      area: 'selection',
      filled_bounds: { left: 50, top: 20, width: 100, height: 60 },
    });
    const bg = named(current(s), '背景');
    if (bg.kind !== 'pixel') throw new Error(`the background is ${bg.kind}`);
    const at = (x: number, y: number) => [...bg.raster.data.subarray((y * W + x) * 4, (y * W + x) * 4 + 4)];
    // Outside the selection: white as it was.
    expect(at(10, 50)).toEqual([255, 255, 255, 255]);
    expect(at(100, 10)).toEqual([255, 255, 255, 255]);
    // Inside: red at opacity 1 − t over white, t from the start at pixel centres: green and blue 255 · t.
    for (const x of [50, 75, 100, 125, 149]) {
      const t = (x + 0.5 - 50) / 100;
      const px = at(x, 50);
      expect(px[0]).toBe(255);
      expect(Math.abs(px[1]! - 255 * t), `x = ${x}`).toBeLessThanOrEqual(1);
      expect(px[3]).toBe(255);
    }
    // One history step, undone whole.
    await ok(s, 'undo');
    const back = named(current(s), '背景');
    expect(
      back.kind === 'fill' || (back.kind === 'pixel' && back.raster.data[(50 * W + 50) * 4 + 1] === 255),
    ).toBe(true);
  });

  it('stops: opacity given where asked and carried between them, sorted by location, a hard edge where two meet', async () => {
    const s = await withLayer();
    // Red to blue across the layer, transparent at both ends.
    const clearEnds = {
      start_x: 0,
      start_y: 0,
      end_x: W,
      end_y: 0,
      start_color: '#ff0000',
      end_color: '#0000ff',
      start_opacity: 0,
      end_opacity: 0,
    };
    // Solid at 25 %; blue from 60 %, where the red stops: two stops at one location.
    await ok(s, 'fill_gradient', {
      ...clearEnds,
      stops: [
        { location: 60, color: '#0000ff' },
        { location: 25, color: '#ff0000', opacity: 100 },
        { location: 60, color: '#ff0000' },
      ].reverse(),
    });
    const d = layer(s).data;
    const at = (x: number) => [...d.subarray((50 * W + x) * 4, (50 * W + x) * 4 + 4)];
    for (const x of [0, 20, 49, 50, 80, 119, 120, 160, 199]) {
      const t = (x + 0.5) / W;
      // Opacity: 0 → 1 over 0–25 %, 1 → 0 over 25–100 % (the 60 % stops give none of their own).
      const alpha = t <= 0.25 ? t / 0.25 : 1 - (t - 0.25) / 0.75;
      const px = at(x);
      expect(Math.abs(px[3]! - 255 * alpha), `alpha at x = ${x}`).toBeLessThanOrEqual(1);
      if (px[3]! < 8) continue;
      // Red up to 60 %, blue after: the two stops at 60 % in the order given ([… red, blue] once sorted).
      expect(px.slice(0, 3), `colour at x = ${x}`).toEqual(t < 0.6 ? [255, 0, 0] : [0, 0, 255]);
    }
    // Every stop at zero opacity: nothing to paint, no history step.
    const before = hashEditor(s.editor.snapshot);
    const r = await ok(s, 'fill_gradient', {
      ...clearEnds,
      stops: [{ location: 50, color: '#00ff00', opacity: 0 }],
    });
    expect(String(r.note)).toMatch(/不透明度都为 0/);
    expect(hashEditor(s.editor.snapshot)).toBe(before);
  });

  it('dithers by default, as Photoshop: a shallow gradient has no bands, the levels it starts and ends on stay exact', async () => {
    const [w, h] = [1000, 64];
    const draw = async (dither?: boolean) => {
      const s = newSession();
      await ok(s, 'create_document', { width: w, height: h, name: '色带' });
      await ok(s, 'create_layer', { name: '渐变层' });
      // Eight levels over 800 px: without dither, bands 100 px wide.
      const r = await ok(s, 'fill_gradient', {
        start_x: 100,
        start_y: 0,
        end_x: 900,
        end_y: 0,
        start_color: '#404040',
        end_color: '#484848',
        ...(dither === undefined ? {} : { dither }),
      });
      expect(r.dither).toBe(dither ?? true);
      const l = named(current(s), '渐变层');
      if (l.kind !== 'pixel') throw new Error('not pixels');
      expect([l.raster.x, l.raster.w, l.raster.h]).toEqual([0, w, h]);
      return l.raster.data;
    };
    const exact = (x: number) => 64 + 8 * Math.min(1, Math.max(0, (x + 0.5 - 100) / 800));
    /** The worst distance of a 10-column block's mean from the exact ramp, and of any pixel from it. */
    const errors = (d: Uint8ClampedArray) => {
      let block = 0;
      let pixel = 0;
      for (let x0 = 0; x0 < w; x0 += 10) {
        let sum = 0;
        let want = 0;
        for (let x = x0; x < x0 + 10; x++) {
          want += exact(x) * h;
          for (let y = 0; y < h; y++) {
            const i = (y * w + x) * 4;
            expect(d[i + 1]).toBe(d[i]);
            expect(d[i + 3]).toBe(255);
            sum += d[i]!;
            pixel = Math.max(pixel, Math.abs(d[i]! - exact(x)));
          }
        }
        block = Math.max(block, Math.abs(sum - want) / (10 * h));
      }
      return { block, pixel };
    };
    const dithered = await draw();
    const banded = await draw(false);
    // Dithered: every pixel one of the two levels around its value, each block's mean on the ramp.
    const d = errors(dithered);
    expect(d.pixel).toBeLessThan(1);
    expect(d.block).toBeLessThan(0.1);
    // Without: every column one level, in steps half a level off the ramp at their edges.
    const b = errors(banded);
    expect(b.block).toBeGreaterThan(0.4);
    for (let x = 0; x < w; x++) expect(banded[(63 * w + x) * 4]).toBe(banded[x * 4]);
    // The flat runs before the start and past the end are their levels exactly, dithered or not.
    for (let y = 0; y < h; y++) {
      for (const x of [0, 50, 99, 901, 999]) {
        expect(dithered[(y * w + x) * 4]).toBe(x < 100 ? 0x40 : 0x48);
      }
    }
    // The same gradient gives the same pixels every time.
    expect(Buffer.compare(Buffer.from(await draw(true)), Buffer.from(dithered))).toBe(0);
  });

  it('bad input is refused with a clear error and leaves the document as it was', async () => {
    const s = await withLayer();
    await ok(s, 'create_text_layer', { text: '标题', x: 10, y: 10, font_size: 30 });
    const base = {
      start_x: 0,
      start_y: 0,
      end_x: 100,
      end_y: 0,
      start_color: '#000000',
      end_color: '#ffffff',
    };
    const kept = hashEditor(s.editor.snapshot);
    const cases: [Record<string, unknown>, RegExp][] = [
      [base, /文字/],
      [{ ...base, end_x: 0 }, /起点和终点相同/],
      [{ ...base, type: 'diamond' }, /^type /],
      [{ ...base, end_opacity: 101 }, /^end_opacity /],
      [{ ...base, start_color: 'red' }, /^start_color /],
      [{ ...base, end_y: 1e9 }, /^end_y 超出范围/],
      [{ ...base, stops: [{ location: 101, color: '#ff0000' }] }, /^stops\[0\]\.location /],
      [{ ...base, stops: [{ location: 50, color: 'red' }] }, /^stops\[0\]\.color /],
      [{ ...base, stops: [{ location: 50 }] }, /^缺少必填参数 stops\[0\]\.color/],
      [
        { ...base, stops: Array.from({ length: 31 }, () => ({ location: 50, color: '#ff0000' })) },
        /^stops 项数过多/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await call(s, 'fill_gradient', args);
      expect(r.ok, JSON.stringify(args)).toBe(false);
      if (!r.ok) expect(`${r.error.message} ${r.error.hint ?? ''}`).toMatch(message);
      expect(hashEditor(s.editor.snapshot)).toBe(kept);
    }
  });

  it('on the layer mask (target mask): the layer fades out along the drag, its pixels untouched', async () => {
    const s = await withLayer();
    await ok(s, 'fill_selection', { color: '#c0392b' });
    // White at the left to black at the right, across the whole canvas, on the mask.
    const fade = {
      start_x: 0,
      start_y: 0,
      end_x: 200,
      end_y: 0,
      start_color: '#ffffff',
      end_color: '#000000',
      target: 'mask',
    };
    const refused = await call(s, 'fill_gradient', fade);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.hint).toMatch(/add_layer_mask/);
    await ok(s, 'add_layer_mask', { name: '渐变层' });
    const pixels = layer(s).data.slice();
    const r = await ok(s, 'fill_gradient', fade);
    expect(r).toMatchObject({ target: 'mask', area: 'whole_layer' });
    expect(layer(s).data).toEqual(pixels);
    const mask = named(current(s), '渐变层').mask!;
    for (const x of [0, 50, 100, 150, 199]) {
      const t = (x + 0.5) / 200;
      expect(
        Math.abs(mask.data[(40 - mask.y) * mask.w + (x - mask.x)]! - 255 * (1 - t)),
        `x = ${x}`,
      ).toBeLessThanOrEqual(1);
    }
    // Over the white background: the red at the mask's share, white at the rest (±1 level of rounding).
    for (const x of [2, 100, 198]) {
      const hex = String((await ok(s, 'get_pixel_color', { x, y: 50 })).hex);
      const shown = Math.round(255 * (1 - (x + 0.5) / 200)) / 255;
      [0xc0, 0x39, 0x2b].forEach((v, i) => {
        const got = Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16);
        expect(Math.abs(got - (v * shown + 255 * (1 - shown))), `${hex} at x = ${x}`).toBeLessThanOrEqual(1);
      });
    }
  });
});
