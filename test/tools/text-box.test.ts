/**
 * create_paragraph_text: paragraph (box) text made as Photoshop's type tool makes it from a dragged box, through
 * the real Session. The reference for where it belongs is Photoshop's own rendering of the paragraph text in
 * ag-psd's test file (test/read/alias/src.psd, described in text-paragraph.test.ts): "Windows", 72 px, centred in
 * a 714 × 119.88 box at (44, 131.24), whose ink Photoshop puts at [250, 131, 552, 190]. psd-tools (an independent
 * reader) and ag-psd's reader check what is saved.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { TextLayer } from '../../src/engine/model.js';
import { layoutText } from '../../src/engine/text.js';
import { paragraphOf } from '../../src/engine/text-paragraph.js';
import { inkBox } from '../support/ink-box.js';
import { psdToolsAvailable } from '../support/psd-tools.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';
import { agTextOf, psdToolsTypeLayers } from '../support/text-psd.js';
import { current, named } from './layer-fixtures.js';

const PHOTOSHOP_INK = [250, 131, 552, 190] as const;

const BODY = '春季新品上市，全场八折优惠。活动时间：三月一日至三月十五日，详情请咨询门店。';

/** BODY in a box too short for it: two of its lines show. */
const SHORT_BOX = { text: BODY, x: 100, y: 60, width: 300, height: 80, font_size: 30 };

function text(s: Session, name: string): TextLayer {
  const l = named(current(s), name);
  if (l.kind !== 'text') throw new Error(`${name} is ${l.kind}`);
  return l;
}

function theOnlyText(s: Session): TextLayer {
  const texts = [...current(s).layers.values()].filter((l): l is TextLayer => l.kind === 'text');
  expect(texts).toHaveLength(1);
  return texts[0]!;
}

async function poster(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 817, height: 533, name: '海报' });
  return s;
}

describe('create_paragraph_text sets words in a box as Photoshop does', () => {
  it("centred in its box, the first baseline an ascent below the box's top: Photoshop's own pixels ±1 px", async () => {
    const s = await poster();
    const r = await ok(s, 'create_paragraph_text', {
      text: 'Windows',
      x: 44,
      y: 131.24207492795387,
      width: 714,
      height: 119.88473,
      font_size: 72,
      alignment: 'center',
    });
    const t = text(s, 'Windows');
    expect(paragraphOf(t.text)).toEqual({ justification: 'center', box: [0, 0, 714, 119.88473] });
    expect(r.text).toMatchObject({ justification: 'center', box: { width: 714, height: 119.885 } });
    expect(r.hidden_lines).toBeUndefined();
    inkBox(t.raster).forEach((v, i) => {
      expect(Math.abs(v - PHOTOSHOP_INK[i]!)).toBeLessThanOrEqual(1);
    });
  });

  it('Chinese wraps inside the box, left-aligned by default, no line wider than the box, no comma at a line start', async () => {
    const s = await poster();
    const r = await ok(s, 'create_paragraph_text', {
      text: BODY,
      x: 100,
      y: 60,
      width: 300,
      height: 400,
      font_size: 30,
    });
    const t = theOnlyText(s);
    // Named after its words, as Photoshop names a new text layer.
    expect(t.name).toMatch(/^春季新品上市，/);
    expect(r.layer).toMatchObject({ name: t.name });
    const lines = layoutText(t.text).lines;
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) {
      expect(line.x).toBe(100);
      expect(line.text).not.toMatch(/^[，。：]/);
    }
    const ink = inkBox(t.raster);
    expect(ink[0]).toBeGreaterThanOrEqual(100);
    expect(ink[2]).toBeLessThanOrEqual(400);
    // The first baseline sits the font's "d" height below the top (Adobe's Ascent baseline): a tall ideograph
    // reaches a pixel or so above it, as in Photoshop.
    expect(ink[1]).toBeGreaterThanOrEqual(58);
    expect(ink[1]).toBeLessThanOrEqual(62);
    // Ten full-width characters fit 300 px at 30 px: the first line holds them and the ink fills the width.
    expect([...lines[0]!.text]).toHaveLength(10);
    expect(ink[2]).toBeGreaterThan(390);
  });

  it("right-aligned and justified lines end at the box's right edge; the last line of justify-left stays left", async () => {
    const s = await poster();
    const args = { text: BODY, x: 100, y: 60, width: 310, height: 400, font_size: 30 };
    await ok(s, 'create_paragraph_text', { ...args, alignment: 'right' });
    const right = layoutText(theOnlyText(s).text).lines;
    await ok(s, 'delete_layer');
    await ok(s, 'create_paragraph_text', { ...args, alignment: 'justify-left' });
    const spread = layoutText(theOnlyText(s).text).lines;
    // Ten characters take 300 of the 310 px: right-aligned, each full line starts 10 px in.
    expect(right[0]!.x).toBeCloseTo(110, 0);
    expect(spread[0]!.parts?.length).toBeGreaterThan(1);
    expect(spread.at(-1)!.parts).toBeUndefined();
    expect(spread.at(-1)!.x).toBe(100);
  });

  it('text the box cannot hold is hidden, counted, and the result says how to show it', async () => {
    const s = await poster();
    const r = await ok(s, 'create_paragraph_text', SHORT_BOX);
    const t = theOnlyText(s);
    // Two 36 px lines fit 80 px; the words are all kept in the layer.
    expect(layoutText(t.text).lines).toHaveLength(2);
    expect(t.text.content).toBe(BODY);
    expect(r.hidden_lines).toBe(layoutText({ ...t.text, box: [0, 0, 300, 10_000] }).lines.length - 2);
    expect(String(r.overflow_note)).toMatch(/未显示/);
    expect(inkBox(t.raster)[3]).toBeLessThanOrEqual(140);
    // A larger size hides more; the result of set_text_size says so too.
    const bigger = await ok(s, 'set_text_size', { name: t.name, size: 40 });
    expect(bigger.hidden_lines).toBeGreaterThan(r.hidden_lines as number);
  });

  it.runIf(psdToolsAvailable())(
    'saved as Photoshop saves a box it drew: box bounds from the origin at its top-left, the alignment; reopened the same',
    async () => {
      const s = await poster();
      await ok(s, 'create_paragraph_text', {
        text: BODY,
        x: 120,
        y: 70,
        width: 320,
        height: 300,
        font_size: 28,
        color: '#c0392b',
        alignment: 'justify-left',
      });
      const before = theOnlyText(s);
      await ok(s, 'save_document_as', { path: 'box.psd' });
      const back = await agTextOf(s, 'box.psd', before.name);
      expect(back).toMatchObject({
        text: BODY,
        shapeType: 'box',
        boxBounds: [0, 0, 320, 300],
        paragraphStyle: { justification: 'justify-left' },
      });
      expect(back.transform).toEqual([1, 0, 0, 1, 120, 70]);
      const seen = await psdToolsTypeLayers<{ shape: number; box: number[]; transform: number[] }>(
        path.join(s.workspace.root, 'box.psd'),
        [
          "ph = e['Rendered']['Shapes']['Children'][0]['Cookie']['Photoshop']",
          'v = {',
          "    'shape': int(ph['ShapeType']),",
          "    'box': [float(v) for v in ph.get('BoxBounds', [])],",
          "    'transform': [float(v) for v in l.transform],",
          '}',
        ],
      );
      expect(seen[before.name]).toEqual({
        shape: 1,
        box: [0, 0, 320, 300],
        transform: [1, 0, 0, 1, 120, 70],
      });
      await ok(s, 'close_document');
      await ok(s, 'open_document', { path: 'box.psd' });
      const again = theOnlyText(s);
      expect(paragraphOf(again.text)).toEqual(paragraphOf(before.text));
      expect(inkBox(again.raster)).toEqual(inkBox(before.raster));
    },
  );

  it('bad input is refused with a clear error and leaves every document as it was', async () => {
    const s = await poster();
    const base = { text: BODY, x: 10, y: 10, width: 200, height: 100, font_size: 20 };
    const kept = hashEditor(s.editor.snapshot);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, width: 0 }, /^width /],
      [{ ...base, height: 300_001 }, /^height /],
      [{ ...base, text: '' }, /^text 不能为空/],
      [{ ...base, alignment: 'middle' }, /^alignment /],
      [{ ...base, font_size: 0 }, /^font_size /],
      [{ ...base, x: 2 ** 32 }, /^x 超出范围/],
    ];
    for (const [args, names] of cases) {
      const r = await call(s, 'create_paragraph_text', args);
      expect(r.ok, JSON.stringify(args)).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toMatch(/invalid_arguments|out_of_bounds/);
      expect(`${r.error.message} ${r.error.hint ?? ''}`).toMatch(names);
      expect(hashEditor(s.editor.snapshot)).toBe(kept);
    }
    const none = newSession();
    const r = await call(none, 'create_paragraph_text', base);
    expect(r.ok).toBe(false);
  });
});

describe('set_text_box resizes a paragraph text box as a drag on its corner does', () => {
  it('the top-left stays, the words wrap again, hidden lines come back; the saved file has the new box', async () => {
    const s = await poster();
    const made = await ok(s, 'create_paragraph_text', SHORT_BOX);
    expect(made.hidden_lines).toBeGreaterThan(0);
    const name = theOnlyText(s).name;
    const taller = await ok(s, 'set_text_box', { name, height: 300 });
    expect(taller.hidden_lines).toBeUndefined();
    expect(taller.old_box).toEqual({ width: 300, height: 80 });
    expect(taller.text).toMatchObject({ x: 100, y: 60, box: { width: 300, height: 300 } });
    const lines = layoutText(theOnlyText(s).text).lines;
    expect(lines.length).toBe(2 + (made.hidden_lines as number));
    // Narrower: more lines, each within the new width, the same size.
    await ok(s, 'set_text_box', { name, width: 200 });
    const narrow = theOnlyText(s);
    expect(narrow.text.size).toBe(30);
    expect(layoutText(narrow.text).lines.length).toBeGreaterThan(lines.length);
    const ink = inkBox(narrow.raster);
    expect(ink[0]).toBeGreaterThanOrEqual(100);
    expect(ink[2]).toBeLessThanOrEqual(300);
    await ok(s, 'save_document_as', { path: 'resized.psd' });
    const back = await agTextOf(s, 'resized.psd', name);
    expect(back).toMatchObject({ shapeType: 'box', boxBounds: [0, 0, 200, 300] });
    expect(back.transform).toEqual([1, 0, 0, 1, 100, 60]);
    // One history step each: undo gives the taller box back.
    await ok(s, 'undo');
    expect(paragraphOf(theOnlyText(s).text).box).toEqual([0, 0, 300, 300]);
  });

  it('refuses point text, an empty call and a box of no size, and changes nothing', async () => {
    const s = await poster();
    await ok(s, 'create_text_layer', { text: '标题', x: 10, y: 10, font_size: 40 });
    await ok(s, 'create_paragraph_text', SHORT_BOX);
    const para = [...current(s).layers.values()].find((l) => l.kind === 'text' && l.name !== '标题')!.name;
    const kept = hashEditor(s.editor.snapshot);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: '标题', width: 200 }, /点文字/],
      [{ name: para }, /至少给出/],
      [{ name: para, width: 0 }, /^width /],
    ];
    for (const [args, message] of cases) {
      const r = await call(s, 'set_text_box', args);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(`${r.error.message} ${r.error.hint ?? ''}`).toMatch(message);
      expect(hashEditor(s.editor.snapshot)).toBe(kept);
    }
    // The same size: nothing to change, no history step.
    const same = await ok(s, 'set_text_box', { name: para, width: 300, height: 80 });
    expect(same.changed).toBe(false);
  });
});
