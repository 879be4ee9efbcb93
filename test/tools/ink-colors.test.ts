/**
 * A colour given as press inks, `cmyk(C,M,Y,K)` in percent: what a print designer asks for when black must be
 * K only (no hex colour separates to it: #000000 gives a four-colour black). In a CMYK document the files hold
 * exactly those inks — the PSD's layer (psd-tools reads it) and the JPEG (ImageMagick reads it); in an RGB one
 * the inks are converted through the press profile, as Photoshop's picker does.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateArguments } from '../../src/calls/validate.js';
import { decodePsd } from '../../src/engine/io/psd.js';
import { DEFAULT_PROFILE_PATH } from '../../src/engine/press-profile.js';
import { inksOfColour } from '../../src/engine/raster-inks.js';
import { findTool } from '../../src/registry/index.js';
import { withTempFiles } from '../engine/press-profile-support.js';
import { convertTo, imageMagickAvailable } from '../support/imagemagick.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';

const ready = psdToolsAvailable() && imageMagickAvailable() && existsSync(DEFAULT_PROFILE_PATH);
const W = 20;
const H = 10;

describe('a cmyk(…) colour argument', () => {
  it('is accepted where a tool paints, normalised, and refused out of range or where it is not taken', () => {
    const fill = findTool('fill_selection')!;
    for (const [given, normal] of [
      ['cmyk(0,0,0,100)', 'cmyk(0,0,0,100)'],
      ['CMYK(0%, 0%, 0%, 100%)', 'cmyk(0,0,0,100)'],
      ['cmyk(10.5 20 30 40)', 'cmyk(10.5,20,30,40)'],
    ]) {
      const v = validateArguments(fill, { color: given });
      expect(v.ok && v.args.color, given).toBe(normal);
    }
    for (const bad of ['cmyk(101,0,0,0)', 'cmyk(0,0,0)', 'cmyk(-1,0,0,0)', 'cmyk(a,0,0,0)']) {
      const v = validateArguments(fill, { color: bad });
      expect(v.ok, bad).toBe(false);
      if (!v.ok) expect(v.problems[0]!.message).toMatch(/cmyk\(C,M,Y,K\)/);
    }
    // The published description says so, derived from the same limit.
    expect(fill.parameters.properties.color!.description).toContain('cmyk(0,0,0,100)');
    // A garment piece's colour is an RGB colour read from a photo: inks are not taken there.
    const garment = findTool('extract_and_apply_all_pieces')!;
    const v = validateArguments(garment, {
      pieces: [{ name: 'a', type: 'solid', color: 'cmyk(0,0,0,100)' }],
    });
    expect(v.ok).toBe(false);
  });
});

describe.skipIf(!ready)('inks asked for', () => {
  it('are the inks a CMYK document writes, in the PSD layer and the JPEG', async () => {
    const s = newSession();
    await ok(s, 'create_document', { name: '黑', width: W, height: H });
    await ok(s, 'convert_to_cmyk');
    await ok(s, 'create_layer', { name: '字' });
    const filled = await ok(s, 'fill_selection', { color: 'cmyk(0,0,0,100)' });
    expect(filled.inks).toEqual({ c: 0, m: 0, y: 0, k: 100 });
    expect(String(filled.note)).toMatch(/油墨 C0 M0 Y0 K100：保存的 PSD 和导出的 JPEG、TIFF 中按此油墨写入/);
    expect(filled.color).toMatch(/^#[0-9a-f]{6}$/);
    // get_pixel_color reports the inks the file will hold.
    const pixel = await ok(s, 'get_pixel_color', { x: 3, y: 3 });
    expect(JSON.stringify(pixel)).toMatch(/"k":100/);
    // #000000 is a four-colour black: the contrast the feature is for.
    const hexBlack = await ok(s, 'set_foreground_color', { color: '#000000' });
    expect(hexBlack.foreground).not.toBe(filled.color);

    await ok(s, 'create_text_layer', { text: '黑', x: 2, y: 2, font_size: 6, color: 'cmyk(0,0,0,100)' });
    await ok(s, 'save_document_as', { path: 'k.psd' });
    const file = await s.workspace.read('k.psd');
    const read = await readWithPsdTools(file, { pixels: true });
    const layer = read.pixels!.find((p) => p.layer === '字')!;
    expect(layer.mode).toBe('CMYK');
    expect([...layer.data.subarray(0, 4)]).toEqual([0, 0, 0, 255]);
    // The text's colour is written as K only too: read back from the file, its inks are K100.
    const reopened = (await decodePsd(file)).state;
    const text = [...reopened.layers.values()].find((l) => l.kind === 'text');
    expect(text?.kind === 'text' && inksOfColour(reopened.inkTable, text.text.color)).toEqual([0, 0, 0, 255]);

    await ok(s, 'save_document_as', { path: 'k.jpg' });
    const jpeg = await s.workspace.read('k.jpg');
    const inks = await withTempFiles({ 'in.jpg': jpeg }, (f) =>
      convertTo([f['in.jpg']!, '-depth', '8', 'cmyk:OUT'], 'cmyk'),
    );
    const [c, m, y, k] = [...inks.subarray(0, 4)];
    expect(Math.max(c!, m!, y!)).toBeLessThanOrEqual(3); // JPEG's loss only
    expect(k).toBeGreaterThanOrEqual(252);
  }, 60_000);

  it('set text colours and a stroke as inks too; in an RGB document they are converted and said', async () => {
    const s = newSession();
    await ok(s, 'create_document', { name: '图', width: W, height: H });
    await ok(s, 'create_layer', { name: '块' });
    const rgb = await ok(s, 'fill_selection', { color: 'cmyk(100,0,0,0)' });
    expect(String(rgb.note)).toMatch(/RGB 文档：油墨 C100 M0 Y0 K0 已按 CMYK 印刷配置文件/);
    // Process cyan prints as a blue-green well away from pure #00ffff.
    const { r, g, b } = hex(rgb.color as string);
    expect(r).toBeLessThan(60);
    expect(g).toBeGreaterThan(120);
    expect(b).toBeGreaterThan(200);

    const text = await ok(s, 'create_text_layer', {
      text: '黑字',
      x: 1,
      y: 1,
      font_size: 6,
      color: 'cmyk(0,0,0,100)',
    });
    expect(text.inks).toEqual({ c: 0, m: 0, y: 0, k: 100 });
    const recoloured = await ok(s, 'set_text_color', { name: '黑字', color: 'cmyk(0,100,0,0)' });
    expect(recoloured.inks).toEqual({ c: 0, m: 100, y: 0, k: 0 });
    const stroke = await ok(s, 'add_stroke', { name: '块', size: 2, color: 'cmyk(0,0,0,100)' });
    expect(stroke.inks).toEqual({ c: 0, m: 0, y: 0, k: 100 });
    const fg = await ok(s, 'set_foreground_color', { color: 'cmyk(0, 100, 100, 0)' });
    expect(fg).toMatchObject({ requested_color: 'cmyk(0,100,100,0)', inks: { c: 0, m: 100, y: 100, k: 0 } });
    // Nothing else changes when the value is refused.
    await refused(s, 'fill_selection', { color: 'cmyk(0,0,0,120)' }, 'invalid_arguments');
  }, 60_000);
});

function hex(h: string) {
  const n = Number.parseInt(h.slice(1), 16);
  return { r: n >> 16, g: (n >> 8) & 255, b: n & 255 };
}
