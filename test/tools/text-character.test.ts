/**
 * The character panel's other settings through the tools and PSD files: style_text_range sets leading, tracking,
 * baseline shift, the glyphs' scales, case and position for some characters; a save writes each run's settings as
 * Photoshop's text engine states them (psd-tools, an independent reader, reads them back); a PSD that holds them
 * opens with nothing said, keeps them through an edit of its words and saves them again (before, they were kept
 * only while the text was untouched, and dropped with a warning on an edit). Refusals change nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { TextLayer } from '../../src/engine/model.js';
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

/** What psd-tools reads of each run's character settings, in the text engine's own names. */
function psdToolsSettings(file: string) {
  return psdToolsTypeLayers<Record<string, number | boolean>[]>(file, [
    "keys = ('AutoLeading', 'Leading', 'Tracking', 'BaselineShift', 'HorizontalScale', 'VerticalScale', 'FontCaps', 'FontBaseline')",
    "v = [{k: r['StyleSheet']['StyleSheetData'][k] for k in keys if k in r['StyleSheet']['StyleSheetData']} for r in e['StyleRun']['RunArray']]",
    'v = [{k: (bool(x) if k == "AutoLeading" else round(float(x), 4)) for k, x in d.items()} for d in v]',
  ]);
}

describe('style_text_range: the character panel’s other settings', () => {
  it('sets them for the characters named, reports them, saves them as Photoshop states them', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 900, height: 400 });
    await ok(s, 'create_text_layer', { text: 'TM 会员价 m2', x: 40, y: 60, font_size: 60 });
    const name = 'TM 会员价 m2';
    const before = inkBox(text(s, name).raster);

    const sup = await ok(s, 'style_text_range', { name, text: '2', position: 'superscript' });
    expect((sup.text as { styles: unknown[] }).styles).toContainEqual(
      expect.objectContaining({ text: '2', position: 'superscript' }),
    );
    await ok(s, 'style_text_range', { name, text: 'TM', position: 'superscript', tracking: 50 });
    const squat = await ok(s, 'style_text_range', {
      name,
      text: '会员价',
      horizontal_scale: 120,
      vertical_scale: 80,
      baseline_shift: -6,
    });
    expect((squat.text as { styles: unknown[] }).styles).toContainEqual({
      text: '会员价',
      font: 'Noto Sans SC',
      size: 60,
      color: '#000000',
      horizontal_scale: 120,
      vertical_scale: 80,
      baseline_shift: -6,
    });
    await ok(s, 'style_text_range', { name, text: 'm', caps: 'small_caps' });
    // Redrawn (how each setting draws is measured in test/engine/text-character.test.ts): the smaller TM and m2
    // make the line narrower than the 120 % characters make it wider.
    const after = inkBox(text(s, name).raster);
    expect(after[2]).toBeLessThan(before[2]);

    await ok(s, 'save_document_as', { path: 'chars.psd' });
    const record = await agTextOf(s, 'chars.psd', name);
    expect(
      record.styleRuns?.map((r) => [
        r.length,
        r.style.tracking,
        r.style.baselineShift,
        r.style.horizontalScale,
        r.style.verticalScale,
        r.style.fontCaps,
        r.style.fontBaseline,
      ]),
    ).toEqual([
      [2, 50, 0, 1, 1, 0, 1],
      [1, 0, 0, 1, 1, 0, 0],
      [3, 0, -6, 1.2, 0.8, 0, 0],
      [1, 0, 0, 1, 1, 0, 0],
      [1, 0, 0, 1, 1, 1, 0],
      [1, 0, 0, 1, 1, 0, 1],
    ]);
    if (psdToolsAvailable()) {
      const seen = await psdToolsSettings(path.join(s.workspace.root, 'chars.psd'));
      expect(
        seen[name]!.map((r) => [r.Tracking, r.BaselineShift, r.HorizontalScale, r.FontCaps, r.FontBaseline]),
      ).toEqual([
        [50, 0, 1, 0, 1],
        [0, 0, 1, 0, 0],
        [0, -6, 1.2, 0, 0],
        [0, 0, 1, 0, 0],
        [0, 0, 1, 1, 0],
        [0, 0, 1, 0, 1],
      ]);
    }

    // Read back: the same characters, drawn the same.
    const again = newSession();
    await again.workspace.writeAtomic('chars.psd', await readFile(path.join(s.workspace.root, 'chars.psd')));
    const opened = await ok(again, 'open_document', { path: 'chars.psd' });
    expect(((opened.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/会员价/);
    // (The font by the PostScript name the file gives it.)
    const styles = (sess: Session) => text(sess, name).text.runs?.map(({ font: _font, ...rest }) => rest);
    expect(styles(again)).toEqual(styles(s));
    await ok(again, 'set_text_content', { name, text: 'TM 会员专享价 m2' });
    // (The layer is named after its words, as Photoshop names it.)
    const renamed = text(again, 'TM 会员专享价 m2').text;
    expect(renamed.runs?.find((r) => r.horizontalScale === 1.2)?.length).toBe(5);
  });

  it('kerns a pair: space before the character named, reported, saved as Photoshop saves manual kerning', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 300 });
    await ok(s, 'create_text_layer', { text: 'AVA', x: 40, y: 40, font_size: 100 });
    const name = 'AVA';
    const left = (r: TextLayer['raster']) => inkBox(r)[0];
    const right = (r: TextLayer['raster']) => inkBox(r)[2];
    // The V set apart first (another colour, as near black as can be), so that the font's own pair kerning, which
    // the canvas applies within a stretch of one style only, is out of both drawings.
    await ok(s, 'style_text_range', { name, text: 'V', color: '#010101' });
    const before = text(s, name).raster;
    const out = await ok(s, 'style_text_range', { name, text: 'V', kerning: -80 });
    expect((out.text as { styles: unknown[] }).styles).toContainEqual(
      expect.objectContaining({ text: 'V', kerning: -80 }),
    );
    const after = text(s, name).raster;
    // The V and the A after it 8 px (0.08 em of 100 px) to the left; the first A where it was.
    expect(left(after)).toBe(left(before));
    expect(right(after) - right(before)).toBeCloseTo(-8, 0);

    await ok(s, 'save_document_as', { path: 'kern.psd' });
    const record = await agTextOf(s, 'kern.psd', name);
    expect(record.styleRuns?.map((r) => [r.length, r.style.kerning, r.style.autoKerning])).toEqual([
      [1, 0, true],
      [1, -80, false],
      [1, 0, true],
    ]);
    if (psdToolsAvailable()) {
      const seen = await psdToolsTypeLayers<Record<string, number | boolean>[]>(
        path.join(s.workspace.root, 'kern.psd'),
        [
          "v = [{k: r['StyleSheet']['StyleSheetData'][k] for k in ('Kerning', 'AutoKerning')} for r in e['StyleRun']['RunArray']]",
          'v = [{k: (bool(x) if k == "AutoKerning" else int(x)) for k, x in d.items()} for d in v]',
        ],
      );
      expect(seen[name]).toEqual([
        { Kerning: 0, AutoKerning: true },
        { Kerning: -80, AutoKerning: false },
        { Kerning: 0, AutoKerning: true },
      ]);
    }
    // Cleared with 0.
    await ok(s, 'style_text_range', { name, text: 'V', kerning: 0 });
    expect(text(s, name).text.runs?.map((r) => r.kerning)).toEqual([undefined, undefined, undefined]);
    expect(Buffer.from(text(s, name).raster.data).equals(Buffer.from(before.data))).toBe(true);
  });

  it('tightens CJK punctuation with tsume (比例间距): the blank beside the comma taken out, in rows and columns', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 800, height: 600 });
    await ok(s, 'create_text_layer', { text: '春季，新品', x: 40, y: 40, font_size: 80 });
    const name = '春季，新品';
    const width = () => {
      const [l, , r] = inkBox(text(s, name).raster);
      return r - l;
    };
    const plain = width();
    const out = await ok(s, 'style_text_range', { name, text: '，', tsume: 100 });
    expect((out.text as { styles: unknown[] }).styles).toContainEqual(
      expect.objectContaining({ text: '，', tsume: 100 }),
    );
    // The full-width comma's ink is a fifth of its em: most of its 80 px cell goes, the glyph stays.
    const tight = width();
    expect(plain - tight).toBeGreaterThan(40);
    expect(plain - tight).toBeLessThan(80);
    await ok(s, 'save_document_as', { path: 'tsume.psd' });
    const record = await agTextOf(s, 'tsume.psd', name);
    expect(record.styleRuns?.map((r) => [r.length, r.style.tsume])).toEqual([
      [2, 0],
      [1, 1],
      [2, 0],
    ]);
    // In a column the comma's cell shrinks along it the same way.
    await ok(s, 'set_text_orientation', { name, orientation: 'vertical' });
    const [, t, , b] = inkBox(text(s, name).raster);
    await ok(s, 'style_text_range', { name, text: '，', tsume: 0 });
    const [, t0, , b0] = inkBox(text(s, name).raster);
    expect(b0 - t0 - (b - t)).toBeGreaterThan(40);
  });

  it('sets every character’s leading and tracking from set_text_spacing, as the panel with the layer chosen', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 300 });
    await ok(s, 'create_text_layer', { text: '春季新品\n限时上新', x: 20, y: 20, font_size: 40 });
    const name = '春季新品';
    await ok(s, 'style_text_range', { name, text: '春季', tracking: 300, leading: 100 });
    expect(text(s, name).text.runs).toHaveLength(2);
    await ok(s, 'set_text_spacing', { name, tracking: 100, leading: 60 });
    const spec = text(s, name).text;
    expect(spec.runs).toBeUndefined();
    expect(spec).toMatchObject({ tracking: 100, leading: 60 });
  });

  it('refuses settings out of range, an unknown case or position, and nothing to change; nothing changes', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 300 });
    await ok(s, 'create_text_layer', { text: 'Sale 五折', x: 20, y: 20, font_size: 40 });
    const name = 'Sale 五折';
    for (const bad of [
      { horizontal_scale: 0 },
      { vertical_scale: 1001 },
      { baseline_shift: 6000 },
      { tracking: 20000 },
      { kerning: 1001 },
      { tsume: 101 },
      { tsume: -1 },
      { kerning: 2.5 },
      { leading: -1 },
      { caps: 'bold' },
      { position: 'upper' },
    ]) {
      await refused(s, 'style_text_range', { name, text: 'Sale', ...bad }, 'invalid_arguments');
    }
    const none = await refused(s, 'style_text_range', { name, text: 'Sale' }, 'invalid_arguments');
    // It names what could be given: every parameter but those naming the characters.
    expect(none.message).toMatch(
      /font_size、color、font_name.*kerning、baseline_shift.*caps、position、upright_roman、tsume 之一/,
    );
    expect(none.message).not.toMatch(/occurrence/);
    const same = await ok(s, 'style_text_range', {
      name,
      text: 'Sale',
      caps: 'normal',
      horizontal_scale: 100,
    });
    expect(same.changed).toBe(false);
  });
});

describe('a PSD’s character settings', () => {
  it('opens with them, draws them, keeps them through an edit and saves them again', async () => {
    const s = newSession();
    const black = { r: 0, g: 0, b: 0 };
    const style = { font: { name: 'NotoSansHans-Regular' }, fontSize: 40, fillColor: black };
    await putTextPsd(
      s,
      'settings.psd',
      [800, 300],
      [
        {
          name: '标题',
          text: {
            text: '新品上市 sale',
            transform: [1, 0, 0, 1, 40, 100],
            style,
            styleRuns: [
              { length: 2, style: { ...style, horizontalScale: 0.7, tracking: 100 } },
              { length: 2, style: { ...style, baselineShift: 8, autoLeading: false, leading: 80 } },
              { length: 1, style },
              { length: 4, style: { ...style, fontCaps: 2, verticalScale: 1.3 } },
            ],
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'settings.psd' });
    // Nothing of it is lost: nothing said.
    expect(((opened.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/标题/);
    const spec = text(s, '标题').text;
    expect(
      spec.runs?.map((r) => [
        r.length,
        r.horizontalScale,
        r.tracking,
        r.baselineShift,
        r.leading,
        r.caps,
        r.verticalScale,
      ]),
    ).toEqual([
      [2, 0.7, 100, undefined, undefined, undefined, undefined],
      [2, undefined, undefined, 8, 80, undefined, undefined],
      [1, undefined, undefined, undefined, undefined, undefined, undefined],
      [4, undefined, undefined, undefined, undefined, 'all', 1.3],
    ]);
    // The words changed: the characters kept keep their settings; the new ones take their neighbours'.
    await ok(s, 'set_text_content', { name: '标题', text: '新品今日上市 sale' });
    const saved = await ok(s, 'save_document_as', { path: 'settings-out.psd' });
    expect(((saved.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/标题/);
    const record = await agTextOf(s, 'settings-out.psd', '标题');
    expect(
      record.styleRuns?.map((r) => [
        r.length,
        r.style.horizontalScale,
        r.style.tracking,
        r.style.baselineShift,
        r.style.autoLeading,
        r.style.leading,
        r.style.fontCaps,
        r.style.verticalScale,
      ]),
    ).toEqual([
      [4, 0.7, 100, 0, true, undefined, 0, 1],
      [2, 1, 0, 8, false, 80, 0, 1],
      [1, 1, 0, 0, true, undefined, 0, 1],
      [4, 1, 0, 0, true, undefined, 2, 1.3],
    ]);
    if (psdToolsAvailable()) {
      const seen = await psdToolsSettings(path.join(s.workspace.root, 'settings-out.psd'));
      expect(seen.标题!.map((r) => [r.HorizontalScale, r.BaselineShift, r.AutoLeading, r.FontCaps])).toEqual([
        [0.7, 0, true, 0],
        [1, 8, false, 0],
        [1, 0, true, 0],
        [1, 0, true, 2],
      ]);
    }
  });
});
