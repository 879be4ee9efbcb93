/**
 * Leading and tracking (text-spacing.ts), as Photoshop's character panel sets them: a text whose characters share
 * one fixed leading and one tracking is drawn with them, keeps them through edits and is saved with them; psd-tools
 * (an independent reader) reads them back from the engine data. A text that mixes them keeps its own record until
 * edited, and says so.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { Raster, TextLayer, TextSpec } from '../../src/engine/model.js';
import { renderText, scaleTextSpec } from '../../src/engine/text.js';
import { inkBox } from '../support/ink-box.js';
import { psdToolsAvailable } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { agTextOf, psdToolsTypeLayers, putTextPsd } from '../support/text-psd.js';
import { textSpec } from '../support/text-spec.js';
import { current, named } from './layer-fixtures.js';

const _run = promisify(execFile);
const W = 600;
const H = 400;
const black = { r: 0, g: 0, b: 0 };

const base = textSpec('春季新品', 50, 50);

/** Ink rows of a rendering: the top of each run of inked rows (one per line of text). */
function lineTops(r: Raster): number[] {
  const tops: number[] = [];
  let inked = false;
  for (let y = 0; y < r.h; y++) {
    let row = false;
    for (let x = 0; x < r.w && !row; x++) row = r.data[(y * r.w + x) * 4 + 3]! > 128;
    if (row && !inked) tops.push(r.y + y);
    inked = row;
  }
  return tops;
}

const inkWidth = (spec: TextSpec) => {
  const [l, , r] = inkBox(renderText(spec));
  return r - l;
};

describe('leading and tracking in the drawing', () => {
  it('sets lines a fixed leading apart, and adds tracking after every character', () => {
    const two = { ...base, content: '春季新品\n春季新品' };
    const [a0, a1] = lineTops(renderText(two));
    // Auto leading: 120 % of the size.
    expect(Math.abs(a1! - a0! - 48)).toBeLessThanOrEqual(1);
    const [f0, f1] = lineTops(renderText({ ...two, leading: 80 }));
    expect(f0).toBe(a0);
    expect(Math.abs(f1! - f0! - 80)).toBeLessThanOrEqual(1);
    // Tracking 250 at 40 px: 10 px after each of the four characters, three of them between ink.
    const plain = inkWidth(base);
    expect(Math.abs(inkWidth({ ...base, tracking: 250 }) - plain - 30)).toBeLessThanOrEqual(1);
    expect(Math.abs(inkWidth({ ...base, tracking: -100 }) - plain + 12)).toBeLessThanOrEqual(1);
    // Centred point text with tracking stands about its anchor, the last character's tracking counted (as Photoshop).
    const [cl, , cr] = inkBox(renderText({ ...base, x: 300, justification: 'center', tracking: 250 }));
    expect(Math.abs((cl + cr) / 2 - (300 - 5))).toBeLessThanOrEqual(2);
  });

  it('wraps paragraph text to its box with the tracking in every line', () => {
    const box = [0, 0, 200, 300] as const;
    const para = { ...base, content: '面料柔软透气舒适', box, size: 30 };
    // 8 characters of 30 px: 6 fit in 200 px; tracked by 300 (9 px each), only 5.
    expect(lineTops(renderText(para))).toHaveLength(2);
    const tracked = renderText({ ...para, tracking: 300 });
    const [l, , r] = inkBox(tracked);
    expect(r - l).toBeLessThanOrEqual(200);
    expect(r - l).toBeGreaterThan(5 * 30);
  });
});

const STYLE = { font: { name: 'NotoSansHans-Regular' }, fontSize: 40, fillColor: black };

function text(s: Session, name: string): TextLayer {
  const l = named(current(s), name);
  if (l.kind !== 'text') throw new Error(`${name} is ${l.kind}`);
  return l;
}

/** What psd-tools reads of each type layer's first style run: AutoLeading, Leading and Tracking. */
function psdToolsSpacing(file: string) {
  return psdToolsTypeLayers<{ auto: boolean; leading: number; tracking: number }>(file, [
    "st = e['StyleRun']['RunArray'][0]['StyleSheet']['StyleSheetData']",
    "v = {'auto': bool(st.get('AutoLeading', True)), 'leading': float(st.get('Leading', 0)),",
    "     'tracking': float(st.get('Tracking', 0))}",
  ]);
}

describe('leading and tracking from a PSD, through edits and saves', () => {
  it('reads one shared leading and tracking, keeps them through an edit, and saves them', async () => {
    const s = newSession();
    const spaced = { ...STYLE, autoLeading: false, leading: 72, tracking: 200 };
    await putTextPsd(
      s,
      'spaced.psd',
      [W, H],
      [
        {
          name: '标题',
          text: { text: '春季新品\n限时上新', transform: [1, 0, 0, 1, 100, 100], style: spaced },
        },
        {
          name: '混排',
          text: {
            text: '春季新品',
            transform: [1, 0, 0, 1, 100, 300],
            style: STYLE,
            styleRuns: [
              { length: 2, style: { ...STYLE, tracking: 100 } },
              { length: 2, style: STYLE },
            ],
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'spaced.psd' });
    const warned = ((opened.warnings as string[] | undefined) ?? []).join('\n');
    // One leading and tracking for every character, or each character's own: held, nothing said.
    expect(warned).not.toMatch(/标题|混排/);
    expect(text(s, '标题').text).toMatchObject({ leading: 72, tracking: 200 });
    expect(text(s, '混排').text.runs?.map((r) => [r.length, r.tracking])).toEqual([
      [2, 100],
      [2, undefined],
    ]);

    const [first, second] = lineTops(text(s, '标题').raster);
    expect(Math.abs(second! - first! - 72)).toBeLessThanOrEqual(1);

    // Edited: the words, the size and the colour change; the leading and tracking stay, as in Photoshop, and the
    // result says what they are.
    const edited = await ok(s, 'set_text_content', { name: '标题', text: '夏季新品\n全场包邮' });
    expect(edited.text).toMatchObject({ line_height: 72, tracking: 200 });
    await ok(s, 'set_text_size', { name: '标题', size: 36 });
    await ok(s, 'set_text_color', { name: '标题', color: '#c62828' });
    expect(text(s, '标题').text).toMatchObject({ leading: 72, tracking: 200, size: 36 });
    const saved = await ok(s, 'save_document_as', { path: 'out.psd' });
    expect(((saved.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/标题/);
    expect((await agTextOf(s, 'out.psd', '标题')).style).toMatchObject({
      autoLeading: false,
      leading: 72,
      tracking: 200,
    });
    if (psdToolsAvailable()) {
      const seen = await psdToolsSpacing(path.join(s.workspace.root, 'out.psd'));
      expect(seen.标题).toEqual({ auto: false, leading: 72, tracking: 200 });
    }

    // Read back, the same: drawn as it was saved.
    const again = newSession();
    await again.workspace.writeAtomic('out.psd', await readFile(path.join(s.workspace.root, 'out.psd')));
    await ok(again, 'open_document', { path: 'out.psd' });
    expect(text(again, '标题').text).toMatchObject({ leading: 72, tracking: 200, size: 36 });
    expect(text(again, '标题').raster.w).toBe(text(s, '标题').raster.w);
  });

  it('creates text with auto leading and no tracking, as before', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: W, height: H });
    const made0 = await ok(s, 'create_text_layer', { text: '新品', x: 10, y: 10, font_size: 40 });
    expect(made0.text).toMatchObject({ line_height: 48 });
    expect((made0.text as Record<string, unknown>).tracking).toBeUndefined();
    const made = current(s).layers.get(current(s).active!)!;
    if (made.kind !== 'text') throw new Error('not text');
    expect(made.text.leading).toBeUndefined();
    expect(made.text.tracking).toBeUndefined();
    await ok(s, 'save_document_as', { path: 'made.psd' });
    const style = (await agTextOf(s, 'made.psd', '新品')).style ?? {};
    expect(style.tracking ?? 0).toBe(0);
    expect(style.autoLeading).not.toBe(false);
  });
});

describe('set_text_spacing', () => {
  it('sets leading, tracking and indents as the panels do: only what is given, 0 back to auto; saved and undone', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: W, height: H });
    await ok(s, 'create_text_layer', { text: '春季新品\n限时上新', x: 50, y: 50, font_size: 40 });
    const layerName = [...current(s).layers.values()].find((l) => l.kind === 'text')!.name;
    expect(layerName.startsWith('春季新品')).toBe(true);
    const plain = text(s, layerName).raster;
    const labels = () =>
      s.editor.snapshot.docs.find((d) => d.id === s.editor.snapshot.active)!.history.labels;
    const steps = labels().length;

    const wide = await ok(s, 'set_text_spacing', { name: layerName, tracking: 250, leading: 80 });
    expect(wide.old).toEqual({
      line_height: 48,
      leading: 'auto',
      tracking: 0,
      indent: { left: 0, first: 0, right: 0 },
      space: { before: 0, after: 0 },
    });
    expect(wide.text).toMatchObject({ line_height: 80, tracking: 250 });
    const [t0, t1] = lineTops(text(s, layerName).raster);
    expect(Math.abs(t1! - t0! - 80)).toBeLessThanOrEqual(1);
    // Four 40 px characters tracked by 10 px each: 30 px wider between the first ink and the last.
    expect(Math.abs(inkBox(text(s, layerName).raster)[2] - inkBox(plain)[2] - 30)).toBeLessThanOrEqual(1);
    expect(labels().length).toBe(steps + 1);

    // Only the indent given changes; the leading and tracking stay.
    const indented = await ok(s, 'set_text_spacing', { name: layerName, indent_first: 80 });
    expect(indented.text).toMatchObject({
      line_height: 80,
      tracking: 250,
      indent: { left: 0, first: 80, right: 0 },
    });
    expect(inkBox(text(s, layerName).raster)[0]).toBeGreaterThanOrEqual(50 + 80 - 1);
    // The same values again: nothing changes, no history step.
    const same = await ok(s, 'set_text_spacing', { name: layerName, tracking: 250 });
    expect(same.changed).toBe(false);
    expect(labels().length).toBe(steps + 2);

    await ok(s, 'save_document_as', { path: 'spaced.psd' });
    const saved = await agTextOf(s, 'spaced.psd', layerName);
    expect(saved.style).toMatchObject({ autoLeading: false, leading: 80, tracking: 250 });
    expect(saved.paragraphStyle).toMatchObject({ firstLineIndent: 80 });

    // 0: back to auto leading, no tracking, no indent.
    const back = await ok(s, 'set_text_spacing', {
      name: layerName,
      leading: 0,
      tracking: 0,
      indent_first: 0,
    });
    expect(back.text).toMatchObject({ line_height: 48 });
    expect(text(s, layerName).text).not.toHaveProperty('leading');
    expect(text(s, layerName).text).not.toHaveProperty('tracking');
    expect(text(s, layerName).text).not.toHaveProperty('indent');
    expect(Buffer.compare(Buffer.from(text(s, layerName).raster.data), Buffer.from(plain.data))).toBe(0);
    await ok(s, 'undo');
    expect(text(s, layerName).text).toMatchObject({ leading: 80, tracking: 250 });

    // Nothing to change, a tracking that is not whole, a leading past Photoshop's range, a layer not text: refused,
    // nothing changed.
    const none = await refused(s, 'set_text_spacing', { name: layerName }, 'invalid_arguments');
    expect(none.message).toMatch(/至少给出/);
    await refused(s, 'set_text_spacing', { name: layerName, tracking: 12.5 }, 'invalid_arguments');
    await refused(s, 'set_text_spacing', { name: layerName, leading: 9000 }, 'invalid_arguments');
    await ok(s, 'create_layer', { name: '像素' });
    await refused(s, 'set_text_spacing', { name: '像素', tracking: 100 }, 'invalid_state');
  });
});

describe('set_text_alignment', () => {
  it('aligns point text about its anchor and paragraph text in its box; point text takes no justification', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: W, height: H });
    await ok(s, 'create_text_layer', { text: '春季新品', x: 300, y: 50, font_size: 40 });
    const before = inkBox(text(s, '春季新品').raster);
    expect(Math.abs(before[0] - 300)).toBeLessThanOrEqual(4);
    // Centred: the anchor (x = 300) becomes the middle of the line, as Photoshop moves point text.
    const centred = await ok(s, 'set_text_alignment', { name: '春季新品', alignment: 'center' });
    expect(centred).toMatchObject({ old_alignment: 'left', text: { justification: 'center', x: 300 } });
    const c = inkBox(text(s, '春季新品').raster);
    expect(Math.abs((c[0] + c[2]) / 2 - 300)).toBeLessThanOrEqual(2);
    await ok(s, 'set_text_alignment', { name: '春季新品', alignment: 'right' });
    expect(Math.abs(inkBox(text(s, '春季新品').raster)[2] - 300)).toBeLessThanOrEqual(4);
    const same = await ok(s, 'set_text_alignment', { name: '春季新品', alignment: 'right' });
    expect(same.changed).toBe(false);
    const e = await refused(
      s,
      'set_text_alignment',
      { name: '春季新品', alignment: 'justify-all' },
      'invalid_arguments',
    );
    expect(e.message).toMatch(/点文字/);
    await ok(s, 'set_text_alignment', { name: '春季新品', alignment: 'left' });
    expect(text(s, '春季新品').text).not.toHaveProperty('justification');
    await ok(s, 'save_document_as', { path: 'aligned.psd' });
    expect((await agTextOf(s, 'aligned.psd', '春季新品')).paragraphStyle?.justification ?? 'left').toBe(
      'left',
    );

    // Paragraph text: justified within its box, the box unmoved; saved so.
    await putTextPsd(
      s,
      'box.psd',
      [W, H],
      [
        {
          name: '正文',
          text: {
            text: '面料柔软透气，适合春季穿着，会员另享九五折优惠。',
            transform: [1, 0, 0, 1, 100, 100],
            style: { font: { name: 'NotoSansHans-Regular' }, fontSize: 20, fillColor: black },
            shapeType: 'box',
            boxBounds: [0, 0, 210, 200],
          },
        },
      ],
    );
    await ok(s, 'open_document', { path: 'box.psd' });
    const r = await ok(s, 'set_text_alignment', { name: '正文', alignment: 'justify-left' });
    expect(String(r.note)).toMatch(/文本框不动/);
    expect(text(s, '正文').text).toMatchObject({ justification: 'justify-left', x: 100, y: 100 });
    // Spread to the box's right edge (first line), where left-aligned it stopped short of it.
    expect(inkBox(text(s, '正文').raster)[2]).toBeGreaterThan(100 + 210 - 4);
    await ok(s, 'save_document');
    expect((await agTextOf(s, 'box.psd', '正文')).paragraphStyle?.justification).toBe('justify-left');
  });
});

/** What psd-tools reads of each type layer's paragraph runs: each run's SpaceBefore and SpaceAfter. */
function psdToolsParagraphSpace(file: string) {
  return psdToolsTypeLayers<{ before: number; after: number }[]>(file, [
    "runs = e['ParagraphRun']['RunArray']",
    "props = [r['ParagraphSheet']['Properties'] for r in runs]",
    "v = [{'before': float(p.get('SpaceBefore', 0)), 'after': float(p.get('SpaceAfter', 0))} for p in props]",
  ]);
}

describe('space before and after paragraphs (the paragraph panel)', () => {
  const three = { ...base, content: '春季新品\n限时上新\n全场包邮' };

  it('adds the space between paragraphs, not above the first one nor between the lines of one', () => {
    const [a0, a1, a2] = lineTops(renderText(three));
    const [s0, s1, s2] = lineTops(renderText({ ...three, space: { before: 10, after: 20 } }));
    expect(s0).toBe(a0);
    expect(Math.abs(s1! - s0! - (a1! - a0!) - 30)).toBeLessThanOrEqual(1);
    expect(Math.abs(s2! - s1! - (a2! - a1!) - 30)).toBeLessThanOrEqual(1);
    // Negative space draws paragraphs closer.
    const [n0, n1] = lineTops(renderText({ ...three, space: { before: 0, after: -8 } }));
    expect(Math.abs(n1! - n0! - (a1! - a0!) + 8)).toBeLessThanOrEqual(1);
    // Paragraph text: the two lines one paragraph wraps into stay a leading apart; the next paragraph is spaced.
    const box = [0, 0, 130, 400] as const;
    const para = { ...base, content: '面料柔软透气舒适\n限时上新', box, size: 30 };
    const [w0, w1, w2] = lineTops(renderText({ ...para, space: { before: 0, after: 25 } }));
    const [p0, p1, p2] = lineTops(renderText(para));
    expect(w1! - w0!).toBe(p1! - p0!);
    expect(Math.abs(w2! - w1! - (p2! - p1!) - 25)).toBeLessThanOrEqual(1);
    // Scaled with the text, as the indents are.
    expect(scaleTextSpec({ ...three, space: { before: 10, after: 20 } }, 2, 2, { x: 0, y: 0 }).space).toEqual(
      {
        before: 20,
        after: 40,
      },
    );
  });

  it('is read from a PSD, kept through edits, saved, and set by set_text_spacing', async () => {
    const s = newSession();
    await putTextPsd(
      s,
      'space.psd',
      [W, H],
      [
        {
          name: '说明',
          text: {
            text: three.content,
            transform: [1, 0, 0, 1, 60, 80],
            style: STYLE,
            paragraphStyle: { spaceBefore: 6, spaceAfter: 18 },
          },
        },
        {
          name: '各段不同',
          text: {
            text: '一段\n二段',
            transform: [1, 0, 0, 1, 400, 80],
            style: STYLE,
            paragraphStyleRuns: [
              { length: 3, style: { spaceAfter: 10 } },
              { length: 2, style: { spaceAfter: 0 } },
            ],
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'space.psd' });
    const warned = ((opened.warnings as string[] | undefined) ?? []).join('\n');
    // Shared by every paragraph: held as the text's; differing between paragraphs: each its own. Nothing said.
    expect(warned).not.toMatch(/说明|各段不同/);
    expect(text(s, '各段不同').text.paragraphs).toEqual([{ space: { before: 0, after: 10 } }, {}]);
    expect(text(s, '说明').text.space).toEqual({ before: 6, after: 18 });
    const auto = lineTops(renderText({ ...base, content: three.content }));
    const [o0, o1] = lineTops(text(s, '说明').raster);
    expect(Math.abs(o1! - o0! - (auto[1]! - auto[0]!) - 24)).toBeLessThanOrEqual(1);

    // An edit keeps it; the model reads it.
    const edited = await ok(s, 'set_text_content', { name: '说明', text: '夏季新品\n全场包邮' });
    expect(edited.text).toMatchObject({ space: { before: 6, after: 18 } });
    const changed = await ok(s, 'set_text_spacing', { name: '说明', space_after: 30 });
    expect((changed.old as { space: unknown }).space).toEqual({ before: 6, after: 18 });
    expect(changed.text).toMatchObject({ space: { before: 6, after: 30 } });
    const [e0, e1] = lineTops(text(s, '说明').raster);
    expect(Math.abs(e1! - e0! - (auto[1]! - auto[0]!) - 36)).toBeLessThanOrEqual(1);

    await ok(s, 'save_document_as', { path: 'out.psd' });
    expect((await agTextOf(s, 'out.psd', '说明')).paragraphStyle).toMatchObject({
      spaceBefore: 6,
      spaceAfter: 30,
    });
    if (psdToolsAvailable()) {
      const seen = await psdToolsParagraphSpace(path.join(s.workspace.root, 'out.psd'));
      expect(seen.说明!.length).toBeGreaterThan(0);
      for (const run of seen.说明!) expect(run).toEqual({ before: 6, after: 30 });
    }
    // Read back, the same.
    const again = newSession();
    await again.workspace.writeAtomic('out.psd', await readFile(path.join(s.workspace.root, 'out.psd')));
    await ok(again, 'open_document', { path: 'out.psd' });
    expect(text(again, '说明').text.space).toEqual({ before: 6, after: 30 });

    // Both 0: gone, drawn as without; undone, back. Past Photoshop's range: refused, nothing changed.
    await ok(s, 'set_text_spacing', { name: '说明', space_before: 0, space_after: 0 });
    expect(text(s, '说明').text).not.toHaveProperty('space');
    await ok(s, 'undo');
    expect(text(s, '说明').text.space).toEqual({ before: 6, after: 30 });
    await refused(s, 'set_text_spacing', { name: '说明', space_after: 2000 }, 'invalid_arguments');
    expect(text(s, '说明').text.space).toEqual({ before: 6, after: 30 });
  });
});
