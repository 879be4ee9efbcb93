/**
 * Vertical text through the tools and PSDs: set_text_orientation turns a layer about its anchor (point text) or in
 * its box (paragraph text), as Photoshop's Toggle Text Orientation; a PSD's vertical text layer opens as editable
 * text (it used to become pixels), keeps Photoshop's own rendering and record until edited, and is saved vertical
 * again after an edit (ag-psd and psd-tools read the orientation back).
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

const black = { r: 0, g: 0, b: 0 };
const STYLE = { font: { name: 'NotoSansHans-Regular' }, fontSize: 40, fillColor: black };

describe('set_text_orientation', () => {
  it('turns point text about its anchor, and back', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 500 });
    await ok(s, 'create_text_layer', { text: '春季新品', x: 300, y: 40, font_size: 40 });
    const before = text(s, '春季新品');
    const out = await ok(s, 'set_text_orientation', { name: '春季新品', orientation: 'vertical' });
    expect(out.old_orientation).toBe('horizontal');
    expect((out.text as { orientation?: string }).orientation).toBe('vertical');
    const turned = text(s, '春季新品');
    expect(textAnchor(turned.text)).toEqual(textAnchor(before.text));
    // Now a column down from the anchor (300, 75.2), centred on x = 300.
    const [l, t, r, b] = inkBox(turned.raster);
    expect(b - t).toBeGreaterThan(r - l);
    expect(Math.abs((l + r) / 2 - 300)).toBeLessThanOrEqual(2);
    expect(t).toBeGreaterThanOrEqual(75);
    const same = await ok(s, 'set_text_orientation', { name: '春季新品', orientation: 'vertical' });
    expect(same.changed).toBe(false);
    await ok(s, 'set_text_orientation', { name: '春季新品', orientation: 'horizontal' });
    expect(text(s, '春季新品').text).toEqual(before.text);
    expect(inkBox(text(s, '春季新品').raster)).toEqual(inkBox(before.raster));
    await refused(
      s,
      'set_text_orientation',
      { name: '春季新品', orientation: 'diagonal' },
      'invalid_arguments',
    );
    await refused(s, 'set_text_orientation', { name: '背景', orientation: 'vertical' }, 'invalid_state');
  });

  it('keeps paragraph text’s box and sets its columns in it', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 500 });
    await ok(s, 'create_paragraph_text', {
      text: '面料柔软透气适合春夏',
      x: 100,
      y: 50,
      width: 100,
      height: 120,
      font_size: 40,
    });
    const name = current(s).layers.get(current(s).active!)!.name;
    const out = await ok(s, 'set_text_orientation', { name, orientation: 'vertical' });
    expect(out.text).toMatchObject({ x: 100, y: 50, box: { width: 100, height: 120 } });
    // Two columns of three fit (the rest hidden, as Photoshop's overflow), within the box.
    expect(out.hidden_lines).toBe(2);
    const [l, t, r, b] = inkBox(text(s, name).raster);
    expect(l).toBeGreaterThanOrEqual(100);
    // The first column's glyphs reach the box's right edge as a first line's reach its top (text-vertical.ts).
    expect(r).toBeLessThanOrEqual(202);
    expect(t).toBeGreaterThanOrEqual(50);
    expect(b).toBeLessThanOrEqual(170);
  });
});

describe('vertical text in PSDs', () => {
  it('opens as editable text, keeps its record until edited, and is saved vertical after an edit', async () => {
    const s = newSession();
    await putTextPsd(
      s,
      'vertical.psd',
      [600, 500],
      [
        {
          name: '竖排',
          text: {
            text: '春眠不觉晓',
            transform: [1, 0, 0, 1, 500, 60],
            style: STYLE,
            orientation: 'vertical',
          },
        },
      ],
    );
    const opened = await ok(s, 'open_document', { path: 'vertical.psd' });
    expect(((opened.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/竖排/);
    const layer = text(s, '竖排');
    expect(layer.text).toMatchObject({ orientation: 'vertical', x: 500, y: 60, content: '春眠不觉晓' });
    const [l, t, r, b] = inkBox(layer.raster);
    expect(b - t).toBeGreaterThan(150);
    expect(Math.abs((l + r) / 2 - 500)).toBeLessThanOrEqual(2);

    // Moved only: the file's own record goes back, moved.
    await ok(s, 'move_layer', { name: '竖排', dx: -100, dy: 0 });
    await ok(s, 'save_document_as', { path: 'moved.psd' });
    const moved = await agTextOf(s, 'moved.psd', '竖排');
    expect(moved.orientation).toBe('vertical');
    expect(moved.transform?.slice(4)).toEqual([400, 60]);

    // Edited: written anew, still vertical, anchored where it was.
    await ok(s, 'set_text_content', { name: '竖排', text: '处处闻啼鸟' });
    const saved = await ok(s, 'save_document_as', { path: 'edited.psd' });
    expect(((saved.warnings as string[] | undefined) ?? []).join('\n')).not.toMatch(/竖排/);
    const record = await agTextOf(s, 'edited.psd', '竖排');
    expect(record).toMatchObject({ text: '处处闻啼鸟', orientation: 'vertical' });
    expect(record.transform).toEqual([1, 0, 0, 1, 400, 60]);
    if (psdToolsAvailable()) {
      const seen = await psdToolsTypeLayers<number>(path.join(s.workspace.root, 'edited.psd'), [
        "v = int(e['Rendered']['Shapes']['WritingDirection'])",
      ]);
      // Adobe's engine data: 2 is vertical (0 horizontal).
      expect(seen.竖排).toBe(2);
    }
  });

  it('stands Latin upright in a column when asked, saves it as Photoshop does, and reads it back from vertical text only', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 600, height: 500 });
    await ok(s, 'create_text_layer', { text: '夏季SALE', x: 300, y: 40, font_size: 40 });
    await ok(s, 'set_text_orientation', { name: '夏季SALE', orientation: 'vertical' });
    const turned = inkBox(text(s, '夏季SALE').raster);
    const out = await ok(s, 'style_text_range', { name: '夏季SALE', text: 'SALE', upright_roman: true });
    expect((out.text as { styles: unknown[] }).styles).toContainEqual(
      expect.objectContaining({ text: 'SALE', upright_roman: true }),
    );
    // Four letters an em each down the column instead of their turned widths: the column grows longer.
    const upright = inkBox(text(s, '夏季SALE').raster);
    expect(upright[3] - upright[1]).toBeGreaterThan(turned[3] - turned[1] + 40);
    await ok(s, 'save_document_as', { path: 'upright.psd' });
    const record = await agTextOf(s, 'upright.psd', '夏季SALE');
    expect(record.styleRuns?.map((r) => [r.length, r.style.baselineDirection])).toEqual([
      [2, 2],
      [4, 1],
    ]);
    if (psdToolsAvailable()) {
      const seen = await psdToolsTypeLayers<number[]>(path.join(s.workspace.root, 'upright.psd'), [
        "v = [int(r['StyleSheet']['StyleSheetData']['BaselineDirection']) for r in e['StyleRun']['RunArray']]",
      ]);
      expect(seen.夏季SALE).toEqual([2, 1]);
    }
    // Read back: upright again; turned back with false.
    const again = newSession();
    await again.workspace.writeAtomic(
      'upright.psd',
      await readFile(path.join(s.workspace.root, 'upright.psd')),
    );
    await ok(again, 'open_document', { path: 'upright.psd' });
    await ok(again, 'set_text_content', { name: '夏季SALE', text: '夏季SALE!' });
    expect(text(again, '夏季SALE!').text.runs?.map((r) => [r.length, r.upright])).toEqual([
      [2, undefined],
      [5, true],
    ]);
    await ok(again, 'style_text_range', { name: '夏季SALE!', text: 'SALE!', upright_roman: false });
    expect(text(again, '夏季SALE!').text.runs).toBeUndefined();

    // Horizontal text Photoshop wrote with BaselineDirection 1 (as it does) is not read as upright.
    await putTextPsd(
      s,
      'flat.psd',
      [600, 200],
      [
        {
          name: '横排',
          text: { text: 'SALE', transform: [1, 0, 0, 1, 20, 60], style: { ...STYLE, baselineDirection: 1 } },
        },
      ],
    );
    await ok(s, 'open_document', { path: 'flat.psd' });
    expect(text(s, '横排').text.upright).toBeUndefined();
  });
});
