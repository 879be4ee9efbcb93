/**
 * Photoshop's fill opacity (填充不透明度): read from a PSD, composited (the layer's own pixels fade, its effects
 * keep their strength), written back exactly (PSD and PSB, RGB and CMYK), and kept or baked by the edits that
 * copy layers. The fixture is written with ag-psd as Photoshop writes it: a shape at fill 0 % shown only by its
 * stroke, and a shape at fill 50 % with a drop shadow.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { convertStateToCmyk } from '../../src/engine/color-mode.js';
import { renderDocument } from '../../src/engine/composite/index.js';
import { copyLayerInto } from '../../src/engine/copy.js';
import { decodePsd, encodePsd, opacityFromByte } from '../../src/engine/io/psd.js';
import type { DocState, Layer, Raster } from '../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH } from '../../src/engine/press-profile.js';
import { layerById, slotAbove } from '../../src/engine/tree.js';
import { BufferNames, decodeState, encodeState } from '../../src/service/state-codec.js';
import { readWithPsdTools, SYSTEM_PYTHON } from '../support/psd-tools.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, named, newDoc, solid } from '../tools/layer-fixtures.js';
import { doc, group, pixel } from './composite/support.js';

const W = 60;
const H = 40;
/** The stroke-only shape and the half-filled one: 16 × 16 squares. */
const RED = { x: 8, y: 8, w: 16, h: 16 };
const GREEN = { x: 36, y: 8, w: 16, h: 16 };

function square(w: number, h: number, [r, g, b]: [number, number, number]) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set([r, g, b, 255], i);
  return { width: w, height: h, data };
}

/** The fixture PSD. Photoshop stores 50 % as the byte 128; ag-psd truncates `fillOpacity × 255`. */
function fixturePsd(): Buffer {
  return writePsdBuffer({
    width: W,
    height: H,
    children: [
      { name: '背景', left: 0, top: 0, imageData: square(W, H, [255, 255, 255]) },
      {
        name: '描边形状',
        left: RED.x,
        top: RED.y,
        imageData: square(RED.w, RED.h, [255, 0, 0]),
        fillOpacity: 0,
        effects: {
          stroke: [
            {
              enabled: true,
              present: true,
              showInDialog: true,
              size: { units: 'Pixels', value: 3 },
              position: 'outside',
              fillType: 'color',
              color: { r: 0, g: 0, b: 255 },
              opacity: 1,
              blendMode: 'normal',
            },
          ],
        },
      },
      {
        name: '半填充',
        left: GREEN.x,
        top: GREEN.y,
        imageData: square(GREEN.w, GREEN.h, [0, 255, 0]),
        fillOpacity: 128.5 / 255,
        effects: {
          dropShadow: [
            {
              enabled: true,
              present: true,
              showInDialog: true,
              blendMode: 'multiply',
              color: { r: 0, g: 0, b: 0 },
              opacity: 0.75,
              angle: 120,
              useGlobalLight: false,
              distance: { units: 'Pixels', value: 4 },
              choke: { units: 'Pixels', value: 0 },
              size: { units: 'Pixels', value: 4 },
            },
          ],
        },
      },
    ],
  });
}

function layerNamed(state: DocState, name: string): Layer {
  const l = [...state.layers.values()].find((x) => x.name === name);
  if (!l) throw new Error(`no layer ${name}`);
  return l;
}

/** The same document with every layer's fill opacity at 100 %. */
function fullFill(state: DocState): DocState {
  const layers = new Map<number, Layer>();
  for (const [id, l] of state.layers) {
    const { fillOpacity: _f, ...rest } = l;
    layers.set(id, rest as Layer);
  }
  return { ...state, layers };
}

function pixelAt(r: Raster | { width: number; data: Uint8ClampedArray | Uint8Array }, x: number, y: number) {
  const w = 'w' in r ? r.w : r.width;
  const i = (y * w + x) * 4;
  return [...r.data.subarray(i, i + 4)];
}

function inside(rect: { x: number; y: number; w: number; h: number }, x: number, y: number, inset = 0) {
  return (
    x >= rect.x + inset && x < rect.x + rect.w - inset && y >= rect.y + inset && y < rect.y + rect.h - inset
  );
}

/** Each layer's fill opacity byte (`iOpa`, null when absent) as psd-tools reads the file. */
function fillBytesByPsdTools(file: Buffer): {
  version: number;
  mode: number;
  fills: Record<string, number | null>;
} {
  const script = `
import io, json, sys
from psd_tools import PSDImage
from psd_tools.constants import Tag
psd = PSDImage.open(io.BytesIO(sys.stdin.buffer.read()))
fills = {}
def walk(layers):
    for l in layers:
        fills[l.name] = l.tagged_blocks.get_data(Tag.BLEND_FILL_OPACITY) if l.tagged_blocks else None
        if l.is_group():
            walk(l)
walk(psd)
print(json.dumps({'version': psd.version, 'mode': int(psd.color_mode), 'fills': fills}))
`;
  return JSON.parse(execFileSync(SYSTEM_PYTHON, ['-c', script], { input: file, encoding: 'utf8' }));
}

describe('fill opacity read from a PSD', () => {
  it('is kept on the layer, without a warning', async () => {
    const { state, warnings } = await decodePsd(fixturePsd());
    expect(warnings.join('\n')).not.toMatch(/填充/);
    expect(layerNamed(state, '描边形状').fillOpacity).toBe(0);
    expect(layerNamed(state, '半填充').fillOpacity).toBe(0.5);
    expect(layerNamed(state, '背景').fillOpacity).toBeUndefined();
  });

  it('composites the pixels at fill × opacity and the effects at full strength (hand-computed pixels)', async () => {
    const { state } = await decodePsd(fixturePsd());
    const ours = renderDocument(state);
    const full = renderDocument(fullFill(state));
    // Fill 0 %: the red square is gone, the white shows through; its outside stroke is solid blue.
    expect(pixelAt(ours, 16, 16)).toEqual([255, 255, 255, 255]);
    expect(pixelAt(ours, RED.x - 2, 16)).toEqual([0, 0, 255, 255]);
    // Fill 50 % (byte 128): green over white, 255 · (1 − 128/255) = 127 in red and blue, ±1 for rounding.
    const g = pixelAt(ours, 44, 16);
    expect(g[1]).toBe(255);
    expect(g[3]).toBe(255);
    for (const c of [g[0]!, g[2]!]) expect(Math.abs(c - 127)).toBeLessThanOrEqual(1);
    // Everywhere outside the two shapes — the stroke, the shadow, the background — the image is exactly the one
    // with fill at 100 %: the effects come from the layer's whole shape and are not faded by fill.
    let compared = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        if (inside(RED, x, y) || inside(GREEN, x, y)) continue;
        expect(pixelAt(ours, x, y), `(${x}, ${y})`).toEqual(pixelAt(full, x, y));
        compared++;
      }
    }
    expect(compared).toBe(W * H - 2 * 16 * 16);
    // The shadow is there to compare: darker than the white below and to the right of the green square.
    expect(pixelAt(full, GREEN.x + GREEN.w + 1, GREEN.y + GREEN.h + 1)[0]).toBeLessThan(200);
  });

  it('matches psd-tools’ composite of the file inside the shapes and away from them (±2)', async () => {
    const file = fixturePsd();
    const { state } = await decodePsd(file);
    const ours = renderDocument(state);
    const { composite } = await readWithPsdTools(file, { composite: true });
    expect(composite).toBeDefined();
    // psd-tools draws no drop shadow and strokes only inside a layer's bounds, so the effects' own pixels are
    // left out: the shapes' interiors (3 px in from their edges) and the pixels 8 px or more from both shapes.
    const far = (x: number, y: number) =>
      [RED, GREEN].every((r) => x < r.x - 8 || x >= r.x + r.w + 8 || y < r.y - 8 || y >= r.y + r.h + 8);
    let worst = 0;
    let compared = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        if (!(inside(RED, x, y, 3) || inside(GREEN, x, y, 3) || far(x, y))) continue;
        const a = pixelAt(ours, x, y);
        const b = pixelAt(composite!, x, y);
        for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(a[c]! - b[c]!));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(2 * 10 * 10);
    expect(worst).toBeLessThanOrEqual(2);
  });
});

describe('fill opacity of groups and clipping bases', () => {
  it('fades an isolated group’s composite and a clipping group with its base, as psd-tools does (±2)', async () => {
    const ramp = (
      x: number,
      y: number,
      w: number,
      h: number,
      rgb: [number, number, number],
      a = 255,
    ): Raster => {
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < w * h; i++) data.set([(rgb[0] + i * 3) % 256, rgb[1], rgb[2], a], i * 4);
      return { x, y, w, h, data };
    };
    const back = pixel(1, ramp(0, 0, W, H, [200, 180, 40]), { name: '底' });
    const inner = pixel(2, ramp(4, 4, 20, 14, [20, 90, 230], 200), { name: '组内', blend: 'screen' });
    const grp = { ...group(3, [2], { name: '组', blend: 'multiply', opacity: 0.9 }), fillOpacity: 0.5 };
    const base = { ...pixel(4, ramp(30, 4, 24, 30, [240, 20, 20]), { name: '基底' }), fillOpacity: 0.4 };
    const clip = pixel(5, ramp(26, 10, 30, 10, [10, 240, 60]), {
      name: '剪贴',
      blend: 'overlay',
      clipped: true,
    });
    const state = doc(W, H, [back, inner, grp, base, clip], [1, 3, 4, 5]);
    const ours = renderDocument(state);
    // Fill does something here: the same document at fill 100 % differs.
    const full = renderDocument(fullFill(state));
    expect(ours.data.some((v, i) => v !== full.data[i])).toBe(true);
    const { buffer } = await encodePsd(state, ours);
    const { composite } = await readWithPsdTools(buffer, { composite: true });
    let worst = 0;
    for (let i = 0; i < ours.data.length; i++)
      worst = Math.max(worst, Math.abs(ours.data[i]! - composite!.data[i]!));
    expect(worst).toBeLessThanOrEqual(2);
  });
});

describe('fill opacity written back', () => {
  const cmyk = existsSync(DEFAULT_PROFILE_PATH) ? it : it.skip;

  it('keeps every byte exactly through our save and open, and psd-tools reads the same bytes', async () => {
    // Layers at every fill byte 0..254 (255 is 100 %: no fill key, as before).
    const layers: Layer[] = [];
    for (let b = 0; b < 255; b++) {
      const raster: Raster = { x: b % W, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([10, 20, 30, 255]) };
      layers.push({ ...pixel(b + 1, raster, { name: `填充 ${b}` }), fillOpacity: opacityFromByte(b) });
    }
    layers.push(
      pixel(256, { x: 0, y: 1, w: 1, h: 1, data: new Uint8ClampedArray(4).fill(255) }, { name: '满' }),
    );
    const state = doc(
      W,
      H,
      layers,
      layers.map((l) => l.id),
    );
    const { buffer } = await encodePsd(state, renderDocument(state));
    const read = fillBytesByPsdTools(buffer);
    const back = (await decodePsd(buffer)).state;
    for (let b = 0; b < 255; b++) {
      expect(read.fills[`填充 ${b}`]).toBe(b);
      expect(layerNamed(back, `填充 ${b}`).fillOpacity).toBe(opacityFromByte(b));
    }
    expect(read.fills.满).toBeNull();
    expect(layerNamed(back, '满').fillOpacity).toBeUndefined();
  });

  const saves = [
    { mode: 'RGB', psb: false },
    { mode: 'RGB', psb: true },
    { mode: 'CMYK', psb: false },
    { mode: 'CMYK', psb: true },
  ] as const;
  for (const { mode, psb } of saves) {
    const run = mode === 'CMYK' ? cmyk : it;
    run(`a ${mode} ${psb ? 'PSB' : 'PSD'} keeps 0 % and 50 % (psd-tools reads 0 and 128)`, async () => {
      const opened = (await decodePsd(fixturePsd())).state;
      const state = mode === 'CMYK' ? await convertStateToCmyk(opened) : opened;
      const { buffer } = await encodePsd(state, renderDocument(state), { psb });
      const read = fillBytesByPsdTools(buffer);
      expect(read.version).toBe(psb ? 2 : 1);
      expect(read.mode).toBe(mode === 'CMYK' ? 4 : 3);
      expect(read.fills.描边形状).toBe(0);
      expect(read.fills.半填充).toBe(128);
      const back = (await decodePsd(buffer)).state;
      expect(layerNamed(back, '描边形状').fillOpacity).toBe(0);
      expect(layerNamed(back, '半填充').fillOpacity).toBe(0.5);
    });
  }
});

describe('fill opacity through edits', () => {
  it('a copied layer keeps it', async () => {
    const { state } = await decodePsd(fixturePsd());
    const src = layerNamed(state, '半填充');
    const { state: next, id } = copyLayerInto(state, state, src.id, '副本', slotAbove(state, src.id));
    expect(layerById(next, id).fillOpacity).toBe(0.5);
  });

  it('a layer or group converted to a smart object keeps it outside the object, and looks the same', async () => {
    const s = newSession();
    await newDoc(s, 30, 20);
    edit(s, (st) => {
      let n = addPixel(st, '形', solid({ x: 2, y: 2, w: 10, h: 10 }, [200, 40, 40, 255]), {
        fillOpacity: 0.3,
      });
      n = addGroup(n, '组', { fillOpacity: 0.5, blend: 'normal' });
      return addPixel(n, '组内', solid({ x: 15, y: 4, w: 10, h: 10 }, [40, 40, 200, 255]), {}, idOf(n, '组'));
    });
    const before = renderDocument(current(s));
    await ok(s, 'convert_to_smart_object', { name: '形' });
    await ok(s, 'convert_to_smart_object', { name: '组' });
    const state = current(s);
    expect(named(state, '形')).toMatchObject({ kind: 'smart', fillOpacity: 0.3 });
    expect(named(state, '组')).toMatchObject({ kind: 'smart', fillOpacity: 0.5 });
    const after = renderDocument(state);
    let worst = 0;
    for (let i = 0; i < after.data.length; i++)
      worst = Math.max(worst, Math.abs(after.data[i]! - before.data[i]!));
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('a session snapshot (the journal’s state file) keeps it, and renders the same', async () => {
    const { state } = await decodePsd(fixturePsd());
    const encoded = encodeState(state, new BufferNames('t'));
    const files = new Map(encoded.fresh.map((f) => [f.name, Uint8Array.from(f.bytes)]));
    const back = decodeState(encoded.json, (ref) => files.get(ref.name)!) as DocState;
    expect(layerNamed(back, '描边形状').fillOpacity).toBe(0);
    expect(layerNamed(back, '半填充').fillOpacity).toBe(0.5);
    expect(renderDocument(back).data).toEqual(renderDocument(state).data);
  });

  it('open, duplicate, merge (baked), report, undo and save: as a designer’s session does', async () => {
    const workspace = tempDir();
    await writeFile(path.join(workspace, '设计.psd'), fixturePsd());
    const s = newSession(workspace);
    await ok(s, 'open_document', { path: '设计.psd' });

    await ok(s, 'select_layers', { names: ['描边形状'] });
    const dup = await ok(s, 'duplicate_layer');
    expect(dup.layer).toMatchObject({ name: '描边形状 拷贝', opacity: 100, fill_opacity: 0 });
    expect(named(current(s), '描边形状 拷贝').fillOpacity).toBe(0);
    const info = await ok(s, 'get_active_layer_info');
    expect(JSON.stringify(info)).toMatch(/"fill_opacity":0\b/);

    // Merging the half-filled layer with the background bakes its fill into the pixels: the merged layer is at
    // fill 100 % and looks exactly as the two did.
    const before = renderDocument(current(s));
    await ok(s, 'select_layers', { names: ['背景', '半填充'] });
    const merged = await ok(s, 'merge_layers');
    const state = current(s);
    const into = named(state, (merged.layer as { name: string }).name);
    expect(into.fillOpacity).toBeUndefined();
    expect(merged.layer).not.toHaveProperty('fill_opacity');
    const after = renderDocument(state);
    const g = pixelAt(after, 44, 16);
    expect(Math.abs(g[0]! - 127)).toBeLessThanOrEqual(1);
    let worst = 0;
    for (let i = 0; i < after.data.length; i++)
      worst = Math.max(worst, Math.abs(after.data[i]! - before.data[i]!));
    expect(worst).toBeLessThanOrEqual(1);

    // Undo brings the layer back with its fill; saving writes it.
    await ok(s, 'undo');
    expect(named(current(s), '半填充').fillOpacity).toBe(0.5);
    await ok(s, 'save_document_as', { path: '另存.psd' });
    const saved = fillBytesByPsdTools(await readFile(path.join(workspace, '另存.psd')));
    expect(saved.fills).toMatchObject({ 描边形状: 0, '描边形状 拷贝': 0, 半填充: 128 });
  });
});
