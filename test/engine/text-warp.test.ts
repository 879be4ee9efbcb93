/**
 * Photoshop's Arc warp (扇形) drawn again by the engine against Photoshop's own renderings (test/fixtures/
 * photoshop-text/text-warp-arc-h±N.psd: "Lorem Ipsum", Arial 32 px centred, tracked −50, bent ±10, ±50 and ±100 %),
 * then kept through an edit of the words and saved as Photoshop states it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { decodePsd } from '../../src/engine/io/psd.js';
import type { Raster, TextLayer } from '../../src/engine/model.js';
import { renderText } from '../../src/engine/text.js';
import { inkBox } from '../support/ink-box.js';
import { psdToolsAvailable } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { agTextOf, psdToolsTypeLayers } from '../support/text-psd.js';
import { current } from '../tools/layer-fixtures.js';

const DIR = new URL('../fixtures/photoshop-text/', import.meta.url);
const BENDS = [10, 50, 100, -10, -50, -100] as const;
const file = (bend: number) => `text-warp-arc-h${bend > 0 ? '+' : ''}${bend}.psd`;

async function textLayerOf(name: string): Promise<{ layer: TextLayer; warnings: string[] }> {
  const { state, warnings } = await decodePsd(readFileSync(new URL(name, DIR)));
  const layer = [...state.layers.values()].find((l): l is TextLayer => l.kind === 'text');
  if (!layer) throw new Error(`${name} has no text layer`);
  return { layer, warnings };
}

/** The inked pixels (alpha over 100) as document positions. */
function inked(r: Raster): Set<number> {
  const out = new Set<number>();
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++)
      if (r.data[(y * r.w + x) * 4 + 3]! > 100) out.add((r.y + y) * 100_000 + r.x + x);
  }
  return out;
}

function iou(a: Raster, b: Raster): number {
  const [p, q] = [inked(a), inked(b)];
  let both = 0;
  for (const k of p) if (q.has(k)) both++;
  return both / (p.size + q.size - both);
}

/**
 * Where each letter starts round the arc: the runs of inked directions, degrees clockwise from the arc's middle,
 * seen from the sector's centre (below the text for an upward bend, above it for a downward one).
 */
function letterAngles(r: Raster, centre: { x: number; y: number }, up: boolean): number[] {
  const bins = new Uint32Array(720);
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++) {
      if (r.data[(y * r.w + x) * 4 + 3]! <= 100) continue;
      const dx = r.x + x + 0.5 - centre.x;
      const dy = r.y + y + 0.5 - centre.y;
      const a = Math.atan2(dx, up ? -dy : dy);
      bins[Math.min(719, Math.floor((a / Math.PI + 1) * 360))]!++;
    }
  }
  const starts: number[] = [];
  for (let i = 0; i < 720; i++) if (bins[i] && !bins[i - 1]) starts.push((i / 360 - 1) * 180);
  return starts;
}

describe("Photoshop's Arc warp against its renderings", () => {
  for (const bend of BENDS) {
    it(`bends the text ${bend} % where Photoshop does`, async () => {
      const { layer, warnings } = await textLayerOf(file(bend));
      expect(layer.text.warp).toMatchObject({ style: 'arc', bend });
      // Kept, so not reported as lost on an edit.
      expect(warnings.join('\n')).not.toContain('文字变形');
      const ours = renderText(layer.text);
      const photoshop = inkBox(layer.raster);
      for (const [i, edge] of inkBox(ours).entries()) {
        expect(
          Math.abs(edge - photoshop[i]!),
          `edge ${i}: ${inkBox(ours)} against ${photoshop}`,
        ).toBeLessThanOrEqual(2);
      }
      // The glyphs' shapes are Liberation Sans's, not Arial's: most of the ink still overlaps; unbent, little does.
      expect(iou(ours, layer.raster)).toBeGreaterThan(0.55);
      const { warp: _warp, ...flat } = layer.text;
      expect(iou(renderText(flat), layer.raster)).toBeLessThan(0.25);
    });
  }

  it('spreads the letters round a half circle as Photoshop’s Bézier does, not evenly over the angle', async () => {
    // The box 170.7 px wide, its bottom (top) 10.4 px below (27.5 px above) the baseline at y 88.7, centred on
    // x 118.4: the half circle's centre. Evenly spread, "sum"'s last two letters stood 3.5–4° further round.
    for (const bend of [100, -100]) {
      const { layer } = await textLayerOf(file(bend));
      const centre = { x: 118.4, y: bend > 0 ? 88.7 + 10.4 : 88.7 - 27.5 };
      const want = letterAngles(layer.raster, centre, bend > 0).slice(-2);
      const got = letterAngles(renderText(layer.text), centre, bend > 0).slice(-2);
      for (const [i, a] of want.entries()) {
        expect(Math.abs(got[i]! - a), `${bend}: ${got} against ${want}`).toBeLessThanOrEqual(1.5);
      }
    }
  });
});

/** The session's one text layer. */
function textIn(s: Session): TextLayer {
  const layer = [...current(s).layers.values()].find((l): l is TextLayer => l.kind === 'text');
  if (!layer) throw new Error('no text layer');
  return layer;
}

describe('Arc-warped text transformed', () => {
  it('is bent in its own space, then turned and scaled with it', async () => {
    const { layer } = await textLayerOf(file(50));
    const size = (b: readonly number[]): [number, number] => [b[2]! - b[0]!, b[3]! - b[1]!];
    const [w, h] = size(inkBox(renderText(layer.text)));
    // A quarter turn about the anchor: the bent line stands on its side, as wide as it was high.
    const [tw, th] = size(inkBox(renderText({ ...layer.text, transform: [0, 1, -1, 0] })));
    expect(Math.abs(tw - h)).toBeLessThanOrEqual(1);
    expect(Math.abs(th - w)).toBeLessThanOrEqual(1);
    // Twice as large through the transform: twice the bent ink, the bend the same.
    const [sw, sh] = size(inkBox(renderText({ ...layer.text, transform: [2, 0, 0, 2] })));
    expect(Math.abs(sw - 2 * w)).toBeLessThanOrEqual(2);
    expect(Math.abs(sh - 2 * h)).toBeLessThanOrEqual(2);
  });
});

describe('Arc-warped text edited', () => {
  it('keeps its bend through a change of its words, and saves it as Photoshop states it', async () => {
    const s = newSession();
    await s.workspace.writeAtomic('arc.psd', readFileSync(new URL(file(50), DIR)));
    const opened = await ok(s, 'open_document', { path: 'arc.psd' });
    expect(JSON.stringify(opened)).not.toContain('文字变形');
    const { layer } = await textLayerOf(file(50));
    const name = layer.name;
    const before = inkBox(layer.raster);
    const edited = await ok(s, 'set_text_content', { name, text: 'Lorem Ipsum Dolor' });
    expect(JSON.stringify(edited)).not.toContain('文字变形');
    // (An automatic name follows the words, as Photoshop's does.)
    const after = textIn(s);
    expect(after.text.warp).toMatchObject({ style: 'arc', bend: 50 });
    // Longer words, still centred and bent up: wider, and the line's ends lower than its middle.
    const box = inkBox(after.raster);
    expect(box[2] - box[0]).toBeGreaterThan(before[2] - before[0] + 30);
    expect(Math.abs((box[0] + box[2]) / 2 - (before[0] + before[2]) / 2)).toBeLessThanOrEqual(3);
    expect(box[3] - box[1]).toBeGreaterThan(before[3] - before[1]);
    await ok(s, 'save_document_as', { path: 'edited.psd' });
    const saved = await agTextOf(s, 'edited.psd', after.name);
    expect(saved.text).toBe('Lorem Ipsum Dolor');
    expect(saved.warp).toMatchObject({ style: 'arc', value: 50, rotate: 'horizontal' });
    // Opened again, the text is bent as it was drawn.
    const again = newSession();
    await again.workspace.writeAtomic('edited.psd', await s.workspace.read('edited.psd'));
    await ok(again, 'open_document', { path: 'edited.psd' });
    const reopened = textIn(again);
    expect(reopened.text.warp).toMatchObject({ style: 'arc', bend: 50 });
    expect(inkBox(renderText(reopened.text))).toEqual(inkBox(after.raster));
    // Turned to columns, it is set straight, and says so.
    const turned = await ok(again, 'set_text_orientation', { name: after.name, orientation: 'vertical' });
    expect(turned.note).toContain('扇形变形');
    expect(textIn(again).text.warp).toBeUndefined();
    if (psdToolsAvailable()) {
      const read = await psdToolsTypeLayers<{ style: string; value: number } | null>(
        path.join(s.workspace.root, 'edited.psd'),
        [
          'w = l.warp',
          "v = {'style': w[b'warpStyle'].enum.decode('ascii'), 'value': float(w[b'warpValue'])} if w is not None and b'warpStyle' in w else None",
        ],
      );
      expect(read[after.name]).toEqual({ style: 'warpArc', value: 50 });
    }
  });
});

describe('set_text_warp', () => {
  it('bends a slogan up or down by the bend asked, straightens it at 0, and saves the warp', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 400 });
    await ok(s, 'create_text_layer', {
      text: 'SUMMER 2026',
      x: 300,
      y: 150,
      font_size: 48,
      color: '#c0392b',
    });
    await ok(s, 'set_text_alignment', { name: 'SUMMER 2026', alignment: 'center' });
    const flat = textIn(s).raster;
    const [fx0, fy0, fx1, fy1] = inkBox(flat);
    const up = await ok(s, 'set_text_warp', { name: 'SUMMER 2026', bend: 60 });
    expect(up.old_bend).toBe(0);
    expect((up.text as { warp?: unknown }).warp).toEqual({ style: 'arc', bend: 60 });
    const bent = textIn(s);
    expect(bent.text.warp).toMatchObject({ style: 'arc', bend: 60 });
    // Bent up about its middle: taller than the straight line, and its middle column's ink above its ends'.
    const [bx0, by0, bx1, by1] = inkBox(bent.raster);
    expect(by1 - by0).toBeGreaterThan(fy1 - fy0 + 20);
    expect(Math.abs((bx0 + bx1) / 2 - (fx0 + fx1) / 2)).toBeLessThanOrEqual(2);
    const column = (r: Raster, x: number) => {
      for (let y = 0; y < r.h; y++) if (r.data[(y * r.w + (x - r.x)) * 4 + 3]! > 100) return r.y + y;
      return Number.NaN;
    };
    const middle = column(bent.raster, Math.round((bx0 + bx1) / 2));
    expect(middle).toBeLessThan(column(bent.raster, bx0 + 6) - 10);
    expect(middle).toBeLessThan(column(bent.raster, bx1 - 6) - 10);
    // Down, its middle below its ends; a second call with the same bend changes nothing.
    await ok(s, 'set_text_warp', { name: 'SUMMER 2026', bend: -60 });
    const down = textIn(s).raster;
    const [dx0, , dx1] = inkBox(down);
    expect(column(down, Math.round((dx0 + dx1) / 2))).toBeGreaterThan(column(down, dx0 + 6) + 10);
    const same = await ok(s, 'set_text_warp', { name: 'SUMMER 2026', bend: -60 });
    expect(same.changed).toBe(false);
    // Words changed, still bent down; saved, Photoshop's Arc at −60.
    await ok(s, 'set_text_content', { name: 'SUMMER 2026', text: 'SUMMER SALE 2026' });
    expect(textIn(s).text.warp).toMatchObject({ style: 'arc', bend: -60 });
    await ok(s, 'save_document_as', { path: 'slogan.psd' });
    const saved = await agTextOf(s, 'slogan.psd', textIn(s).name);
    expect(saved.warp).toMatchObject({ style: 'arc', value: -60, rotate: 'horizontal' });
    // Straightened: drawn as the straight text is.
    await ok(s, 'set_text_warp', { name: textIn(s).name, bend: 0 });
    expect(textIn(s).text.warp).toBeUndefined();
    await ok(s, 'set_text_content', { name: textIn(s).name, text: 'SUMMER 2026' });
    expect(inkBox(textIn(s).raster)).toEqual(inkBox(flat));
  });

  it('refuses columns, paragraph text and a bend past ±100, changing nothing', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 400 });
    await ok(s, 'create_text_layer', { text: '春季新品', x: 300, y: 40, font_size: 40 });
    await ok(s, 'set_text_orientation', { name: '春季新品', orientation: 'vertical' });
    const columns = await refused(s, 'set_text_warp', { name: '春季新品', bend: 30 }, 'invalid_state');
    expect(columns.hint).toContain('set_text_orientation');
    await ok(s, 'create_paragraph_text', {
      text: '面料柔软透气',
      x: 20,
      y: 200,
      width: 200,
      height: 100,
      font_size: 24,
    });
    await refused(s, 'set_text_warp', { name: '面料柔软透气', bend: 30 }, 'invalid_state');
    await refused(s, 'set_text_warp', { name: '春季新品', bend: 150 }, 'invalid_arguments');
  });
});
