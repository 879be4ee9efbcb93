/**
 * A CMYK document is shown as it prints: the canvas (the studio's render, get_canvas_image) is the saved merged
 * image read back through the document's profile. The reference is ImageMagick (LittleCMS) converting the saved
 * PSD's merged inks to sRGB between the same two profiles; what the layers' kept inks already print is shown
 * unchanged.
 */
import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE_PATH } from '../../src/engine/press-profile.js';
import { shownCanvas } from '../../src/engine/soft-proof.js';
import { convertTo, imageMagickAvailable } from '../support/imagemagick.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { libvipsSrgbProfile, withTempFiles } from './press-profile-support.js';

const ready = imageMagickAvailable() && existsSync(DEFAULT_PROFILE_PATH);

async function pixelsOfPng(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * 4;
  return [...data.subarray(i, i + 4)];
}

const far = (a: readonly number[], b: readonly number[]) =>
  Math.max(...[0, 1, 2].map((c) => Math.abs(a[c]! - b[c]!)));

describe.skipIf(!ready)('soft proof of CMYK documents', () => {
  it('shows what the saved file prints: an RGB image placed after the conversion, through the profile', async () => {
    const s = newSession(tempDir('atelier-proof-'));
    await ok(s, 'create_document', { width: 40, height: 20 });
    await ok(s, 'create_layer', { name: 'band' });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 10, bottom: 20 });
    await ok(s, 'fill_selection', { color: '#2060c0' });
    await ok(s, 'deselect', {});
    await ok(s, 'convert_to_cmyk', {});
    // A vivid green no press prints, placed after the conversion: the composite holds it as it is.
    const green = await sharp({ create: { width: 10, height: 10, channels: 4, background: '#00ff00' } })
      .png()
      .toBuffer();
    await s.workspace.writeAtomic('green.png', green);
    await ok(s, 'place_image', { path: 'green.png', size: 'pixels' });

    const shown = await ok(s, 'get_canvas_image', {});
    const png = Buffer.from((shown.images as { base64: string }[])[0]!.base64, 'base64');
    const proofGreen = await pixelsOfPng(png, 20, 10);
    const proofBand = await pixelsOfPng(png, 5, 10);
    const proofWhite = await pixelsOfPng(png, 35, 2);

    await ok(s, 'save_document_as', { path: 'out.psd' });
    const psd = await s.workspace.read('out.psd');
    const printed = await withTempFiles({ 'in.psd': psd, 'srgb.icc': await libvipsSrgbProfile() }, (f) =>
      convertTo(
        [`${f['in.psd']}[0]`, '-intent', 'perceptual', '-profile', f['srgb.icc']!, '-depth', '8', 'rgb:OUT'],
        'rgb',
      ),
    );
    const at = (x: number, y: number) => [...printed.subarray((y * 40 + x) * 3, (y * 40 + x) * 3 + 3)];
    // Within 2 levels of LittleCMS through ImageMagick: the same transform, another caller.
    expect(far(proofGreen, at(20, 10))).toBeLessThanOrEqual(2);
    expect(far(proofBand, at(5, 10))).toBeLessThanOrEqual(2);
    expect(far(proofWhite, at(35, 2))).toBeLessThanOrEqual(2);
    // …and far from the unproofed green: the canvas no longer shows a colour the file does not hold.
    expect(far(proofGreen, [0, 255, 0])).toBeGreaterThan(30);

    // So is a PNG exported from it (Photoshop's RGB copy of a CMYK document).
    await ok(s, 'save_document_as', { path: 'out.png' });
    const exported = await s.workspace.read('out.png');
    expect(await pixelsOfPng(exported, 20, 10)).toEqual(proofGreen);
    expect(await pixelsOfPng(exported, 5, 10)).toEqual(proofBand);

    // The studio's render is the same picture.
    const rendered = await s.render(s.editor.snapshot.docs[0]!.name, 40);
    expect(await pixelsOfPng(rendered.png, 20, 10)).toEqual(proofGreen);
  }, 60_000);

  it('leaves what the kept inks already print exactly as it is, and an RGB document untouched', async () => {
    const s = newSession(tempDir('atelier-proof-kept-'));
    await ok(s, 'create_document', { width: 16, height: 16 });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 8, bottom: 16 });
    await ok(s, 'fill_selection', { color: '#c03020' });
    await ok(s, 'deselect', {});
    const rgb = await s.inspect((tx) => {
      const doc = tx.activeDocument();
      return { state: doc.state, composite: tx.composite(doc.id) };
    });
    const rgbShown = await shownCanvas(rgb.state, rgb.composite, 16, 16);
    expect(Buffer.from(rgbShown.data).equals(Buffer.from(rgb.composite.data))).toBe(true);

    await ok(s, 'convert_to_cmyk', {});
    const { state, composite } = await s.inspect((tx) => {
      const doc = tx.activeDocument();
      return { state: doc.state, composite: tx.composite(doc.id) };
    });
    const before = Buffer.from(composite.data);
    const shown = await shownCanvas(state, composite, 16, 16);
    expect(Buffer.from(shown.data).equals(before)).toBe(true);
    expect(Buffer.from(composite.data).equals(before)).toBe(true); // the shared composite is never written
    // Scaled down, a flat kept colour is still exactly itself.
    const half = await shownCanvas(state, composite, 8, 8);
    expect([...half.data.subarray(0, 4)]).toEqual([...composite.data.subarray(0, 4)]);
  }, 60_000);
});
