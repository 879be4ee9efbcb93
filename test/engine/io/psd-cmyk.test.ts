/**
 * CMYK PSD files: written by encodePsd for a CMYK document and read back by psd-tools and ImageMagick (both
 * independent, ICC-aware through LittleCMS) and by decodePsd. Inks are compared exactly: the file holds the
 * inks of Mode › CMYK's one separation of the RGB document (not a second separation of the round-tripped
 * pixels, which differs by up to 32/255), and our press-profile separation of colours that have none. Colours read through the embedded profile are compared between
 * readers of the same inks (psd-tools' LittleCMS and ours): within 3/255.
 */

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { cmykaFromRgba, rgbaFromCmyk } from '../../../src/engine/cmyk-pixels.js';
import { convertStateToCmyk } from '../../../src/engine/color-mode.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import type { DocState, Layer, Raster } from '../../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH, pressProfile } from '../../../src/engine/press-profile.js';
import { solidRaster } from '../../../src/engine/raster.js';
import { inkOf } from '../../../src/engine/raster-inks.js';
import { convertTo, IDENTIFY, imageMagickAvailable } from '../../support/imagemagick.js';

function identify(file: string, format: string): Promise<string> {
  return Promise.resolve(
    execFileSync(IDENTIFY, ['-format', format, `${file}[0]`], { encoding: 'utf8' }).trim(),
  );
}

import {
  flattenPsdTools,
  type PsdToolsResult,
  psdToolsAvailable,
  readWithPsdTools,
} from '../../support/psd-tools.js';
import { withTempFiles } from '../press-profile-support.js';
import { buildRichDoc, documentFields, H, W } from './psd-fixtures.js';

const ready = psdToolsAvailable() && imageMagickAvailable() && existsSync(DEFAULT_PROFILE_PATH);

/** A composite with opaque, semi-transparent and empty pixels. */
function compositeWithAlpha(): Raster {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = (y * W + x) * 4;
      data[k] = (x * 7) % 256;
      data[k + 1] = (y * 11) % 256;
      data[k + 2] = (x * y) % 256;
      data[k + 3] = x < 10 ? 0 : x < 20 ? 128 : 255;
    }
  }
  return { x: 0, y: 0, w: W, h: H, data };
}

function layersOf(state: DocState): Layer[] {
  const out: Layer[] = [];
  const walk = (ids: readonly number[]) => {
    for (const id of ids) {
      const l = state.layers.get(id)!;
      out.push(l);
      if (l.kind === 'group') walk(l.children);
    }
  };
  walk(state.root);
  return out;
}

function pixelsOfLayer(l: Layer, state: DocState): Raster | undefined {
  if (l.kind === 'fill') return solidRaster({ x: 0, y: 0, w: state.width, h: state.height }, l.color);
  if (l.kind === 'group' || l.kind === 'adjustment') return undefined;
  return l.raster;
}

/** Every property of the tree, pixels left out (they are compared with a tolerance). */
function shapeOf(state: DocState): unknown {
  const node = (id: number): unknown => {
    const out = documentFields(state.layers.get(id)!);
    for (const key of ['raster', 'source', 'mask'] as const) {
      const r = out[key] as Raster | undefined;
      if (r) out[key] = { x: r.w ? r.x : 0, y: r.h ? r.y : 0, w: r.w, h: r.h };
    }
    if (out.kind === 'text') out.text = { ...(out.text as object), renderedFont: undefined };
    if (Array.isArray(out.children)) out.children = (out.children as number[]).map(node);
    return out;
  };
  return {
    width: state.width,
    height: state.height,
    dpi: state.dpi,
    mode: state.mode,
    root: state.root.map(node),
  };
}

function maxDiff(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  aStep: number,
  bStep: number,
  n: number,
  mask?: (i: number) => boolean,
) {
  let worst = 0;
  for (let i = 0; i < n; i++) {
    if (mask && !mask(i)) continue;
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(a[i * aStep + c]! - b[i * bStep + c]!));
  }
  return worst;
}

describe.skipIf(!ready)('CMYK PSD', () => {
  let original: DocState;
  let state: DocState;
  let composite: Raster;
  let file: Buffer;
  let tools: PsdToolsResult;
  let back: DocState;
  let backWarnings: string[];

  beforeAll(async () => {
    original = buildRichDoc();
    state = await convertStateToCmyk(original);
    composite = compositeWithAlpha();
    const encoded = await encodePsd(state, composite, { name: 'cmyk' });
    expect(encoded.warnings.join()).not.toMatch(/RGB/);
    file = encoded.buffer;
    tools = await readWithPsdTools(file, { pixels: true });
    ({ state: back, warnings: backWarnings } = await decodePsd(file));
  }, 120_000);

  it('is colour mode 4 with four ink channels plus transparency, and embeds the press profile once', () => {
    expect(file.readUInt16BE(24)).toBe(4);
    expect(tools.dump.colorMode).toBe(4);
    expect(tools.dump.channels).toBe(5);
    expect([tools.dump.width, tools.dump.height]).toEqual([W, H]);
    // Image resources: walk them and count the ICC profiles (1039).
    let at = 26 + 4 + file.readUInt32BE(26);
    const end = at + 4 + file.readUInt32BE(at);
    at += 4;
    const profiles: Buffer[] = [];
    while (at < end) {
      const id = file.readUInt16BE(at + 4);
      const nameLen = file[at + 6]!;
      const nameSize = (nameLen + 2) & ~1;
      const size = file.readUInt32BE(at + 6 + nameSize);
      const data = file.subarray(at + 10 + nameSize, at + 10 + nameSize + size);
      if (id === 1039) profiles.push(data);
      at += 10 + nameSize + size + (size % 2);
    }
    expect(profiles).toHaveLength(1);
    expect(Buffer.compare(profiles[0]!, Buffer.from(pressProfile().bytes))).toBe(0);
    const flat = flattenPsdTools(tools.dump.layers).filter((l) => l.kind !== 'group');
    expect(flat[0]!.channelIds).toEqual([0, 1, 2, 3]); // the Background: no transparency
    const masked = flat.find((l) => l.name === '有蒙版')!;
    expect(masked.channelIds).toEqual([-1, 0, 1, 2, 3, -2]);
  });

  it('keeps the layer tree and its properties as psd-tools reads them', () => {
    const ours = layersOf(state).map((l) => [l.name, l.visible, Math.round(l.opacity * 255), l.clipped]);
    const theirs = flattenPsdTools(tools.dump.layers).map((l) => [l.name, l.visible, l.opacity, l.clipping]);
    expect(theirs).toEqual(ours);
    const blends = flattenPsdTools(tools.dump.layers)
      .filter((l) => l.name.startsWith('模式 '))
      .map((l) => [l.name, l.blend]);
    expect(blends.length).toBeGreaterThan(20);
    for (const [name, blend] of blends) expect(`模式 ${blend}`).toBe(name);
  });

  it('holds, per layer, exactly the inks of the conversion, which psd-tools and decodePsd read as the same colours', async () => {
    const byName = new Map(layersOf(state).map((l) => [l.name, l]));
    const before = new Map(layersOf(original).map((l) => [l.name, l]));
    const reopened = new Map(layersOf(back).map((l) => [l.name, l]));
    const layers = tools.pixels!.filter((p) => p.layer !== null);
    expect(layers.length).toBeGreaterThan(30);
    let compared = 0;
    for (const p of layers) {
      const l = byName.get(p.layer!)!;
      const r = pixelsOfLayer(l, state)!;
      expect(p.mode).toBe('CMYK');
      expect([p.width, p.height]).toEqual([r.w, r.h]);
      // A layer with pixels: the separation of its RGB pixels before the conversion. A fill: its colour's.
      const rgb = l.kind === 'fill' ? r : pixelsOfLayer(before.get(p.layer!)!, original)!;
      const inks = await cmykaFromRgba(rgb.data, r.w, r.h, pressProfile().path);
      const n = r.w * r.h;
      for (let i = 0; i < n; i++) {
        for (let c = 0; c < 4; c++) {
          if (p.data[i * 4 + c] !== inks[i * 5 + c]) {
            throw new Error(
              `${p.layer} pixel ${i} ink ${c}: psd-tools ${p.data[i * 4 + c]}, ours ${inks[i * 5 + c]}`,
            );
          }
        }
      }
      const step = p.srgbMode === 'RGBA' ? 4 : 3;
      const ours = pixelsOfLayer(reopened.get(p.layer!)!, back)!;
      expect(
        maxDiff(p.srgb!, ours.data, step, 4, n, (i) => r.data[i * 4 + 3]! > 0),
        p.layer!,
      ).toBeLessThanOrEqual(3);
      compared += n;
    }
    expect(compared).toBeGreaterThan(W * H);
  });

  it('stores the merged image as CMYK that ImageMagick reads as our inks and, through the profile, our colours', async () => {
    const inks = await cmykaFromRgba(composite.data, W, H, pressProfile().path);
    // A pixel of a colour the conversion separated takes the inks it came from (the document's ink table).
    let fromTable = 0;
    for (let i = 0; i < W * H; i++) {
      const d = composite.data;
      const v = d[i * 4 + 3] ? inkOf(state.inkTable!, d[i * 4]!, d[i * 4 + 1]!, d[i * 4 + 2]!) : -1;
      if (v < 0) continue;
      inks.set([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255], i * 5);
      fromTable++;
    }
    expect(fromTable).toBeLessThan(W * H); // most of this composite is colours of its own
    const raw = await withTempFiles({ 'in.psd': file }, (f) =>
      convertTo([`${f['in.psd']}[0]`, '-depth', '8', 'cmyka:OUT'], 'cmyka'),
    );
    expect(raw.length).toBe(W * H * 5);
    let worstInk = 0;
    for (let i = 0; i < W * H; i++) {
      const a = composite.data[i * 4 + 3]!;
      expect(raw[i * 5 + 4]).toBe(a);
      // Semi-transparent inks are matted over white paper, as Photoshop stores a merged image.
      for (let c = 0; c < 4; c++) {
        const want = Math.round((inks[i * 5 + c]! * a) / 255);
        worstInk = Math.max(worstInk, Math.abs(raw[i * 5 + c]! - want));
      }
    }
    expect(worstInk).toBe(0);
    const description = await withTempFiles({ 'in.psd': file }, (f) =>
      identify(f['in.psd']!, '%[icc:description]'),
    );
    expect(description).toBe(pressProfile().name);
    // Through the embedded profile: psd-tools (Pillow's LittleCMS) and ours read the same colours from the inks.
    const merged = tools.pixels!.find((p) => p.name === 'merged')!;
    expect(merged.mode).toBe('CMYK');
    const ours = await rgbaFromCmyk(new Uint8Array(inks), W, H, 5, pressProfile().bytes);
    const step = merged.srgbMode === 'RGBA' ? 4 : 3;
    expect(
      maxDiff(merged.srgb!, ours, step, 4, W * H, (i) => composite.data[i * 4 + 3] === 255),
    ).toBeLessThanOrEqual(3);
  });

  it('reopens as a CMYK document with the same layers, properties and transparency', () => {
    expect(backWarnings).toEqual([]);
    expect(back.mode).toBe('cmyk');
    expect(shapeOf(back)).toEqual(shapeOf(state));
    const ours = layersOf(state);
    const theirs = layersOf(back);
    for (let i = 0; i < ours.length; i++) {
      const a = pixelsOfLayer(ours[i]!, state);
      const b = pixelsOfLayer(theirs[i]!, back);
      if (!a || !b || a.w === 0) continue;
      for (let j = 3; j < a.data.length; j += 4) {
        if (a.data[j] !== b.data[j]) throw new Error(`alpha of ${ours[i]!.name} at ${j >> 2}`);
      }
    }
  });
});
