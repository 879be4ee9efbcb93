/**
 * The colours a CMYK PSD states besides its pixels — a type layer's text colour (text engine data) and layer-style
 * colours (descriptors) — as psd-tools reads them from what we write, and as we read them back.
 *
 * ag-psd gives text engine colours on a 0–255 scale (its 0–1 values × 255) and descriptor colours in percent; a
 * text colour of K50 read as percent was K100. In a CMYK file both are written as the colour's inks (the document's
 * ink table: the inks the colour came from), so a file's K50 text stays K50 through open → save → open.
 *
 * psd-tools composites a CMYK file's layers (`composite(ignore_preview=True)`, or a layer's `composite()`) in ink
 * space: a style colour written as RGB made it fail ("operands could not be broadcast together with shapes
 * (…,4) (…,3)", composite/__init__.py `_apply_source`: the stroke's 3 RGB values against 4 inks). Its own
 * limitations, which no file can change: `composite(force=True)` of any CMYK file fails in PIL ("unrecognized
 * image mode": it asks for the mode 'CMYKA'), and it draws no drop shadow (Compositor.apply applies colour,
 * pattern and gradient overlays and strokes only), so only the stroke is compared.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { rgbaFromCmyk } from '../../../src/engine/cmyk-pixels.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import type { DocState, Layer, RGB } from '../../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH, pressProfile } from '../../../src/engine/press-profile.js';
import { inksOfColour, newInkTable, recordInk } from '../../../src/engine/raster-inks.js';
import { renderTextSpec } from '../../../src/engine/text.js';
import { psdToolsAvailable, SYSTEM_PYTHON } from '../../support/psd-tools.js';
import { newSession, ok } from '../../support/session.js';
import { doc, fill, pixel, rasterOf } from '../composite/support.js';

const run = promisify(execFile);
const ready = psdToolsAvailable() && existsSync(DEFAULT_PROFILE_PATH);

/** What psd-tools reads: each layer's text fill colour and style colours, and optionally its layer composite. */
const READ_COLOURS = `
import json, sys
from psd_tools import PSDImage
psd = PSDImage.open(sys.argv[1])
out = {'layers': []}
for layer in psd.descendants():
    item = {'name': layer.name}
    if layer.kind == 'type':
        style = layer.engine_dict['StyleRun']['RunArray'][0]['StyleSheet']['StyleSheetData']
        fill = style['FillColor']
        item['fill'] = {'type': int(fill['Type']), 'values': [float(v) for v in fill['Values']]}
    if layer.has_effects():
        item['effects'] = [
            {'type': type(e).__name__, 'class': e.value[b'Clr '].classID.decode().strip(),
             'color': {k.decode().strip(): float(v) for k, v in e.value[b'Clr '].items()}}
            for e in layer.effects]
    out['layers'].append(item)
if len(sys.argv) > 2:
    image = psd.composite(ignore_preview=True)
    out['mode'] = image.mode
    out['size'] = list(image.size)
    with open(sys.argv[2], 'wb') as f:
        f.write(image.tobytes())
json.dump(out, sys.stdout)
`;

interface Read {
  layers: {
    name: string;
    fill?: { type: number; values: number[] };
    effects?: { type: string; class: string; color: Record<string, number> }[];
  }[];
  mode?: string;
  size?: [number, number];
  pixels?: Uint8Array;
}

async function readColours(file: Uint8Array, composite = false): Promise<Read> {
  const dir = await mkdtemp(path.join(tmpdir(), 'psd-colours-'));
  try {
    const psd = path.join(dir, 'in.psd');
    const raw = path.join(dir, 'composite.raw');
    await writeFile(psd, file);
    const args = ['-c', READ_COLOURS, psd, ...(composite ? [raw] : [])];
    const { stdout } = await run(SYSTEM_PYTHON, args, { encoding: 'utf8' });
    const read = JSON.parse(stdout) as Read;
    if (composite) read.pixels = new Uint8Array(await readFile(raw));
    return read;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The sRGB colour of inks (C, M, Y, K, 0–255) through the press profile. */
async function colourOfInks(inks: number[]): Promise<RGB> {
  const rgba = await rgbaFromCmyk(Uint8Array.from(inks), 1, 1, 4, pressProfile().bytes);
  return { r: rgba[0]!, g: rgba[1]!, b: rgba[2]! };
}

function layerNamed(state: DocState, name: string): Layer {
  return [...state.layers.values()].find((l) => l.name === name)!;
}

const K50 = [0, 0, 0, 128]; // 50.2 %: the byte Photoshop's K50 (127.5) rounds to

describe.skipIf(!ready)('CMYK PSD colours', () => {
  let grey: RGB;
  let source: Buffer;

  beforeAll(async () => {
    // A CMYK document whose text was set in C0 M0 Y0 K50: its colour is what those inks show, and its ink table
    // holds them (as when a CMYK file with such text is opened, or the text colour was set in the document).
    grey = await colourOfInks(K50);
    const table = newInkTable(pressProfile().bytes);
    recordInk(table, grey.r, grey.g, grey.b, ...(K50 as [number, number, number, number]));
    const text = renderTextSpec({
      content: '灰字',
      x: 4,
      y: 4,
      size: 20,
      color: grey,
      font: 'NotoSansSC-Regular',
    });
    const base = doc(60, 32, [fill(1, { r: 255, g: 255, b: 255 })], [1]);
    const state: DocState = {
      ...base,
      mode: 'cmyk',
      inkTable: table,
      layers: new Map([
        ...base.layers,
        [2, { ...pixel(2, text.raster, { name: '灰字' }), kind: 'text', text: text.text } as Layer],
      ]),
      root: [1, 2],
    };
    source = (
      await encodePsd(
        state,
        rasterOf({ x: 0, y: 0, w: 60, h: 32 }, () => [255, 255, 255, 255]),
      )
    ).buffer;
  }, 60_000);

  it('writes a text colour as its inks, which psd-tools reads as K50', async () => {
    const read = await readColours(source);
    const fill = read.layers.find((l) => l.name === '灰字')!.fill!;
    expect(fill.type).toBe(2); // CMYK
    expect(fill.values.map((v) => Math.round(v * 255))).toEqual([255, ...K50]);
  });

  it('keeps K50 text K50 through open → save → open (not K100)', async () => {
    const first = await decodePsd(source);
    const text = layerNamed(first.state, '灰字');
    expect(text.kind).toBe('text');
    if (text.kind !== 'text') return;
    // Read through the file's profile as the inks it states: the K50 grey, not K100's near black.
    expect(text.text.color).toEqual(grey);
    expect(inksOfColour(first.state.inkTable, text.text.color)).toEqual(K50);

    // Through the real session: opened, edited elsewhere, saved under a new name, read by psd-tools and by us.
    const s = newSession();
    await writeFile(path.join(s.workspace.root, 'k50.psd'), source);
    await ok(s, 'open_document', { path: 'k50.psd' });
    await ok(s, 'create_layer', { name: '另一层' });
    await ok(s, 'save_document_as', { path: 'k50-again.psd' });
    const saved = await readFile(path.join(s.workspace.root, 'k50-again.psd'));
    const fill = (await readColours(saved)).layers.find((l) => l.name === '灰字')!.fill!;
    expect(fill.type).toBe(2);
    expect(fill.values.map((v) => Math.round(v * 255))).toEqual([255, ...K50]);
    const again = layerNamed((await decodePsd(saved)).state, '灰字');
    expect(again.kind === 'text' && again.text.color).toEqual(grey);
  });

  it('writes stroke and drop-shadow colours as inks, which psd-tools composites, and reads them back', async () => {
    const W = 40;
    const H = 30;
    const square = rasterOf({ x: 6, y: 4, w: 24, h: 20 }, (x, y) =>
      x >= 10 && x < 26 && y >= 8 && y < 20 ? [200, 30, 40, 255] : [0, 0, 0, 0],
    );
    const styled = {
      ...pixel(2, square, { name: '样式' }),
      effects: {
        stroke: {
          size: 2,
          position: 'outside' as const,
          color: { r: 0, g: 0, b: 0 },
          opacity: 1,
          blend: 'normal' as const,
        },
        dropShadow: {
          distance: 4,
          angle: 120,
          size: 3,
          spread: 0,
          opacity: 0.75,
          color: { r: 0, g: 0, b: 0 },
          blend: 'multiply' as const,
        },
      },
    };
    const base = doc(W, H, [fill(1, { r: 255, g: 255, b: 255 }), styled], [1, 2]);
    // The separation Mode › CMYK made of each colour (its ink table), as convert_to_cmyk does.
    const table = newInkTable(pressProfile().bytes);
    const strokeInks = [200, 130, 0, 0];
    const shadowInks = [190, 173, 167, 230];
    const strokeColour = await colourOfInks(strokeInks);
    const shadowColour = await colourOfInks(shadowInks);
    recordInk(
      table,
      strokeColour.r,
      strokeColour.g,
      strokeColour.b,
      ...(strokeInks as [number, number, number, number]),
    );
    recordInk(
      table,
      shadowColour.r,
      shadowColour.g,
      shadowColour.b,
      ...(shadowInks as [number, number, number, number]),
    );
    const state: DocState = {
      ...base,
      mode: 'cmyk',
      inkTable: table,
      layers: new Map([
        ...base.layers,
        [
          2,
          {
            ...styled,
            effects: {
              stroke: { ...styled.effects.stroke, color: strokeColour },
              dropShadow: { ...styled.effects.dropShadow, color: shadowColour },
            },
          },
        ],
      ]),
    };
    const { buffer } = await encodePsd(
      state,
      rasterOf({ x: 0, y: 0, w: W, h: H }, () => [255, 255, 255, 255]),
    );

    const read = await readColours(buffer, true);
    const effects = read.layers.find((l) => l.name === '样式')!.effects!;
    const [strokeFx, shadowFx] = [
      effects.find((e) => e.type === 'Stroke')!,
      effects.find((e) => e.type === 'DropShadow')!,
    ];
    for (const [fx, inks] of [
      [strokeFx, strokeInks],
      [shadowFx, shadowInks],
    ] as const) {
      expect(fx.class).toBe('CMYC');
      const stated = ['Cyn', 'Mgnt', 'Ylw', 'Blck'].map((k) => fx.color[k]!);
      stated.forEach((v, i) => {
        expect(v).toBeCloseTo((inks[i]! * 100) / 255, 6);
      });
    }

    // psd-tools' composite of the layers, in ink: where it drew the stroke (around the square, over white paper),
    // the inks are the stroke's, in proportion to its coverage.
    expect(read.mode).toBe('CMYK');
    expect(read.size).toEqual([W, H]);
    const px = read.pixels!;
    let strokePixels = 0;
    for (let y = 4; y < 24; y++) {
      for (let x = 6; x < 30; x++) {
        const inside = x >= 10 && x < 26 && y >= 8 && y < 20;
        const [c, m, yy, k] = px.subarray((y * W + x) * 4, (y * W + x) * 4 + 4);
        if (inside || c! < 40) continue;
        strokePixels++;
        expect(yy).toBe(0);
        expect(k).toBe(0);
        expect(Math.abs(c! / m! - strokeInks[0]! / strokeInks[1]!)).toBeLessThan(0.05);
      }
    }
    expect(strokePixels).toBeGreaterThan(20);

    // Read back: the colours the inks show, and the inks in the document's ink table, so saving again keeps them.
    const back = await decodePsd(buffer);
    const layer = layerNamed(back.state, '样式');
    expect(layer.effects?.stroke?.color).toEqual(strokeColour);
    expect(layer.effects?.dropShadow?.color).toEqual(shadowColour);
    expect(inksOfColour(back.state.inkTable, strokeColour)).toEqual(strokeInks);
    expect(inksOfColour(back.state.inkTable, shadowColour)).toEqual(shadowInks);
  });
});
