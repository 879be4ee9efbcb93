/**
 * A garment photo saved from a web shop is usually WebP or AVIF: set_garment_photo takes both, and each is read as
 * the same photo in JPEG is (lossless here, so the pixels are the JPEG's own); place_image and open_document take
 * them too. A file that only says it is WebP is refused, changing nothing; so is an iPhone's HEIC, named as such,
 * with what to do instead.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import sharp from '../../src/engine/sharp.js';
import { newSession, ok } from '../support/session.js';

const EXAMPLES = 'examples/garment';

async function previewWith(photo: string, bytes: Buffer) {
  const session = newSession();
  await session.workspace.writeAtomic('pieces.psd', readFileSync(`${EXAMPLES}/pieces.psd`));
  await session.workspace.writeAtomic(photo, bytes);
  await ok(session, 'open_document', { path: 'pieces.psd' });
  const set = await ok(session, 'set_garment_photo', { path: photo });
  await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  return { session, set, extraction: preview.extraction as Record<string, unknown> };
}

describe('WebP and AVIF images', () => {
  it('are taken as the garment photo and read as the same photo in JPEG is', async () => {
    const jpeg = readFileSync(`${EXAMPLES}/photo-allover.jpg`);
    const webp = await sharp(jpeg).webp({ lossless: true }).toBuffer();
    const fromJpeg = await previewWith('photo.jpg', jpeg);
    const fromWebp = await previewWith('photo.webp', webp);
    expect(fromWebp.set).toMatchObject({
      garment_photo: 'photo.webp',
      format: 'webp',
      width: 800,
      height: 800,
    });
    const { photo: _a, ...jpegReading } = fromJpeg.extraction;
    const { photo: _b, ...webpReading } = fromWebp.extraction;
    expect(webpReading).toEqual(jpegReading);
    expect((webpReading.repeat as { found: boolean }).found).toBe(true);

    const avif = await sharp(jpeg).avif({ lossless: true }).toBuffer();
    const fromAvif = await previewWith('photo.avif', avif);
    expect(fromAvif.set).toMatchObject({ garment_photo: 'photo.avif', format: 'avif', width: 800 });
    const { photo: _c, ...avifReading } = fromAvif.extraction;
    expect(avifReading).toEqual(jpegReading);
  });

  it('AVIF opens as a document and is placed as a layer', async () => {
    const session = newSession();
    const avif = await sharp({ create: { width: 120, height: 90, channels: 4, background: '#2060c080' } })
      .avif({ lossless: true })
      .toBuffer();
    await session.workspace.writeAtomic('in/商品图.avif', avif);
    const opened = await ok(session, 'open_document', { path: 'in/商品图.avif' });
    expect(opened.document).toMatchObject({ name: '商品图', width: 120, height: 90 });
    await ok(session, 'create_document', { width: 400, height: 300, name: '海报' });
    const placed = await ok(session, 'place_image', { path: 'in/商品图.avif' });
    expect(placed.layer).toMatchObject({ name: '商品图' });
    const saved = await ok(session, 'save_document', {});
    expect(saved.path).toMatch(/\.psd$/);
  });

  it("refuses an iPhone's HEIC by name, saying how to export it, and changes nothing", async () => {
    const session = newSession();
    await ok(session, 'create_document', { width: 200, height: 100, name: '稿' });
    // An iPhone's HEIC starts with these brands; the rest does not matter to the refusal.
    const heic = Buffer.concat([
      Buffer.from([0, 0, 0, 24]),
      Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'),
      Buffer.alloc(64),
    ]);
    await session.workspace.writeAtomic('IMG_0042.HEIC', heic);
    await session.workspace.writeAtomic('img.heic', heic);
    const before = JSON.stringify(await ok(session, 'list_documents'));
    for (const [name, args] of [
      ['set_garment_photo', { path: 'IMG_0042.HEIC' }],
      ['open_document', { path: 'IMG_0042.HEIC' }],
      ['place_image', { path: 'img.heic' }],
    ] as const) {
      const r = (await session.call({ name, arguments: args })) as unknown as {
        ok: boolean;
        error: { code: string; hint: string };
      };
      expect(r.ok, name).toBe(false);
      expect(r.error.code, name).toBe('unsupported');
      expect(r.error.hint, name).toContain('兼容性最佳');
    }
    expect(JSON.stringify(await ok(session, 'list_documents'))).toBe(before);
    expect(session.garmentPhoto).toBeNull();
  });

  it('open as documents and are placed as layers; a file that only says it is WebP is refused', async () => {
    const session = newSession();
    const webp = await sharp({ create: { width: 120, height: 90, channels: 4, background: '#c0402080' } })
      .webp({ lossless: true })
      .toBuffer();
    await session.workspace.writeAtomic('in/参考图.webp', webp);
    const opened = await ok(session, 'open_document', { path: 'in/参考图.webp' });
    expect(opened.document).toMatchObject({ name: '参考图', width: 120, height: 90 });
    await ok(session, 'create_document', { width: 400, height: 300, name: '海报' });
    const placed = await ok(session, 'place_image', { path: 'in/参考图.webp' });
    expect(placed.layer).toMatchObject({ name: '参考图' });
    const composite = await ok(session, 'get_canvas_image', { max_size: 400 });
    expect(composite.ok).toBe(true);

    await session.workspace.writeAtomic('fake.webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 not really an image'));
    const before = JSON.stringify(await ok(session, 'list_documents'));
    for (const [name, args] of [
      ['open_document', { path: 'fake.webp' }],
      ['place_image', { path: 'fake.webp' }],
      ['set_garment_photo', { path: 'fake.webp' }],
    ] as const) {
      const r = await session.call({ name, arguments: args });
      expect(r.ok, name).toBe(false);
    }
    expect(JSON.stringify(await ok(session, 'list_documents'))).toBe(before);
  });
});
