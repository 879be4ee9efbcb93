/**
 * Paragraph (box) text and centred or right-aligned text from a PSD, through the real Session: drawn where
 * Photoshop draws it, edited without turning into left-aligned point text, saved with its box, bounds,
 * alignment and the file's own font name, and kept through convert_to_cmyk.
 *
 * The fixtures are written with ag-psd, text records without pixels (so Atelier draws them). The paragraph text
 * is the one of ag-psd's test file test/read/alias/src.psd, made in Photoshop: "Windows", 72 px Noto Sans CJK KR
 * (whose Latin glyphs are the bundled Noto Sans CJK SC's), centred in a 714 × 119.88 box at (44, 131.24).
 * Photoshop's own pixels of it have their ink at [250, 131, 552, 190]: the reference for where it belongs.
 * psd-tools (an independent reader) and ag-psd's reader check what is saved.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { TextLayer } from '../../src/engine/model.js';
import { layoutText } from '../../src/engine/text.js';
import { paragraphOf } from '../../src/engine/text-paragraph.js';
import { inkBox } from '../support/ink-box.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok } from '../support/session.js';
import { type AgText, agTextOf, psdToolsTypeLayers, putTextPsd } from '../support/text-psd.js';
import { current, named } from './layer-fixtures.js';

const _run = promisify(execFile);
const W = 817;
const H = 533;

/** Photoshop's ink box of its own rendering of WINDOWS (alpha > 128). */
const PHOTOSHOP_INK = [250, 131, 552, 190] as const;
const BOX = [0, 0, 714, 119.88473];
const ORIGIN = [44, 131.24207492795387] as const;

const black = { r: 0, g: 0, b: 0 };

const WINDOWS: AgText = {
  text: 'Windows',
  transform: [1, 0, 0, 1, ...ORIGIN],
  style: { font: { name: 'NotoSansKR-Regular' }, fontSize: 72, fillColor: black },
  paragraphStyle: { justification: 'center' },
  shapeType: 'box',
  boxBounds: BOX,
};

function pointText(text: string, justification: 'left' | 'center' | 'right', x: number, y: number): AgText {
  return {
    text,
    transform: [1, 0, 0, 1, x, y],
    style: { font: { name: 'NotoSansHans-Regular' }, fontSize: 40, fillColor: black },
    paragraphStyle: { justification },
  };
}

function text(s: Session, name: string): TextLayer {
  const l = named(current(s), name);
  if (l.kind !== 'text') throw new Error(`${name} is ${l.kind}`);
  return l;
}

function expectNear(got: readonly number[], want: readonly number[], tolerance: number): void {
  got.forEach((v, i) => {
    expect(Math.abs(v - want[i]!), `[${got.join(', ')}] vs [${want.join(', ')}] at ${i}`).toBeLessThanOrEqual(
      tolerance,
    );
  });
}

interface TypeSeen {
  shape: number;
  box: number[];
  justification: number[];
  transform: number[];
  fonts: string[];
}

/** What psd-tools reads of each type layer's engine data: shape (1 = box), box, alignment (2 = centre), fonts. */
function psdToolsTypes(file: string): Promise<Record<string, TypeSeen>> {
  return psdToolsTypeLayers<TypeSeen>(file, [
    "ph = e['Rendered']['Shapes']['Children'][0]['Cookie']['Photoshop']",
    "runs = e['ParagraphRun']['RunArray']",
    "fonts = [str(f['Name'].value if hasattr(f['Name'], 'value') else f['Name']).strip(\"'\")",
    "         for f in l.resource_dict['FontSet']]",
    'v = {',
    "    'shape': int(ph['ShapeType']),",
    "    'box': [float(v) for v in ph.get('BoxBounds', [])],",
    "    'justification': [int(r['ParagraphSheet']['Properties'].get('Justification', 0)) for r in runs],",
    "    'transform': [float(v) for v in l.transform],",
    "    'fonts': fonts,",
    '}',
  ]);
}

describe('paragraph and aligned text from a PSD is drawn where Photoshop draws it', () => {
  it("centred paragraph text: centred in its box, its first baseline an ascent below the box's top (Photoshop's own pixels ±1 px)", async () => {
    const s = newSession();
    await putTextPsd(s, 'box.psd', [W, H], [{ name: 'Windows', text: WINDOWS }]);
    await ok(s, 'open_document', { path: 'box.psd' });
    const t = text(s, 'Windows');
    expect(paragraphOf(t.text)).toEqual({ justification: 'center', box: BOX });
    // x, y: the box's top-left.
    expect([t.text.x, t.text.y]).toEqual(ORIGIN.map((v) => expect.closeTo(v, 5)));
    expectNear(inkBox(t.raster), PHOTOSHOP_INK, 1);
  });

  it.runIf(psdToolsAvailable())(
    'unedited, it is saved with that rendering and the record as it was: box, bounds, alignment',
    async () => {
      const s = newSession();
      await putTextPsd(s, 'box.psd', [W, H], [{ name: 'Windows', text: WINDOWS }]);
      await ok(s, 'open_document', { path: 'box.psd' });
      await ok(s, 'save_document_as', { path: 'again.psd' });
      const file = path.join(s.workspace.root, 'again.psd');
      // psd-tools' own composite of the saved layers: the dark text on white where Photoshop has it.
      const { composite } = await readWithPsdTools(await readFile(file), { composite: true });
      const img = composite!;
      const alpha = new Uint8ClampedArray(img.width * img.height * 4);
      for (let i = 0; i < img.width * img.height; i++) alpha[i * 4 + 3] = 255 - img.data[i * 4]!;
      expectNear(inkBox({ x: 0, y: 0, w: img.width, h: img.height, data: alpha }), PHOTOSHOP_INK, 1);
      const seen = (await psdToolsTypes(file)).Windows!;
      expect(seen).toMatchObject({ shape: 1, box: BOX, justification: [2] });
      expectNear(seen.transform, [1, 0, 0, 1, ...ORIGIN], 1e-4);
    },
  );

  it('centred and right-aligned point text: the transform origin is the centre or the end of the first baseline', async () => {
    const s = newSession();
    await putTextPsd(
      s,
      'points.psd',
      [W, H],
      [
        { name: '左', text: pointText('春季新品 Sale', 'left', 100, 100) },
        { name: '中', text: pointText('春季新品 Sale', 'center', 400, 200) },
        { name: '右', text: pointText('春季新品 Sale', 'right', 700, 300) },
      ],
    );
    await ok(s, 'open_document', { path: 'points.psd' });
    const left = inkBox(text(s, '左').raster);
    const centre = inkBox(text(s, '中').raster);
    const right = inkBox(text(s, '右').raster);
    const width = left[2] - left[0];
    // The same glyphs, as wide (±1 px: another sub-pixel start), on the same baseline relative to the origin.
    expect(Math.abs(centre[2] - centre[0] - width)).toBeLessThanOrEqual(1);
    expect(Math.abs(right[2] - right[0] - width)).toBeLessThanOrEqual(1);
    expect([centre[1] - 200, centre[3] - 200]).toEqual([left[1] - 100, left[3] - 100]);
    expect([right[1] - 300, right[3] - 300]).toEqual([left[1] - 100, left[3] - 100]);
    // Centred on x = 400 (±1 px of side bearings); ending at x = 700 (the last glyph's side bearing short of it).
    expect(Math.abs((centre[0] + centre[2]) / 2 - 400)).toBeLessThanOrEqual(1.5);
    expect(right[2]).toBeLessThanOrEqual(700);
    expect(right[2]).toBeGreaterThanOrEqual(700 - 4);
  });
});

describe('editing keeps paragraph text in its box and aligned text aligned', () => {
  it.runIf(psdToolsAvailable())(
    'set_text_content on centred paragraph text: centred in the same box, saved as box text with its bounds and alignment',
    async () => {
      const s = newSession();
      await putTextPsd(s, 'box.psd', [W, H], [{ name: 'Windows', text: WINDOWS }]);
      await ok(s, 'open_document', { path: 'box.psd' });
      await ok(s, 'set_text_content', { name: 'Windows', text: 'Windows 11' });
      const t = text(s, 'Windows 11');
      expect(paragraphOf(t.text)).toEqual({ justification: 'center', box: BOX });
      const ink = inkBox(t.raster);
      // Centred in the box (44 … 758), the same first line height as Photoshop's.
      expect(Math.abs((ink[0] + ink[2]) / 2 - (44 + 714 / 2))).toBeLessThanOrEqual(1.5);
      expect(ink[1]).toBe(PHOTOSHOP_INK[1] + 1);
      expect(ink[3]).toBe(PHOTOSHOP_INK[3]);

      const saved = await ok(s, 'save_document');
      expect(JSON.stringify(saved.warnings ?? [])).not.toMatch(/段落文本框|对齐/);
      const back = await agTextOf(s, 'box.psd', 'Windows 11');
      expect(back).toMatchObject({
        text: 'Windows 11',
        shapeType: 'box',
        boxBounds: BOX,
        paragraphStyle: { justification: 'center' },
      });
      expectNear(back.transform!, [1, 0, 0, 1, ...ORIGIN], 1e-4);
      const seen = (await psdToolsTypes(path.join(s.workspace.root, 'box.psd')))['Windows 11']!;
      expect(seen).toMatchObject({ shape: 1, box: BOX, justification: [2] });

      // Reopened: the same box text in the same place.
      await ok(s, 'close_document');
      await ok(s, 'open_document', { path: 'box.psd' });
      const again = text(s, 'Windows 11');
      expect(paragraphOf(again.text)).toEqual({ justification: 'center', box: BOX });
      expect([again.text.x, again.text.y]).toEqual(ORIGIN.map((v) => expect.closeTo(v, 4)));
    },
  );

  it('rotated paragraph text: drawn inside its turned box, edited and saved at the same origin with the same box', async () => {
    const s = newSession();
    const r = (20 * Math.PI) / 180;
    const m = [Math.cos(r), Math.sin(r), -Math.sin(r), Math.cos(r)];
    await putTextPsd(
      s,
      'turned.psd',
      [W, H],
      [
        {
          name: '斜框',
          text: {
            ...WINDOWS,
            text: '春季新品上市，全场八折优惠',
            transform: [...m, 300, 100],
            boxBounds: [0, 0, 300, 160],
            style: { ...WINDOWS.style, fontSize: 40 },
          },
        },
      ],
    );
    await ok(s, 'open_document', { path: 'turned.psd' });
    await ok(s, 'set_text_content', { name: '斜框', text: '夏季新品上市，全场八折优惠' });
    const t = text(s, '斜框');
    // Every inked pixel, taken back into the box's own space, lies inside the box (±1.5 px of anti-aliasing).
    let inked = 0;
    for (let y = 0; y < t.raster.h; y++) {
      for (let x = 0; x < t.raster.w; x++) {
        if (t.raster.data[(y * t.raster.w + x) * 4 + 3]! <= 128) continue;
        inked++;
        const dx = t.raster.x + x + 0.5 - 300;
        const dy = t.raster.y + y + 0.5 - 100;
        const u = m[0]! * dx + m[1]! * dy;
        const v = -m[1]! * dx + m[0]! * dy;
        expect(u).toBeGreaterThan(-1.5);
        expect(u).toBeLessThan(300 + 1.5);
        expect(v).toBeGreaterThan(-1.5);
        expect(v).toBeLessThan(160 + 1.5);
      }
    }
    expect(inked).toBeGreaterThan(1000);
    await ok(s, 'save_document');
    const back = await agTextOf(s, 'turned.psd', '斜框');
    expect(back).toMatchObject({ shapeType: 'box', boxBounds: [0, 0, 300, 160] });
    expectNear(back.transform!, [...m, 300, 100], 1e-4);
  });

  it('set_text_size on paragraph text keeps its box where it is: the text is set again inside it', async () => {
    const s = newSession();
    await putTextPsd(s, 'box.psd', [W, H], [{ name: 'Windows', text: WINDOWS }]);
    await ok(s, 'open_document', { path: 'box.psd' });
    const r = await ok(s, 'set_text_size', { name: 'Windows', size: 36 });
    expect(String(r.note)).toContain('段落文本框');
    const t = text(s, 'Windows');
    expect(paragraphOf(t.text)).toEqual({ justification: 'center', box: BOX });
    expect([t.text.x, t.text.y]).toEqual(ORIGIN.map((v) => expect.closeTo(v, 5)));
    const ink = inkBox(t.raster);
    expect(Math.abs((ink[0] + ink[2]) / 2 - (44 + 714 / 2))).toBeLessThanOrEqual(1.5);
    // The first line half as far below the box's top (an ascent at 36 px: 29 px), half as wide.
    expect(ink[3]).toBe(Math.round(ORIGIN[1] + 0.806 * 36));
    expect(Math.abs(ink[2] - ink[0] - (PHOTOSHOP_INK[2] - PHOTOSHOP_INK[0]) / 2)).toBeLessThanOrEqual(2);
  });

  it.runIf(psdToolsAvailable())(
    'set_text_size on centred point text keeps its centre (Photoshop scales about the anchor), saved at the same origin as centred point text',
    async () => {
      const s = newSession();
      await putTextPsd(
        s,
        'points.psd',
        [W, H],
        [
          { name: '中', text: pointText('春季新品 Sale', 'center', 400, 200) },
          { name: '右', text: pointText('春季新品', 'right', 700, 300) },
        ],
      );
      await ok(s, 'open_document', { path: 'points.psd' });
      const before = inkBox(text(s, '中').raster);
      const r = await ok(s, 'set_text_size', { name: '中', size: 80 });
      expect(String(r.note)).toContain('中点');
      const after = inkBox(text(s, '中').raster);
      expect(Math.abs((after[0] + after[2]) / 2 - (before[0] + before[2]) / 2)).toBeLessThanOrEqual(1.5);
      expect(after[2] - after[0]).toBeGreaterThan(1.9 * (before[2] - before[0]));
      // On the same baseline: the glyphs' bottoms stay at the same height.
      expect(Math.abs(after[3] - 200 - 2 * (before[3] - 200))).toBeLessThanOrEqual(2);
      await ok(s, 'set_text_size', { name: '右', size: 20 });
      expect(inkBox(text(s, '右').raster)[2]).toBeGreaterThanOrEqual(700 - 3);
      expect(inkBox(text(s, '右').raster)[2]).toBeLessThanOrEqual(700);

      await ok(s, 'save_document');
      const centre = await agTextOf(s, 'points.psd', '中');
      expect(centre.shapeType ?? 'point').toBe('point');
      expect(centre.paragraphStyle?.justification).toBe('center');
      expect(centre.style?.fontSize).toBe(80);
      expectNear(centre.transform!, [1, 0, 0, 1, 400, 200], 1e-4);
      const seen = await psdToolsTypes(path.join(s.workspace.root, 'points.psd'));
      expect(seen.中).toMatchObject({ shape: 0, justification: [2] });
      expect(seen.右).toMatchObject({ shape: 0, justification: [1] });
      expectNear(seen.右!.transform, [1, 0, 0, 1, 700, 300], 1e-4);
    },
  );
});

describe('indents', () => {
  it('a first-line indent shared by every paragraph is drawn, kept through an edit and saved; each paragraph its own where they differ', async () => {
    const s = newSession();
    const body = (first: number) => ({ firstLineIndent: first });
    await putTextPsd(
      s,
      'body.psd',
      [W, H],
      [
        {
          name: '正文',
          text: {
            text: '面料柔软透气，适合春季穿着。\n会员另享九五折。',
            transform: [1, 0, 0, 1, 100, 100],
            style: { font: { name: 'NotoSansHans-Regular' }, fontSize: 30, fillColor: black },
            paragraphStyle: body(60),
            shapeType: 'box',
            boxBounds: [0, 0, 300, 300],
          },
        },
        {
          name: '混排',
          text: {
            text: '第一段\n第二段',
            transform: [1, 0, 0, 1, 100, 450],
            style: { font: { name: 'NotoSansHans-Regular' }, fontSize: 30, fillColor: black },
            paragraphStyleRuns: [
              { length: 4, style: body(60) },
              { length: 3, style: body(0) },
            ],
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'body.psd' });
    const warned = ((opened.warnings as string[] | undefined) ?? []).join('\n');
    expect(warned).not.toMatch(/正文|混排/);
    // Indents that differ: each paragraph drawn with its own.
    expect(text(s, '混排').text.paragraphs).toEqual([{ indent: { left: 0, first: 60, right: 0 } }, {}]);
    expect(layoutText(text(s, '混排').text).lines.map((l) => l.x)).toEqual([160, 100]);
    expect(text(s, '正文').text.indent).toEqual({ left: 0, first: 60, right: 0 });
    // Each paragraph's first line two characters in: its ink starts 60 px right of the wrapped line's.
    const ink = inkBox(text(s, '正文').raster);
    expect(ink[0]).toBeGreaterThanOrEqual(100 - 1);
    expect(ink[0]).toBeLessThan(100 + 4);
    const lines = layoutText(text(s, '正文').text).lines;
    expect(lines.map((l) => l.x)).toEqual([160, 100, 160]);

    const edited = await ok(s, 'set_text_content', {
      name: '正文',
      text: '新品上市，全场八折优惠，欢迎选购。',
    });
    expect(edited.text).toMatchObject({ indent: { left: 0, first: 60, right: 0 } });
    await ok(s, 'save_document_as', { path: 'out.psd' });
    expect((await agTextOf(s, 'out.psd', '正文')).paragraphStyle).toMatchObject({ firstLineIndent: 60 });
    if (psdToolsAvailable()) {
      const indents = await psdToolsTypeLayers<number>(path.join(s.workspace.root, 'out.psd'), [
        "v = float(e['ParagraphRun']['RunArray'][0]['ParagraphSheet']['Properties'].get('FirstLineIndent', 0))",
      ]);
      expect(indents.正文).toBe(60);
    }
  });
});

describe('paragraphs set differently', () => {
  it('keeps each paragraph’s alignment from a PSD through edits and saves, until one alignment is set for all', async () => {
    const s = newSession();
    const style = { font: { name: 'NotoSansHans-Regular' }, fontSize: 30, fillColor: black };
    // A centred title, a body set left, a signature set right: three paragraph runs, as Photoshop writes them.
    await putTextPsd(
      s,
      'card.psd',
      [W, H],
      [
        {
          name: '贺卡',
          text: {
            text: '新春快乐\n祝您万事如意\n店长',
            transform: [1, 0, 0, 1, 100, 100],
            style,
            paragraphStyleRuns: [
              { length: 5, style: { justification: 'center' } },
              { length: 7, style: { justification: 'left' } },
              { length: 2, style: { justification: 'right' } },
            ],
            shapeType: 'box',
            boxBounds: [0, 0, 400, 300],
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'card.psd' });
    expect(JSON.stringify(opened.warnings ?? [])).not.toMatch(/贺卡/);
    const card = () => text(s, '贺卡').text;
    expect(card().paragraphs).toEqual([{ justification: 'center' }, {}, { justification: 'right' }]);
    expect(card().justification).toBe('center');
    // Each line where its own alignment puts it in the 400 px box.
    const placed = () => {
      const lines = layoutText(card()).lines;
      const advance = (k: number) => 30 * [...lines[k]!.text].length;
      return lines.map((l, k) => Math.round(l.x + (k === 0 ? advance(0) / 2 : k === 2 ? advance(2) : 0)));
    };
    expect(placed()).toEqual([300, 100, 500]);

    // New words: each paragraph keeps its own, one added takes the last one's.
    const edited = await ok(s, 'set_text_content', { name: '贺卡', text: '新年快乐\n恭喜发财\n店长\n小王' });
    expect(edited.text).toMatchObject({
      paragraphs: [{ justification: 'center' }, {}, { justification: 'right' }, { justification: 'right' }],
    });
    await ok(s, 'save_document_as', { path: 'out.psd' });
    const runs = (await agTextOf(s, 'out.psd', '贺卡')).paragraphStyleRuns ?? [];
    // A run per paragraph with its return (ag-psd reads the last without the text's closing one).
    expect(runs.map((r) => r.length)).toEqual([5, 5, 3, 2]);
    expect(runs.map((r) => r.style.justification ?? 'left')).toEqual(['center', 'left', 'right', 'right']);
    if (psdToolsAvailable()) {
      const seen = (await psdToolsTypes(path.join(s.workspace.root, 'out.psd'))).贺卡!;
      expect(seen.justification).toEqual([2, 0, 1, 1]);
    }
    // Read back, the same.
    const again = newSession();
    await again.workspace.writeAtomic('out.psd', await readFile(path.join(s.workspace.root, 'out.psd')));
    await ok(again, 'open_document', { path: 'out.psd' });
    expect(text(again, '贺卡').text.paragraphs).toEqual(card().paragraphs);

    // One alignment for the whole layer, as Photoshop's buttons with the layer chosen: every paragraph; undone, back.
    const aligned = await ok(s, 'set_text_alignment', { name: '贺卡', alignment: 'left' });
    expect(aligned.old_alignment).toBe('center');
    expect(card().paragraphs).toBeUndefined();
    expect(card().justification).toBeUndefined();
    await ok(s, 'undo');
    expect(card().paragraphs).toHaveLength(4);
    // The first paragraph's alignment given for all: the others follow, it is not "unchanged".
    const centred = await ok(s, 'set_text_alignment', { name: '贺卡', alignment: 'center' });
    expect(centred.changed).not.toBe(false);
    expect(card()).toMatchObject({ justification: 'center' });
    expect(card().paragraphs).toBeUndefined();
  });
});

describe("the file's font name", () => {
  it.runIf(psdToolsAvailable())(
    'edited text keeps the PostScript name the file gave it, even when the bundled font draws it',
    async () => {
      const s = newSession();
      const withFont = (name: string): AgText => ({
        ...pointText('标题', 'left', 50, 100),
        style: { font: { name }, fontSize: 40, fillColor: black },
      });
      await putTextPsd(
        s,
        'fonts.psd',
        [W, H],
        [
          { name: '思源', text: withFont('SourceHanSansSC-Bold') },
          { name: '雅黑', text: withFont('MicrosoftYaHei') },
        ],
      );
      await ok(s, 'open_document', { path: 'fonts.psd' });
      await ok(s, 'set_text_content', { name: '思源', text: '新标题' });
      await ok(s, 'set_text_size', { name: '雅黑', size: 30 });
      // The bundled Bold draws the Source Han Sans Bold text (the same design).
      expect(text(s, '思源').text.renderedFont).toBe('Noto Sans SC Bold');
      // A font named by its family is written in PostScript form.
      await ok(s, 'create_text_layer', {
        text: '正文',
        x: 10,
        y: 10,
        font_size: 20,
        font_name: 'Microsoft YaHei',
      });
      await ok(s, 'create_text_layer', {
        text: '说明',
        x: 10,
        y: 40,
        font_size: 20,
        font_name: '微软雅黑 Bold',
      });
      await ok(s, 'save_document');
      const seen = await psdToolsTypes(path.join(s.workspace.root, 'fonts.psd'));
      expect(seen.思源!.fonts).toContain('SourceHanSansSC-Bold');
      expect(seen.雅黑!.fonts).toContain('MicrosoftYaHei');
      expect(seen.正文!.fonts).toContain('MicrosoftYaHei');
      expect(seen.说明!.fonts).toContain('MicrosoftYaHei-Bold');
      for (const name of ['思源', '雅黑', '正文', '说明']) {
        expect(
          seen[name]!.fonts.some((f) => /NotoSansHans|\s/.test(f)),
          name,
        ).toBe(false);
      }
    },
  );
});

describe('convert_to_cmyk', () => {
  it.runIf(psdToolsAvailable())(
    'is not an edit of the text: paragraph text keeps its box, bounds, alignment and style runs, in CMYK',
    async () => {
      const s = newSession();
      const bold = { ...WINDOWS.style!, fauxBold: true };
      await putTextPsd(
        s,
        'cmyk.psd',
        [W, H],
        [
          {
            name: 'Windows',
            text: {
              ...WINDOWS,
              styleRuns: [
                { length: 3, style: WINDOWS.style! },
                { length: 4, style: bold },
              ],
            },
          },
          { name: '标题', text: { ...WINDOWS, text: '春季新品', transform: [1, 0, 0, 1, 44, 300] } },
        ],
      );
      await ok(s, 'open_document', { path: 'cmyk.psd' });
      await ok(s, 'convert_to_cmyk');
      // An edit after the conversion keeps the box and alignment too.
      await ok(s, 'set_text_content', { name: '标题', text: '夏季新品' });
      const saved = await ok(s, 'save_document');
      expect(JSON.stringify(saved.warnings ?? [])).not.toMatch(/Windows/);
      const windows = await agTextOf(s, 'cmyk.psd', 'Windows');
      expect(windows).toMatchObject({
        shapeType: 'box',
        boxBounds: BOX,
        paragraphStyle: { justification: 'center' },
      });
      expectNear(windows.transform!, [1, 0, 0, 1, ...ORIGIN], 1e-4);
      expect(windows.styleRuns?.map((r) => [r.length, !!r.style.fauxBold])).toEqual([
        [3, false],
        [4, true],
      ]);
      // Its colour restated in inks (black text: K-heavy).
      const fill = windows.style?.fillColor as { c: number; m: number; y: number; k: number };
      expect(fill).toMatchObject({ c: expect.any(Number), k: expect.any(Number) });
      expect(fill.k).toBeGreaterThan(150);
      const title = await agTextOf(s, 'cmyk.psd', '标题');
      expect(title.text).toBe('夏季新品');
      expect(title).toMatchObject({
        shapeType: 'box',
        boxBounds: BOX,
        paragraphStyle: { justification: 'center' },
      });
      expectNear(title.transform!, [1, 0, 0, 1, 44, 300], 1e-4);
      const seen = await psdToolsTypes(path.join(s.workspace.root, 'cmyk.psd'));
      expect(seen.Windows).toMatchObject({ shape: 1, box: BOX, justification: [2] });
      expect(seen.标题).toMatchObject({ shape: 1, box: BOX, justification: [2] });
    },
  );
});

describe('hyphenation (Photoshop’s Hyphenate, 连字)', () => {
  it('says an edit drops Roman hanging punctuation, which it does not set', async () => {
    const s = newSession();
    const text = (hanging: boolean): AgText => ({
      text: 'Quis ipsum, suspendisse.',
      transform: [1, 0, 0, 1, 10, 10],
      style: { font: { name: 'ArialMT' }, fontSize: 20, fillColor: black },
      paragraphStyle: { hanging, autoHyphenate: false },
      shapeType: 'box',
      boxBounds: [0, 0, 200, 80],
    });
    await putTextPsd(
      s,
      'hanging.psd',
      [240, 120],
      [
        { name: '溢出', text: text(true) },
        { name: '不溢出', text: text(false) },
      ],
    );
    const warned = JSON.stringify((await ok(s, 'open_document', { path: 'hanging.psd' })).warnings ?? []);
    expect(warned).toMatch(/文字图层“溢出”的罗马式溢出标点在文字未修改/);
    expect(warned).not.toMatch(/不溢出/);
  });

  it('says an edit drops a paragraph’s hyphenation, and saves edited and new paragraph text composed as drawn', async () => {
    // Photoshop broke this paragraph inside words (adipi-scing, sus-pendisse); Atelier breaks lines at spaces and
    // between CJK characters only. Saved with Hyphenate on, an edit in Photoshop would break the lines elsewhere
    // than the canvas showed: so it is saved off, and the open and the save say so.
    const s = newSession();
    const fixture = (name: string) =>
      readFile(new URL(`../fixtures/photoshop-text/${name}`, import.meta.url));
    await s.workspace.writeAtomic('hyphenated.psd', await fixture('paragraph-auto-hyphenate.psd'));
    await s.workspace.writeAtomic('indented.psd', await fixture('paragraph-first-line-indent.psd'));
    const words = (r: Record<string, unknown>) => JSON.stringify(r.warnings ?? []);

    // Photoshop's own paragraph with Hyphenate off: nothing to say.
    expect(words(await ok(s, 'open_document', { path: 'indented.psd' }))).not.toMatch(/连字/);
    const opened = await ok(s, 'open_document', { path: 'hyphenated.psd' });
    expect(words(opened)).toMatch(/的自动连字（行尾断词）在文字未修改（可移动）时原样保存/);
    const layer = [...current(s).layers.values()].find((l): l is TextLayer => l.kind === 'text')!;
    expect(layer.psdText).toBeDefined();

    // Unedited, the record goes back as Photoshop wrote it, Hyphenate on.
    await ok(s, 'save_document_as', { path: 'kept.psd' });
    expect((await agTextOf(s, 'kept.psd', layer.name)).paragraphStyle?.autoHyphenate).toBe(true);

    await ok(s, 'set_text_content', { name: layer.name, text: `${layer.text.content} Vestibulum.` });
    const saved = await ok(s, 'save_document_as', { path: 'edited.psd' });
    expect(words(saved)).toMatch(/已修改，其自动连字（行尾断词）不再保留/);

    await ok(s, 'create_paragraph_text', {
      text: 'Extraordinarily comfortable organic cotton sweatshirts',
      x: 20,
      y: 20,
      width: 300,
      height: 200,
      font_size: 32,
    });
    await ok(s, 'save_document_as', { path: 'edited.psd' });
    // Composed in Photoshop as drawn: no hyphens, and a justified line's spaces never narrowed below 100 % to take
    // one more word (ag-psd's default would allow 80 %).
    const composing = async (file: string) =>
      psdToolsTypeLayers<{ hyphenate: boolean; words: number[] }[]>(path.join(s.workspace.root, file), [
        "v = [{'hyphenate': bool(p.get('AutoHyphenate', True)), 'words': [float(x) for x in p.get('WordSpacing', [])]}",
        "     for p in [r['ParagraphSheet']['Properties'] for r in e['ParagraphRun']['RunArray']]]",
      ]);
    if (psdToolsAvailable()) {
      const seen = Object.values(await composing('edited.psd'));
      expect(seen).toHaveLength(2);
      for (const runs of seen) {
        for (const run of runs) expect(run).toEqual({ hyphenate: false, words: [1, 1, 2] });
      }
      // The unedited file as Photoshop wrote it still reads on: the check reads what it should.
      expect(Object.values(await composing('kept.psd'))[0]![0]!.hyphenate).toBe(true);
    }
  });
});
