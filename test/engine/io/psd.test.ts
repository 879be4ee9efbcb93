import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it, vi } from 'vitest';
import { EditorError } from '../../../src/engine/errors.js';
import { decodePsd, encodePsd, smartCorners, smartTransformFromCorners } from '../../../src/engine/io/psd.js';
import type { BlendMode, DocState, Layer } from '../../../src/engine/model.js';
import { convertTo, imageMagickAvailable } from '../../support/imagemagick.js';
import {
  flattenPsdTools,
  type PsdToolsLayer,
  psdToolsAvailable,
  readWithPsdTools,
  SYSTEM_PYTHON,
} from '../../support/psd-tools.js';
import { tempDir } from '../../support/session.js';
import { buildRichDoc, DocBuilder, H, NO_LOCKS, ramp, testComposite, treeOf, W } from './psd-fixtures.js';

function flattenState(state: DocState): Layer[] {
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

function bboxOf(l: Layer, state: DocState): [number, number, number, number] | undefined {
  const r =
    l.kind === 'fill'
      ? { x: 0, y: 0, w: state.width, h: state.height }
      : l.kind === 'group' || l.kind === 'adjustment'
        ? undefined
        : l.raster;
  if (!r) return undefined;
  if (r.w === 0 || r.h === 0) return [0, 0, 0, 0];
  return [r.x, r.y, r.x + r.w, r.y + r.h];
}

const pt = psdToolsAvailable() ? describe : describe.skip;

const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

describe('encodePsd → decodePsd round trip', () => {
  it('gives back the same document: tree, order, properties and pixels', async () => {
    const state = buildRichDoc();
    const { buffer, warnings } = await encodePsd(state, testComposite(), { name: '测试' });
    expect(warnings).toEqual([]);
    const back = await decodePsd(buffer);
    expect(back.warnings).toEqual([]);
    expect(treeOf(back.state)).toEqual(treeOf(state));
    // Ids are 1..n in file order (pre-order, bottom → top); the top layer is active.
    expect(back.state.nextId).toBe(state.nextId);
    expect([...back.state.layers.keys()].sort((a, b) => a - b)).toEqual(
      [...state.layers.keys()].sort((a, b) => a - b),
    );
    expect(back.state.active).toBe(state.root[state.root.length - 1]);
    expect(back.state.selected).toEqual([back.state.active]);
    expect(back.state.selection).toBeNull();
    expect(back.state.foreground).toEqual({ r: 0, g: 0, b: 0 });
  });

  it('writes fill layers as pixels: a fill above the bottom comes back as a pixel layer of the canvas', async () => {
    const b = new DocBuilder();
    const base = {
      visible: true,
      opacity: 1,
      blend: 'normal' as BlendMode,
      clipped: false,
      locks: NO_LOCKS,
    };
    const bottom = b.add((id) => ({
      ...base,
      id,
      kind: 'fill' as const,
      name: '底色',
      color: { r: 1, g: 2, b: 3 },
    }));
    const upper = b.add((id) => ({
      ...base,
      id,
      kind: 'fill' as const,
      name: '上层',
      color: { r: 9, g: 8, b: 7 },
    }));
    const state = b.state([bottom, upper]);
    const { buffer } = await encodePsd(state, testComposite());
    const back = await decodePsd(buffer);
    const [a, c] = flattenState(back.state);
    expect(a).toMatchObject({ kind: 'fill', name: '底色', color: { r: 1, g: 2, b: 3 } });
    expect(a?.kind === 'fill' && a.background).toBeFalsy();
    expect(c?.kind).toBe('pixel');
    if (c?.kind === 'pixel') {
      expect([c.raster.x, c.raster.y, c.raster.w, c.raster.h]).toEqual([0, 0, W, H]);
      expect(Array.from(c.raster.data.subarray(0, 4))).toEqual([9, 8, 7, 255]);
    }
  });

  it('snaps opacities to whole percents but keeps other byte values exact', async () => {
    const b = new DocBuilder();
    const layers = [0.01, 0.37, 0.5, 0.99, 200 / 255, 1].map((op, i) =>
      b.pixel(`L${i}`, ramp(i * 10, 0, 5, 5, { r: 1, g: 2, b: 3 }), { opacity: op }),
    );
    const state = b.state(layers);
    const back = await decodePsd((await encodePsd(state, testComposite())).buffer);
    expect(flattenState(back.state).map((l) => l.opacity)).toEqual([0.01, 0.37, 0.5, 0.99, 200 / 255, 1]);
  });

  it('writes a CMYK document as a CMYK PSD (and PSB) and reads it back as CMYK', async () => {
    const b = new DocBuilder();
    for (const width of [W, 30001]) {
      const state: DocState = {
        ...b.state([b.pixel('a', ramp(width - 6, 0, 4, 2, { r: 10, g: 120, b: 200 }, 255))], {
          mode: 'cmyk',
        }),
        width,
        height: 2,
      };
      const { buffer, warnings } = await encodePsd(state, testComposite(width, 2));
      expect(warnings.length).toBe(width > 30000 ? 1 : 0); // the PSB is said
      expect(buffer.readUInt16BE(4)).toBe(width > 30000 ? 2 : 1);
      expect(buffer.readUInt16BE(24)).toBe(4); // colour mode CMYK in the header
      const back = (await decodePsd(buffer)).state;
      expect([back.mode, back.width]).toEqual(['cmyk', width]);
      const layer = [...back.layers.values()].find((l) => l.name === 'a')!;
      expect(layer.kind === 'pixel' && [layer.raster.x, layer.raster.w]).toEqual([width - 6, 4]);
    }
  });

  it('writes PSB beyond 30000 px and reads it back', async () => {
    const b = new DocBuilder();
    const wide = 30001;
    const state: DocState = {
      ...b.state([b.pixel('条', ramp(29990, 0, 11, 2, { r: 5, g: 6, b: 7 }, 255))]),
      width: wide,
      height: 2,
    };
    const { buffer } = await encodePsd(state, testComposite(wide, 2));
    expect(buffer.readUInt16BE(4)).toBe(2);
    const back = await decodePsd(buffer);
    expect(back.state.width).toBe(wide);
    expect(treeOf(back.state)).toEqual(treeOf(state));
  });

  it('crops a composite larger than the canvas instead of failing', async () => {
    const b = new DocBuilder();
    const state = b.state([b.pixel('a', ramp(0, 0, 4, 4, { r: 1, g: 2, b: 3 }))]);
    const big = testComposite(W + 10, H + 10);
    await expect(encodePsd(state, big)).resolves.toMatchObject({ warnings: [] });
  });

  it('maps smart-object transforms to corners and back', () => {
    for (const t of [
      { cx: 10, cy: 20, scaleX: 1, scaleY: 1, angle: 0 },
      { cx: 90.5, cy: 20, scaleX: 1.5, scaleY: 0.5, angle: 30 },
      { cx: -4, cy: 7.25, scaleX: 2, scaleY: -1, angle: -135 },
      { cx: 0, cy: 0, scaleX: 0.25, scaleY: 3, angle: 180 },
    ]) {
      expect(smartTransformFromCorners(smartCorners(t, 16, 10), 16, 10)).toEqual(t);
    }
    // Not a rectangle (perspective): no affine transform.
    expect(smartTransformFromCorners([0, 0, 10, 0, 12, 10, 0, 10], 10, 10)).toBeUndefined();
  });
});

describe('decodePsd of other files', () => {
  it('rejects bytes that are not a PSD with unsupported', async () => {
    await expect(decodePsd(Buffer.from('not a psd at all, 不是 PSD'))).rejects.toMatchObject({
      code: 'unsupported',
    });
    await expect(decodePsd(Buffer.from('8BPS'))).rejects.toBeInstanceOf(EditorError);
    const { buffer } = await encodePsd(buildRichDoc(), testComposite());
    await expect(decodePsd(buffer.subarray(0, Math.floor(buffer.length / 2)))).rejects.toMatchObject({
      code: 'io_error',
    });
  });

  it("keeps ag-psd's notes on data it cannot parse off stdout (atelier run's JSONL) and says so", async () => {
    const { buffer } = await encodePsd(buildRichDoc(), testComposite());
    const file = Buffer.from(buffer);
    // Control bytes where a text layer's engine data has white space: what a damaged file holds.
    const at = file.indexOf('/Editor', 0, 'latin1');
    expect(at).toBeGreaterThan(3);
    file.fill(2, at - 3, at);
    const log = vi.spyOn(console, 'log');
    try {
      const { state, warnings } = await decodePsd(file);
      expect(log).not.toHaveBeenCalled();
      expect(warnings.some((w) => w.includes('无法解析') && !/\p{Cc}/u.test(w))).toBe(true);
      expect(state.layers.size).toBe(buildRichDoc().layers.size);
    } finally {
      log.mockRestore();
    }
  });

  it('refuses to write a layer further out than the file records, instead of wrapping its position', async () => {
    const state = buildRichDoc();
    const layers = new Map(state.layers);
    const [id, pixel] = [...layers].find(([, l]) => l.kind === 'pixel')!;
    if (pixel.kind !== 'pixel') throw new Error('unreachable');
    layers.set(id, { ...pixel, raster: { ...pixel.raster, x: 3_000_000_000 } });
    await expect(encodePsd({ ...state, layers }, testComposite())).rejects.toMatchObject({
      code: 'out_of_bounds',
    });
  });

  it('refuses the colour modes it cannot read by name, instead of misreading them', async () => {
    const { buffer } = await encodePsd(buildRichDoc(), testComposite());
    for (const [mode, name] of [
      [0, '位图'],
      [2, '索引颜色'],
      [9, 'Lab'],
    ] as const) {
      const file = Buffer.from(buffer);
      file.writeUInt16BE(mode, 24);
      await expect(decodePsd(file)).rejects.toMatchObject({
        code: 'unsupported',
        message: `暂不支持打开 ${name} 模式的 PSD`,
      });
    }
  });

  /** A one-layer PSD whose resolution record says `resolution` in `unit` (what other programs write). */
  const withResolution = (resolution: number, unit: 'PPI' | 'PPCM') =>
    writePsdBuffer({
      width: 4,
      height: 4,
      imageResources: {
        resolutionInfo: {
          horizontalResolution: resolution,
          horizontalResolutionUnit: unit,
          widthUnit: unit === 'PPI' ? 'Inches' : 'Centimeters',
          verticalResolution: resolution,
          verticalResolutionUnit: unit,
          heightUnit: unit === 'PPI' ? 'Inches' : 'Centimeters',
        },
      },
      children: [
        {
          name: '层',
          left: 0,
          top: 0,
          imageData: { width: 4, height: 4, data: new Uint8ClampedArray(64).fill(200) },
        },
      ],
    });

  it('reads the resolution in pixels per inch whatever unit Photoshop displays it in', async () => {
    // Saved by a designer who works in 像素/厘米: 300 ppi in the file, shown as 118.11 px/cm.
    const file = withResolution(300, 'PPCM');
    expect((await decodePsd(file)).state.dpi).toBe(300);
    if (imageMagickAvailable()) {
      // ImageMagick, an independent reader, says the same: 118.11 px/cm is 300 ppi.
      const target = path.join(tempDir('atelier-ppcm-'), 'ppcm.psd');
      writeFileSync(target, file);
      const density = execFileSync(
        '/usr/bin/identify',
        ['-units', 'PixelsPerInch', '-format', '%x\n', target],
        {
          encoding: 'utf8',
        },
      );
      // One line per image in the file (the merged image, then the layer).
      expect(Number.parseFloat(density.split('\n')[0]!)).toBeCloseTo(300, 0);
    }
  });

  it('writes a resolution beyond what PSD records as the highest it can, with a warning, not wrapped', async () => {
    // 40,000 DPI (an image's pHYs can say so): 40000 × 65536 does not fit the signed 16.16 field.
    const b = new DocBuilder();
    const state = { ...b.state([b.pixel('条', ramp(0, 0, 4, 4, { r: 5, g: 90, b: 200 }, 255))]), dpi: 40000 };
    const { buffer, warnings } = await encodePsd(state, testComposite(4, 4));
    expect(warnings.join('\n')).toMatch(/分辨率 40000 DPI 超过 PSD 能记录的上限，已按 32767 DPI 保存/);
    expect((await decodePsd(buffer)).state.dpi).toBe(32767);
    if (psdToolsAvailable()) expect((await readWithPsdTools(buffer)).dump.resolution?.horizontal).toBe(32767);
  });

  it('reads a placeholder resolution as 72 DPI, as a file without one, so the document can be saved', async () => {
    // What ImageMagick writes when it has no density: 1/65536 ppi.
    const { state, warnings } = await decodePsd(withResolution(1 / 65536, 'PPI'));
    expect(state.dpi).toBe(72);
    expect(warnings.some((w) => w.includes('分辨率') && w.includes('72 DPI'))).toBe(true);
    const again = await decodePsd((await encodePsd(state, testComposite(4, 4))).buffer);
    expect(again.state.dpi).toBe(72);
  });

  it('reports layer styles it cannot keep, and unknown blend keys as unsupported', async () => {
    const data = new Uint8ClampedArray(4 * 4 * 4).fill(200);
    const buf = writePsdBuffer({
      width: 8,
      height: 8,
      children: [
        { name: '普通', left: 0, top: 0, imageData: { width: 4, height: 4, data }, blendMode: 'screen' },
        {
          name: '浮雕',
          left: 2,
          top: 2,
          imageData: { width: 4, height: 4, data },
          effects: {
            bevel: { enabled: true, size: { units: 'Pixels', value: 3 } },
            stroke: [{ enabled: true, fillType: 'gradient', size: { units: 'Pixels', value: 2 } }],
          },
        },
      ],
    });
    const { state, warnings } = await decodePsd(buf);
    const [a, b] = flattenState(state);
    expect(a?.blend).toBe('screen');
    expect(b?.effects).toBeUndefined();
    expect(warnings.some((w) => w.includes('斜面和浮雕') && w.includes('图层样式'))).toBe(true);
    expect(warnings.some((w) => w.includes('描边'))).toBe(true);

    // A blend key no reader knows: ag-psd refuses the file, we say why.
    const bad = Buffer.from(buf);
    const at = bad.indexOf('8BIMscrn', 0, 'latin1');
    expect(at).toBeGreaterThan(0);
    bad.write('zzzz', at + 4, 'latin1');
    const err = await decodePsd(bad).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unsupported' });
    expect((err as Error).message).toContain('zzzz');
  });

  it('reads a smart object whose embedded file is a PSD (Photoshop’s “Convert to Smart Object”)', async () => {
    const b = new DocBuilder();
    const innerState: DocState = {
      ...b.state([b.pixel('内部', ramp(0, 0, 6, 4, { r: 10, g: 20, b: 30 }, 255))]),
      width: 6,
      height: 4,
    };
    const innerComposite = ramp(0, 0, 6, 4, { r: 10, g: 20, b: 30 }, 255);
    const inner = (await encodePsd(innerState, innerComposite)).buffer;
    const id = '20953ddb-9391-11ec-b4f1-c15674f50bc4';
    const corners = smartCorners({ cx: 10, cy: 8, scaleX: 2, scaleY: 2, angle: 0 }, 6, 4);
    const buf = writePsdBuffer({
      width: 20,
      height: 16,
      imageResources: { globalAngle: 90 },
      children: [
        {
          name: '嵌入 PSB',
          left: 4,
          top: 4,
          imageData: { width: 12, height: 8, data: new Uint8ClampedArray(12 * 8 * 4).fill(255) },
          placedLayer: { id, placed: id, type: 'raster', transform: corners, width: 6, height: 4 },
          effects: {
            dropShadow: [
              { enabled: true, useGlobalLight: true, angle: 30, distance: { units: 'Pixels', value: 2 } },
            ],
          },
        },
      ],
      linkedFiles: [{ id, name: '内部.psb', data: new Uint8Array(inner) }],
    });
    const { state, warnings } = await decodePsd(buf);
    const [l] = flattenState(state);
    expect(l?.kind).toBe('smart');
    if (l?.kind === 'smart') {
      expect(l.transform).toEqual({ cx: 10, cy: 8, scaleX: 2, scaleY: 2, angle: 0 });
      expect([l.source.w, l.source.h]).toEqual([6, 4]);
      // The merged image of a PSD with layers is stored blended over white; reading undoes it (±2).
      for (let i = 0; i < innerComposite.data.length; i++) {
        expect(Math.abs(l.source.data[i]! - innerComposite.data[i]!)).toBeLessThanOrEqual(2);
      }
    }
    // "Use global light" takes the document's angle.
    expect(l?.effects?.dropShadow?.angle).toBe(90);
    expect(warnings.some((w) => w.includes('嵌入 PSB'))).toBe(true);
  });

  it('reads rotated and scaled text as editable text: the size and the matrix as the file states them', async () => {
    const r = (25 * Math.PI) / 180;
    const k = 1.5;
    const buf = writePsdBuffer({
      width: 200,
      height: 120,
      children: [
        {
          name: '斜字',
          left: 0,
          top: 0,
          imageData: { width: 1, height: 1, data: new Uint8ClampedArray(4) },
          text: {
            text: '斜字',
            transform: [k * Math.cos(r), k * Math.sin(r), -k * Math.sin(r), k * Math.cos(r), 40, 60],
            style: { font: { name: 'NotoSansHans-Bold' }, fontSize: 20, fillColor: { r: 10, g: 20, b: 30 } },
          },
        },
      ],
    });
    const { state } = await decodePsd(buf);
    const [l] = flattenState(state);
    expect(l?.kind).toBe('text');
    if (l?.kind === 'text') {
      // Photoshop's convention, as the writer and set_text_size use it: 20 px glyphs drawn through the matrix.
      expect(l.text.size).toBe(20);
      expect(l.text.font).toBe('NotoSansHans-Bold');
      expect(l.text.transform).toEqual(
        [k * Math.cos(r), k * Math.sin(r), -k * Math.sin(r), k * Math.cos(r)].map(round6),
      );
      // Anchored at the first baseline's start, as the file says.
      expect([l.text.x, l.text.y + 0.88 * l.text.size]).toEqual([40, 60].map((v) => expect.closeTo(v, 5)));
      expect(l.raster.w).toBeGreaterThan(0);
    }
  });

  it('refuses files whose decoded layers would exceed the memory limit', async () => {
    const state = buildRichDoc();
    const { buffer } = await encodePsd(state, testComposite());
    const err = await decodePsd(buffer, { maxPixelBytes: 10_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'out_of_bounds' });
    expect((err as Error).message).toMatch(/内存/);
  });

  const imd = imageMagickAvailable() ? it : it.skip;

  imd('reads a layered PSD written by ImageMagick (byte-swapped blend keys, 16-bit)', async () => {
    // ImageMagick stores its first image as the merged image and the others as layers.
    const psd = await convertTo(
      [
        '(',
        '-size',
        '30x20',
        'xc:#ff0000',
        ')',
        '(',
        '-size',
        '10x6',
        'xc:#0000ff',
        '-set',
        'page',
        '+4+3',
        '-compose',
        'Multiply',
        ')',
        '-units',
        'PixelsPerInch',
        '-density',
        '300',
        'OUT',
      ],
      'psd',
    );
    const { state } = await decodePsd(psd);
    expect([state.width, state.height, state.dpi]).toEqual([30, 20, 300]);
    const layers = flattenState(state);
    expect(layers.length).toBe(1);
    const top = layers[0]!;
    expect(top.kind).toBe('pixel');
    expect(top.blend).toBe('multiply');
    if (top.kind === 'pixel') {
      expect([top.raster.x, top.raster.y, top.raster.w, top.raster.h]).toEqual([4, 3, 10, 6]);
      expect(Array.from(top.raster.data.subarray(0, 4))).toEqual([0, 0, 255, 255]);
    }
  });

  imd('reads a 16-bit PSD written by ImageMagick as 8-bit, with a warning', async () => {
    const psd = await convertTo(['-size', '6x4', 'xc:#336699', '-depth', '16', 'OUT'], 'psd');
    expect(psd.readUInt16BE(22)).toBe(16);
    const { state, warnings } = await decodePsd(psd);
    expect(warnings.join()).toMatch(/16 位/);
    const [bg] = flattenState(state);
    // One flat opaque colour over the canvas at the bottom: a lazy fill.
    expect(bg?.kind).toBe('fill');
    if (bg?.kind === 'fill') expect(bg.color).toEqual({ r: 0x33, g: 0x66, b: 0x99 });
  });

  imd('opens a 16-bit CMYK PSD as 8-bit and refuses a CMYK depth Photoshop has not', async () => {
    const psd = await convertTo(['-size', '4x4', 'xc:red', '-colorspace', 'CMYK', 'OUT'], 'psd');
    expect(psd.readUInt16BE(24)).toBe(4);
    expect(psd.readUInt16BE(22)).toBe(16);
    const { state } = await decodePsd(psd);
    expect(state.mode).toBe('cmyk');
    psd.writeUInt16BE(32, 22);
    const err = await decodePsd(psd).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EditorError);
    expect((err as EditorError).code).toBe('unsupported');
    expect((err as EditorError).message).toMatch(/CMYK/);
  });

  const ptIt = psdToolsAvailable() ? it : it.skip;

  ptIt('reads a flattened PSD without layers (written by psd-tools) as one 背景 layer', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { mkdtemp, readFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = await mkdtemp(path.join(tmpdir(), 'psd-tools-flat-'));
    try {
      const file = path.join(dir, 'flat.psd');
      const script = [
        'import sys',
        'from PIL import Image',
        'from psd_tools import PSDImage',
        "img = Image.new('RGB', (7, 5))",
        'img.putdata([(x * 30, y * 40, 99) for y in range(5) for x in range(7)])',
        'PSDImage.frompil(img).save(sys.argv[1])',
      ].join('\n');
      await promisify(execFile)(SYSTEM_PYTHON, ['-c', script, file]);
      const { state } = await decodePsd(await readFile(file));
      expect(state.root.length).toBe(1);
      const [bg] = flattenState(state);
      expect(bg?.name).toBe('背景');
      expect(bg?.kind).toBe('pixel');
      if (bg?.kind === 'pixel') {
        expect(bg.background).toBe(true);
        expect([bg.raster.w, bg.raster.h]).toEqual([7, 5]);
        const at = (x: number, y: number) =>
          Array.from(bg.raster.data.subarray((y * 7 + x) * 4, (y * 7 + x) * 4 + 4));
        expect(at(3, 2)).toEqual([90, 80, 99, 255]);
      }
      expect(state.active).toBe(bg?.id);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

pt('PSD written by encodePsd, read by psd-tools', () => {
  it('has the same tree, names, order, bounds, blend modes, opacity, visibility, clipping, masks and locks', async () => {
    const state = buildRichDoc();
    const { buffer } = await encodePsd(state, testComposite());
    const { dump } = await readWithPsdTools(buffer);
    expect([dump.width, dump.height, dump.colorMode, dump.depth, dump.version]).toEqual([W, H, 3, 8, 1]);
    expect(dump.resolution?.horizontal).toBe(150);
    expect(dump.resolution?.vertical).toBe(150);
    expect(dump.resolution?.unit).toBe(1); // pixels per inch
    expect(dump.guides).toEqual([
      { location: 10.5, direction: 'horizontal' },
      { location: 60, direction: 'vertical' },
    ]);

    const ours = flattenState(state);
    const theirs = flattenPsdTools(dump.layers);
    expect(theirs.map((l) => l.name)).toEqual(ours.map((l) => l.name));
    const kinds: Record<Layer['kind'], string> = {
      pixel: 'pixel',
      fill: 'pixel',
      group: 'group',
      text: 'type',
      smart: 'smartobject',
      adjustment: 'adjustment',
    };
    for (let i = 0; i < ours.length; i++) {
      const o = ours[i]!;
      const t = theirs[i]! as PsdToolsLayer;
      expect(t.kind, o.name).toBe(kinds[o.kind]);
      expect(t.visible, o.name).toBe(o.visible);
      expect(t.opacity, o.name).toBe(Math.round(o.opacity * 255));
      expect(t.blend, o.name).toBe(o.blend);
      expect(t.clipping, o.name).toBe(o.clipped);
      const bbox = bboxOf(o, state);
      if (bbox) expect(t.bbox, o.name).toEqual(bbox);
      if (o.mask) {
        expect(t.mask, o.name).not.toBeNull();
        expect(t.mask?.defaultColor, o.name).toBe(o.mask.outside);
        expect(t.mask?.disabled, o.name).toBe(!o.mask.enabled);
        const m = o.mask;
        expect(t.mask?.bbox, o.name).toEqual(m.w > 0 ? [m.x, m.y, m.x + m.w, m.y + m.h] : [0, 0, 0, 0]);
      } else {
        expect(t.mask, o.name).toBeNull();
      }
      const flags = (o.locks.transparency || o.locks.all ? 1 : 0) | (o.locks.pixels || o.locks.all ? 2 : 0);
      expect(t.locks & 7, o.name).toBe(flags | (o.locks.position || o.locks.all ? 4 : 0));
      if (o.locks.all) expect(t.locks >>> 31, o.name).toBe(1);
      if (o.kind === 'text') expect(t.text?.replace(/\r/g, '\n')).toBe(o.text.content);
      if (o.kind === 'smart') expect(t.smart?.filename).toBe('智能对象 印花.png');
      if (o.effects) {
        const stroke = t.effects.find((e) => e.type === 'Stroke');
        const shadow = t.effects.find((e) => e.type === 'DropShadow');
        expect(stroke).toMatchObject({
          enabled: true,
          size: 3,
          opacity: 75,
          position: 'OutF',
          color: [0, 128, 255],
        });
        expect(shadow).toMatchObject({
          enabled: true,
          size: 8,
          opacity: 60,
          angle: 120,
          distance: 6,
          choke: 10,
        });
      } else {
        expect(t.effects, o.name).toEqual([]);
      }
    }
    // Only the bottom fill flagged as background is Photoshop's Background: no transparency channel.
    expect(theirs[0]?.channelIds).toEqual([0, 1, 2]);
    for (const l of theirs.slice(1)) {
      if (l.channelIds && l.bbox[2] > l.bbox[0]) expect(l.channelIds, l.name).toContain(-1);
    }
    // Groups: open/closed is not in the dump, but pass-through vs normal is.
    expect(theirs.find((l) => l.name === '外层组')?.blend).toBe('pass through');
    expect(theirs.find((l) => l.name === '混合模式')?.blend).toBe('normal');
  });

  it('stores the composite we supply as the merged image, pixel for pixel', async () => {
    const composite = testComposite();
    const { buffer } = await encodePsd(buildRichDoc(), composite);
    const { merged } = await readWithPsdTools(buffer, { merged: true });
    expect(merged?.width).toBe(W);
    expect(merged?.height).toBe(H);
    expect(Buffer.from(merged!.data).equals(Buffer.from(composite.data))).toBe(true);
  });

  it('writes PSB (version 2) that psd-tools reads', async () => {
    const b = new DocBuilder();
    const state: DocState = {
      ...b.state([b.pixel('条', ramp(29990, 0, 11, 2, { r: 5, g: 6, b: 7 }, 255))]),
      width: 30001,
      height: 2,
    };
    const { buffer } = await encodePsd(state, testComposite(30001, 2));
    const { dump } = await readWithPsdTools(buffer);
    expect(dump.version).toBe(2);
    expect(dump.width).toBe(30001);
    expect(dump.layers[0]?.bbox).toEqual([29990, 0, 30001, 2]);
  });

  it('writes PSB when a layer is wider than a PSD records (a long line of text), and reads it back', async () => {
    const b = new DocBuilder();
    // Noise: packed rows of it would not fit PSD's 16-bit row counts either.
    const wide = ramp(-10, 0, 66_000, 2, { r: 5, g: 6, b: 7 }, 255);
    for (let i = 0; i < wide.data.length; i += 4) wide.data[i] = (i * 2654435761) >>> 24;
    const state = b.state([b.pixel('长行', wide)]);
    const { buffer, warnings } = await encodePsd(state, testComposite());
    expect(warnings.join()).toContain('PSB');
    const { dump } = await readWithPsdTools(buffer);
    expect(dump.version).toBe(2);
    expect(dump.layers[0]?.bbox).toEqual([-10, 0, 65_990, 2]);
    const back = await decodePsd(buffer);
    const layer = [...back.state.layers.values()].find((l) => l.name === '长行');
    expect(layer && 'raster' in layer ? layer.raster.data : null).toEqual(wide.data);
  });

  it('can be composited by psd-tools (the reference the compositor will be compared with)', async () => {
    const { buffer } = await encodePsd(buildRichDoc(), testComposite());
    const { composite, dump } = await readWithPsdTools(buffer, { composite: true });
    expect([composite?.width, composite?.height]).toEqual([W, H]);
    const smart = flattenPsdTools(dump.layers).find((l) => l.kind === 'smartobject');
    expect(smart?.smart?.size).toBeGreaterThan(0);
  });
});
