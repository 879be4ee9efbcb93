/**
 * Characters in several styles through the tools: style_text_range sets some characters' font, size or colour,
 * set_text_content keeps them, the whole-layer tools set every character, a save writes one style run per stretch
 * (psd-tools, an independent reader, reads their lengths, sizes, colours and fonts back) and a PSD's own style runs
 * survive an edit of its words (they used to collapse to one style). Refusals change nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { TextLayer } from '../../src/engine/model.js';
import { textAnchor } from '../../src/engine/text.js';
import { inkBox } from '../support/ink-box.js';
import { psdToolsAvailable } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { agTextOf, psdToolsTypeLayers, putTextPsd } from '../support/text-psd.js';
import { current, named } from './layer-fixtures.js';

function text(s: Session, name: string): TextLayer {
  const l = named(current(s), name);
  if (l.kind !== 'text') throw new Error(`${name} is ${l.kind}`);
  return l;
}

/** A 600 × 300 document with the black 40 px point text 限时5折 at 40, 40; the layer's name. */
async function priceTag(s: Session): Promise<string> {
  await ok(s, 'create_document', { width: 600, height: 300 });
  const made = await ok(s, 'create_text_layer', { text: '限时5折', x: 40, y: 40, font_size: 40 });
  return (made.layer as { name: string }).name;
}

/** Pixels of the layer's rendering that are clearly red (and opaque), by column range. */
function redColumns(layer: TextLayer): [number, number, number] {
  const r = layer.raster;
  let l = Infinity;
  let rr = -Infinity;
  let n = 0;
  for (let v = 0; v < r.h; v++) {
    for (let u = 0; u < r.w; u++) {
      const i = (v * r.w + u) * 4;
      if (r.data[i + 3]! < 200 || r.data[i]! < 180 || r.data[i + 1]! > 60) continue;
      l = Math.min(l, r.x + u);
      rr = Math.max(rr, r.x + u + 1);
      n++;
    }
  }
  return [l, rr, n];
}

/** What psd-tools reads of each type layer's style runs: lengths, sizes, fill colours (0–255) and font names. */
function psdToolsRuns(file: string) {
  return psdToolsTypeLayers<{ lengths: number[]; sizes: number[]; fills: number[][]; fonts: string[] }>(
    file,
    [
      "runs = e['StyleRun']['RunArray']",
      "fonts = [str(f['Name'].value if hasattr(f['Name'], 'value') else f['Name']).strip(\"'\")",
      "         for f in l.resource_dict['FontSet']]",
      "sheets = [r['StyleSheet']['StyleSheetData'] for r in runs]",
      'v = {',
      "    'lengths': [int(n) for n in e['StyleRun']['RunLengthArray']],",
      "    'sizes': [float(st['FontSize']) for st in sheets],",
      "    'fills': [[round(float(c) * 255) for c in st['FillColor']['Values']][1:] for st in sheets],",
      "    'fonts': [fonts[int(st['Font'])] for st in sheets],",
      '}',
    ],
  );
}

describe('style_text_range', () => {
  it('sets some characters in another size and colour, the others as they were, the anchor kept', async () => {
    const s = newSession();
    const name = await priceTag(s);
    const before = text(s, name);
    const [, beforeTop, beforeRight] = inkBox(before.raster);
    const out = await ok(s, 'style_text_range', { name, text: '5', font_size: 80, color: '#e60012' });
    expect(out.styled).toEqual({ match: '5', occurrences: 1, of: 1 });
    expect((out.text as { styles: unknown }).styles).toEqual([
      { text: '限时', font: 'Noto Sans SC', size: 40, color: '#000000' },
      { text: '5', font: 'Noto Sans SC', size: 80, color: '#e60012' },
      { text: '折', font: 'Noto Sans SC', size: 40, color: '#000000' },
    ]);
    const after = text(s, name);
    expect(textAnchor(after.text)).toEqual(textAnchor(before.text));
    // The digit is red, stands taller than the Chinese (an 80 px digit reaches higher) and pushes 折 right.
    const [redLeft, redRight, redCount] = redColumns(after);
    expect(redCount).toBeGreaterThan(300);
    expect(redLeft).toBeGreaterThan(40 + 2 * 36);
    const [, top, right] = inkBox(after.raster);
    expect(top).toBeLessThan(beforeTop - 10);
    expect(right).toBeGreaterThan(beforeRight + 15);
    expect(redRight).toBeLessThan(right - 30);
    // An undo step of its own.
    await ok(s, 'undo');
    expect(text(s, name).text.runs).toBeUndefined();
  });

  it('styles every occurrence, or the one asked for; refusals change nothing', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 300 });
    await ok(s, 'create_text_layer', { text: '新品 新品 新品', x: 20, y: 20, font_size: 30 });
    const all = await ok(s, 'style_text_range', { name: '新品 新品 新品', text: '新品', color: '#ff0000' });
    expect(all.styled).toEqual({ match: '新品', occurrences: 3, of: 3 });
    // All three red: the spaces between them black, so the runs alternate.
    expect(text(s, '新品 新品 新品').text.runs?.map((r) => r.length)).toEqual([2, 1, 2, 1, 2]);
    await ok(s, 'style_text_range', { name: '新品 新品 新品', text: '新品', occurrence: 2, font_size: 50 });
    expect(text(s, '新品 新品 新品').text.runs?.map((r) => [r.length, r.size])).toEqual([
      [2, 30],
      [1, 30],
      [2, 50],
      [1, 30],
      [2, 30],
    ]);
    const e1 = await refused(
      s,
      'style_text_range',
      { name: '新品 新品 新品', text: '旧品', color: '#000000' },
      'not_found',
    );
    expect(e1.message).toMatch(/没有“旧品”/);
    const e2 = await refused(
      s,
      'style_text_range',
      { name: '新品 新品 新品', text: '新品', occurrence: 4, color: '#000000' },
      'out_of_bounds',
    );
    expect(e2.message).toMatch(/只出现 3 处/);
    await refused(s, 'style_text_range', { name: '新品 新品 新品', text: '新品' }, 'invalid_arguments');
    await refused(
      s,
      'style_text_range',
      { name: '新品 新品 新品', text: '新品', font_size: 0 },
      'invalid_arguments',
    );
    // Already so: no step, nothing changed.
    const same = await ok(s, 'style_text_range', { name: '新品 新品 新品', text: '新品', color: '#ff0000' });
    expect(same.changed).toBe(false);
  });
});

describe('runs through the other text tools', () => {
  it('new words keep their neighbours’ styles; the whole-layer tools set every character', async () => {
    const s = newSession();
    const name = await priceTag(s);
    await ok(s, 'style_text_range', { name, text: '5', font_size: 80, color: '#e60012' });
    const edited = await ok(s, 'set_text_content', { name, text: '今日限时3折起' });
    const styles = (edited.text as { styles: { text: string; size: number }[] }).styles;
    expect(styles.map((r) => [r.text, r.size])).toEqual([
      ['今日限时', 40],
      ['3', 80],
      ['折起', 40],
    ]);
    // Renamed after its new words, as Photoshop does; resize_layer scales every character in proportion.
    const layerName = '今日限时3折起';
    await ok(s, 'resize_layer', { name: layerName, scale_x: 50, scale_y: 50 });
    expect(text(s, layerName).text.runs?.map((r) => r.size)).toEqual([20, 40, 20]);
    // set_text_size sets every character, as Photoshop's size with the whole layer chosen.
    const sized = await ok(s, 'set_text_size', { name: layerName, size: 36 });
    expect(sized.old_sizes).toEqual([20, 40]);
    expect(text(s, layerName).text.runs?.map((r) => r.size)).toEqual([36, 36, 36]);
    const coloured = await ok(s, 'set_text_color', { name: layerName, color: '#003366' });
    expect(coloured.old_colors).toEqual(['#000000', '#e60012']);
    expect(text(s, layerName).text.runs).toBeUndefined();
    expect(text(s, layerName).text.color).toEqual({ r: 0, g: 0x33, b: 0x66 });
  });
});

describe('runs in PSDs', () => {
  it('saves one style run per stretch, which psd-tools and a reopen read back', async () => {
    const s = newSession();
    const name = await priceTag(s);
    await ok(s, 'style_text_range', { name, text: '5', font_size: 80, color: '#e60012' });
    await ok(s, 'style_text_range', { name, text: '折', font_name: 'Noto Sans SC Bold' });
    const saved = await ok(s, 'save_document_as', { path: 'price.psd' });
    expect(((saved.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/文字/);
    const record = await agTextOf(s, 'price.psd', name);
    expect(record.styleRuns?.map((r) => [r.length, r.style.fontSize])).toEqual([
      [2, 40],
      [1, 80],
      [1, 40],
    ]);
    if (psdToolsAvailable()) {
      const seen = (await psdToolsRuns(path.join(s.workspace.root, 'price.psd')))[name]!;
      // Photoshop's engine data counts the text's closing return in the last run.
      expect(seen.lengths).toEqual([2, 1, 2]);
      expect(seen.sizes).toEqual([40, 80, 40]);
      expect(seen.fills).toEqual([
        [0, 0, 0],
        [230, 0, 18],
        [0, 0, 0],
      ]);
      expect(seen.fonts).toEqual(['NotoSansHans-Regular', 'NotoSansHans-Regular', 'NotoSansHans-Bold']);
    }
    const drawn = text(s, name).raster;
    const again = newSession();
    await again.workspace.writeAtomic('price.psd', await readFile(path.join(s.workspace.root, 'price.psd')));
    await ok(again, 'open_document', { path: 'price.psd' });
    const reopened = text(again, name);
    expect(reopened.text.runs?.map((r) => [r.length, r.size, r.color.r])).toEqual([
      [2, 40, 0],
      [1, 80, 230],
      [1, 40, 0],
    ]);
    // Drawn as it was saved.
    expect(inkBox(reopened.raster)).toEqual(inkBox(drawn));
  });

  it('keeps a PSD’s own style runs through an edit of its words', async () => {
    const s = newSession();
    const black = { r: 0, g: 0, b: 0 };
    const style = { font: { name: 'NotoSansHans-Regular' }, fontSize: 40, fillColor: black };
    await putTextPsd(
      s,
      'runs.psd',
      [600, 300],
      [
        {
          name: '价签',
          text: {
            text: '全场5折',
            transform: [1, 0, 0, 1, 40, 100],
            style,
            styleRuns: [
              { length: 2, style },
              { length: 1, style: { ...style, fontSize: 90, fillColor: { r: 255, g: 0, b: 0 } } },
              { length: 1, style },
            ],
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'runs.psd' });
    expect(((opened.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/价签/);
    await ok(s, 'set_text_content', { name: '价签', text: '全场3折' });
    const saved = await ok(s, 'save_document_as', { path: 'edited.psd' });
    expect(((saved.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/价签/);
    const record = await agTextOf(s, 'edited.psd', '价签');
    expect(record.text).toBe('全场3折');
    expect(record.styleRuns?.map((r) => [r.length, r.style.fontSize, r.style.fillColor])).toEqual([
      [2, 40, black],
      [1, 90, { r: 255, g: 0, b: 0 }],
      [1, 40, black],
    ]);
  });

  it('keeps faux bold, italic, underline and strikethrough through an edit (they used to be dropped)', async () => {
    const s = newSession();
    const black = { r: 0, g: 0, b: 0 };
    const style = { font: { name: 'NotoSansHans-Regular' }, fontSize: 40, fillColor: black };
    await putTextPsd(
      s,
      'faux.psd',
      [600, 300],
      [
        {
          name: '标题',
          text: {
            text: '新品上市',
            transform: [1, 0, 0, 1, 40, 100],
            style,
            styleRuns: [
              { length: 2, style: { ...style, fauxBold: true } },
              { length: 2, style: { ...style, underline: true, fauxItalic: true } },
            ],
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'faux.psd' });
    expect(((opened.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/标题/);
    const edited = await ok(s, 'set_text_content', { name: '标题', text: '新品今日上市' });
    expect((edited.text as { styles: unknown }).styles).toEqual([
      { text: '新品今日', font: 'NotoSansHans-Regular', size: 40, color: '#000000', faux_bold: true },
      {
        text: '上市',
        font: 'NotoSansHans-Regular',
        size: 40,
        color: '#000000',
        faux_italic: true,
        underline: true,
      },
    ]);
    // Turned off for some characters, on for others, from the tool.
    await ok(s, 'style_text_range', { name: '标题', text: '今日', faux_bold: false, strikethrough: true });
    const saved = await ok(s, 'save_document_as', { path: 'faux-out.psd' });
    expect(((saved.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/标题/);
    const record = await agTextOf(s, 'faux-out.psd', '标题');
    expect(
      record.styleRuns?.map((r) => [
        r.length,
        r.style.fauxBold,
        r.style.fauxItalic,
        r.style.underline,
        r.style.strikethrough,
      ]),
    ).toEqual([
      [2, true, false, false, false],
      [2, false, false, false, true],
      [2, false, true, true, false],
    ]);
    if (psdToolsAvailable()) {
      const seen = await psdToolsTypeLayers<boolean[][]>(path.join(s.workspace.root, 'faux-out.psd'), [
        "v = [[bool(r['StyleSheet']['StyleSheetData'].get(k, False)) for k in ('FauxBold', 'FauxItalic', 'Underline', 'Strikethrough')] for r in e['StyleRun']['RunArray']]",
      ]);
      expect(seen.标题).toEqual([
        [true, false, false, false],
        [false, false, false, true],
        [false, true, true, false],
      ]);
    }
  });

  it('converts every run’s colour to CMYK inks with the document', async () => {
    const s = newSession();
    const name = await priceTag(s);
    await ok(s, 'style_text_range', { name, text: '5', color: 'cmyk(0,100,100,0)' });
    await ok(s, 'set_text_content', { name, text: '限时6折' });
    await ok(s, 'convert_to_cmyk');
    await ok(s, 'save_document_as', { path: 'cmyk.psd' });
    const record = await agTextOf(s, 'cmyk.psd', '限时6折');
    const fills = record.styleRuns?.map(
      (r) => r.style.fillColor as { c: number; m: number; y: number; k: number },
    );
    expect(fills).toHaveLength(3);
    // The digit in the inks it was given (within rounding of the held colour), the rest in rich black.
    expect(fills![1]!.m).toBeGreaterThan(95);
    expect(fills![1]!.c).toBeLessThan(5);
    expect(fills![0]!.k).toBeGreaterThan(60);
  });
});
