/**
 * export_image (导出图像), Photoshop's Save a Copy / Export As: the flattened picture as PNG, JPEG at a chosen quality,
 * TIFF or PDF for print, the document untouched. ImageMagick reads the images written (the format, size,
 * resolution, colour space, compression and pixels), Poppler the PDFs (the page and the picture it holds); a CMYK
 * document's TIFF and PDF hold the inks the document holds.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PDFDict, PDFName } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE_PATH, pressProfile } from '../../src/engine/press-profile.js';
import { withTempFiles } from '../engine/press-profile-support.js';
import { convertTo, identify, identifyInfo, imageMagickAvailable, pixelsOf } from '../support/imagemagick.js';
import { outputIntents, storedImage } from '../support/pdf-objects.js';
import { pdfMetadata, popplerAvailable, readPdf, renderPdf } from '../support/poppler.js';
import { call, hashEditor, newSession, ok } from '../support/session.js';

const W = 120;
const H = 80;

async function poster() {
  const s = newSession();
  await ok(s, 'create_document', { width: W, height: H, resolution: 300, name: '海报' });
  await ok(s, 'create_layer', { name: '色块' });
  await ok(s, 'select_rect', { left: 20, top: 10, right: 80, bottom: 50 });
  await ok(s, 'fill_selection', { color: '#c62828' });
  await ok(s, 'deselect');
  return s;
}

const fileIn = (s: ReturnType<typeof newSession>, rel: string) => readFile(path.join(s.workspace.root, rel));

describe.runIf(imageMagickAvailable())('export_image', () => {
  it('writes a print TIFF (LZW, the resolution, sRGB) with the PNG’s pixels, the document untouched', async () => {
    const s = await poster();
    const kept = hashEditor(s.editor.snapshot);
    const r = await ok(s, 'export_image', { path: 'out/poster.tif' });
    expect(r).toMatchObject({
      exported: true,
      path: 'out/poster.tif',
      format: 'tiff',
      document_path_changed: false,
    });
    expect(r.document).toMatchObject({ path: null, unsaved_changes: true });
    expect(hashEditor(s.editor.snapshot)).toBe(kept);
    const tiff = await fileIn(s, 'out/poster.tif');
    expect(r.bytes).toBe(tiff.byteLength);
    expect(await identify(tiff, 'tif', '%m|%C')).toBe('TIFF|LZW');
    const info = await identifyInfo(tiff, 'tif');
    expect([info.width, info.height, info.units, info.colorspace, info.alpha]).toEqual([
      W,
      H,
      'PixelsPerInch',
      'sRGB',
      'False',
    ]);
    expect(info.dpiX).toBeCloseTo(300, 5);
    // Lossless: the PNG's pixels exactly.
    await ok(s, 'export_image', { path: 'out/poster.png' });
    const [t, p] = [await pixelsOf(tiff, 'tif'), await pixelsOf(await fileIn(s, 'out/poster.png'), 'png')];
    expect(Buffer.compare(Buffer.from(t.data), Buffer.from(p.data))).toBe(0);
    expect([...t.data.subarray((30 * W + 40) * 4, (30 * W + 40) * 4 + 3)]).toEqual([0xc6, 0x28, 0x28]);

    // Transparent where no layer paints: flattened over white, as print takes it.
    await ok(s, 'set_layer_visible', { name: '背景', visible: false });
    await ok(s, 'export_image', { path: 'clear.tiff' });
    const clear = await pixelsOf(await fileIn(s, 'clear.tiff'), 'tif');
    expect([...clear.data.subarray(0, 4)]).toEqual([255, 255, 255, 255]);
  });

  it('writes JPEG at the quality asked for: smaller at lower quality, 90 by default', async () => {
    const s = await poster();
    await ok(s, 'create_layer', { name: '渐变' });
    await ok(s, 'fill_gradient', {
      start_x: 0,
      start_y: 0,
      end_x: W,
      end_y: H,
      start_color: '#2a9d8f',
      end_color: '#e9c46a',
      start_opacity: 60,
    });
    const plain = await ok(s, 'export_image', { path: 'a.jpg' });
    expect(plain).toMatchObject({ format: 'jpg', quality: 90 });
    const low = await ok(s, 'export_image', { path: 'b.jpg', quality: 30 });
    const high = await ok(s, 'export_image', { path: 'c.jpg', quality: 100 });
    expect(low.bytes as number).toBeLessThan(plain.bytes as number);
    expect(plain.bytes as number).toBeLessThan(high.bytes as number);
    // ImageMagick estimates the quality from the quantisation tables.
    expect(Number(await identify(await fileIn(s, 'b.jpg'), 'jpg', '%Q'))).toBe(30);
    expect(Number(await identify(await fileIn(s, 'a.jpg'), 'jpg', '%Q'))).toBe(90);
  });

  it.runIf(existsSync(DEFAULT_PROFILE_PATH))(
    'writes a CMYK document’s TIFF in its inks, the press profile embedded',
    async () => {
      const s = newSession();
      await ok(s, 'create_document', { width: 40, height: 20, name: '印刷' });
      await ok(s, 'convert_to_cmyk');
      await ok(s, 'create_layer', { name: '黑' });
      await ok(s, 'select_rect', { left: 0, top: 0, right: 20, bottom: 20 });
      await ok(s, 'fill_selection', { color: 'cmyk(0,0,0,100)' });
      await ok(s, 'select_rect', { left: 20, top: 0, right: 40, bottom: 20 });
      await ok(s, 'fill_selection', { color: 'cmyk(100,0,0,0)' });
      await ok(s, 'export_image', { path: 'press.tif' });
      const tiff = await fileIn(s, 'press.tif');
      const info = await identifyInfo(tiff, 'tif');
      expect(info.colorspace).toBe('CMYK');
      expect(await identify(tiff, 'tif', '%[profile:icc]')).not.toBe('');
      // Exactly the inks asked for (TIFF is lossless): K only, then C only.
      const inks = await withTempFiles({ 'in.tif': tiff }, (f) =>
        convertTo([f['in.tif']!, '-depth', '8', 'cmyk:OUT'], 'cmyk'),
      );
      expect([...inks.subarray((5 * 40 + 5) * 4, (5 * 40 + 5) * 4 + 4)]).toEqual([0, 0, 0, 255]);
      expect([...inks.subarray((5 * 40 + 30) * 4, (5 * 40 + 30) * 4 + 4)]).toEqual([255, 0, 0, 0]);
      // Opened again, a CMYK document with those inks.
      const opened = await ok(s, 'open_document', { path: 'press.tif' });
      expect(opened.document).toMatchObject({ mode: 'CMYK' });
      const pixel = await ok(s, 'get_pixel_color', { x: 5, y: 5 });
      expect(JSON.stringify(pixel)).toMatch(/"k":100/);
    },
    60_000,
  );

  it.runIf(popplerAvailable())(
    'writes a one-page PDF the document’s physical size, its picture lossless in sRGB or in the document’s inks',
    async () => {
      const s = await poster();
      const r = await ok(s, 'export_image', { path: 'out/poster.pdf' });
      expect(r).toMatchObject({ exported: true, format: 'pdf', document_path_changed: false });
      const read = await readPdf(await fileIn(s, 'out/poster.pdf'));
      // 120 × 80 px at 300 dpi: 0.4 × 0.267 in, 28.8 × 19.2 pt.
      expect(read.info.Pages).toBe('1');
      expect(read.info['Page size']).toBe('28.8 x 19.2 pts');
      expect(read.info.Title).toBe('海报');
      expect(read.images).toEqual([
        { width: W, height: H, color: 'icc', components: 3, bitsPerComponent: 8, ppiX: 300 },
      ]);
      // The picture is the PNG's, pixel for pixel, as stored (Poppler's own extraction shows it through the file's
      // PDF/X output intent, as the press would print it: #c62828 as about #c82125).
      await ok(s, 'export_image', { path: 'out/poster.png' });
      const [inPdf, png] = [
        await storedImage(await fileIn(s, 'out/poster.pdf')),
        await pixelsOf(await fileIn(s, 'out/poster.png'), 'png'),
      ];
      const rgb = Buffer.from(png.data.filter((_, i) => i % 4 !== 3));
      expect(Buffer.compare(inPdf.data, rgb)).toBe(0);

      // A CMYK document: its inks, exactly.
      if (!existsSync(DEFAULT_PROFILE_PATH)) return;
      await ok(s, 'convert_to_cmyk');
      await ok(s, 'select_rect', { left: 20, top: 10, right: 80, bottom: 50 });
      await ok(s, 'fill_selection', { color: 'cmyk(0,0,0,100)' });
      await ok(s, 'export_image', { path: 'out/press.pdf' });
      const press = await readPdf(await fileIn(s, 'out/press.pdf'));
      expect(press.images[0]).toMatchObject({ color: 'icc', components: 4 });
      // The inks as stored (255: 100 %).
      const inks = (await storedImage(await fileIn(s, 'out/press.pdf'))).data;
      const at = (x: number, y: number) => [...inks.subarray((y * W + x) * 4, (y * W + x) * 4 + 4)];
      expect(at(40, 30)).toEqual([0, 0, 0, 255]);
      expect(at(5, 5)).toEqual([0, 0, 0, 0]);
    },
    60_000,
  );

  it.runIf(popplerAvailable())(
    'states the bleed a PDF holds (trim and bleed boxes) and draws crop marks outside it',
    async () => {
      const s = newSession();
      await ok(s, 'create_document', { width: 600, height: 400, resolution: 150, name: '出血' });
      await ok(s, 'create_layer', { name: '底色' });
      await ok(s, 'fill_selection', { color: '#2a9d8f' });
      const r = await ok(s, 'export_image', { path: 'bleed.pdf', bleed: 3 });
      expect(r).toMatchObject({ bleed_mm: 3 });
      const mm3 = (3 / 25.4) * 72;
      const boxes = async (rel: string) =>
        (await readPdf(await fileIn(s, rel), { boxes: true })).info as Record<string, string>;
      const box = (v: string) => v.split(/\s+/).map(Number);
      // 600 × 400 px at 150 dpi: a 288 × 192 pt page, trimmed 3 mm in on every side.
      const plain = await boxes('bleed.pdf');
      expect(box(plain.MediaBox!)).toEqual([0, 0, 288, 192]);
      expect(box(plain.BleedBox!)).toEqual([0, 0, 288, 192]);
      box(plain.TrimBox!).forEach((v, i) => {
        expect(v).toBeCloseTo([mm3, mm3, 288 - mm3, 192 - mm3][i]!, 1);
      });

      // With crop marks the page grows by 10 mm all round; the document and its boxes move in by as much.
      await ok(s, 'export_image', { path: 'marks.pdf', bleed: 3, crop_marks: true });
      const m = (10 / 25.4) * 72;
      const marked = await boxes('marks.pdf');
      box(marked.MediaBox!).forEach((v, i) => {
        expect(v).toBeCloseTo([0, 0, 288 + 2 * m, 192 + 2 * m][i]!, 1);
      });
      box(marked.BleedBox!).forEach((v, i) => {
        expect(v).toBeCloseTo([m, m, m + 288, m + 192][i]!, 1);
      });
      box(marked.TrimBox!).forEach((v, i) => {
        expect(v).toBeCloseTo([m + mm3, m + mm3, m + 288 - mm3, m + 192 - mm3][i]!, 1);
      });
      // Rendered at 72 dpi (a pixel a point): the marks are dark lines in the margin along the trim's edges, the
      // margin elsewhere white, the document where it was.
      const page = await renderPdf(await fileIn(s, 'marks.pdf'), 72);
      const at = (x: number, y: number) => page.data[(Math.round(y) * page.width + Math.round(x)) * 4]!;
      const top = m + mm3; // the trim's top edge, from the page's top
      const left = m + mm3;
      expect(at(left - mm3 - 8, top)).toBeLessThan(128); // a mark along the top edge, left of the corner
      expect(at(left, top - mm3 - 8)).toBeLessThan(128); // a mark along the left edge, above the corner
      expect(at(left - mm3 - 8, top + 20)).toBeGreaterThan(240); // the margin beside it
      expect(at(m + 144, m + 96)).toBeLessThan(200); // the teal document
      expect(at(m + 144, 4)).toBeGreaterThan(240); // the margin above it
    },
    60_000,
  );

  it.runIf(popplerAvailable())(
    'marks and builds the PDF as PDF/X-4: version 1.6, output intent with the press profile, XMP, identifier',
    async () => {
      const s = newSession();
      await ok(s, 'create_document', { width: 600, height: 400, resolution: 150, name: '海报 <A&B>' });
      await ok(s, 'export_image', { path: 'x4.pdf', bleed: 3, crop_marks: true });
      const bytes = await fileIn(s, 'x4.pdf');
      const read = await readPdf(bytes);
      // Poppler reads the standard from the file's own markers.
      expect(read.info['PDF version']).toBe('1.6');
      expect(read.info['PDF subtype']).toBe('PDF/X-4');
      expect(read.info.Standard).toBe('ISO 15930-7');
      expect(read.info.Title).toBe('海报 <A&B>');
      const meta = await pdfMetadata(bytes);
      expect(meta).toContain('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>');
      expect(meta).toContain('<rdf:li xml:lang="x-default">海报 &lt;A&amp;B&gt;</rdf:li>');
      expect(meta).toContain('<pdf:Trapped>False</pdf:Trapped>');
      // The XMP's dates are the document information's (pdfinfo prints them in UTC).
      const date = /<xmp:CreateDate>([^<]+)<\/xmp:CreateDate>/.exec(meta)![1]!;
      expect(new Date(read.info.CreationDate!).getTime()).toBe(new Date(date).getTime());
      // The structure, parsed: an output intent for PDF/X embedding the press profile, a file identifier.
      const { doc, intents } = await outputIntents(bytes);
      expect(intents).toHaveLength(1);
      expect(intents[0]).toMatchObject({ subtype: '/GTS_PDFX', components: 4 });
      expect(Buffer.compare(intents[0]!.profile, Buffer.from(pressProfile().bytes))).toBe(0);
      expect(doc.context.trailerInfo.ID).toBeDefined();
      const info = doc.context.lookup(doc.context.trailerInfo.Info, PDFDict);
      expect(info.get(PDFName.of('Trapped'))).toBe(PDFName.of('False'));
      // A CMYK document's intent is its own profile, the one its picture is in (embedded once).
      if (!existsSync(DEFAULT_PROFILE_PATH)) return;
      await ok(s, 'convert_to_cmyk');
      await ok(s, 'export_image', { path: 'x4-cmyk.pdf' });
      const cmyk = await fileIn(s, 'x4-cmyk.pdf');
      const [intent] = (await outputIntents(cmyk)).intents;
      expect((await storedImage(cmyk)).colorSpace.get(1)).toBe(intent!.profileRef);
    },
    60_000,
  );

  it('scales an export down, its printed size kept: fewer pixels at a lower resolution', async () => {
    const s = await poster();
    const png = await ok(s, 'export_image', { path: 'small.png', scale: 25 });
    expect(png).toMatchObject({ width: 30, height: 20, resolution: 75 });
    const info = await identifyInfo(await fileIn(s, 'small.png'), 'png');
    expect([info.width, info.height]).toEqual([30, 20]);
    expect(info.dpiX).toBeCloseTo(75, 1);
    // Resampled, not cropped: the red block a quarter the size, where it was.
    const px = await pixelsOf(await fileIn(s, 'small.png'), 'png');
    expect([...px.data.subarray((7 * 30 + 12) * 4, (7 * 30 + 12) * 4 + 3)]).toEqual([0xc6, 0x28, 0x28]);
    expect([...px.data.subarray((17 * 30 + 25) * 4, (17 * 30 + 25) * 4 + 3)]).toEqual([255, 255, 255]);
    // Full size by default.
    expect(await ok(s, 'export_image', { path: 'full.jpg' })).toMatchObject({
      width: W,
      height: H,
      resolution: 300,
    });
    if (popplerAvailable()) {
      await ok(s, 'export_image', { path: 'small.pdf', scale: 50 });
      const read = await readPdf(await fileIn(s, 'small.pdf'));
      expect(read.info['Page size']).toBe('28.8 x 19.2 pts');
      expect(read.images[0]).toMatchObject({ width: 60, height: 40, ppiX: 150 });
    }
  });

  it('refuses what it cannot write, writing nothing and changing nothing', async () => {
    const s = await poster();
    const kept = hashEditor(s.editor.snapshot);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ path: 'a.png', quality: 80 }, /^quality 只用于 JPEG，PNG/],
      [{ path: 'a.tif', quality: 80 }, /^quality 只用于 JPEG，TIFF/],
      [{ path: 'a.jpg', quality: 0 }, /^quality /],
      [{ path: 'a.jpg', quality: 101 }, /^quality /],
      [{ path: 'a.jpg', quality: 80.5 }, /^quality /],
      [{ path: 'a.psd' }, /无法从路径“a\.psd”的扩展名推断文件格式/],
      [{ path: 'a.psd', format: 'tiff' }, /路径“a\.psd”却以“\.psd”结尾/],
      [{ path: 'a.tif', format: 'jpg' }, /路径“a\.tif”却以“\.tif”结尾/],
      [{ path: 'a.pdf', format: 'png' }, /路径“a\.pdf”却以“\.pdf”结尾（PDF 文件的扩展名）/],
      [{ path: 'a.pdf', quality: 80 }, /^quality 只用于 JPEG，PDF/],
      [{ path: 'a.png', scale: 0 }, /^scale /],
      [{ path: 'a.png', bleed: 3 }, /^bleed 只用于 PDF/],
      [{ path: 'a.tif', crop_marks: true }, /^crop_marks 只用于 PDF/],
      [{ path: 'a.pdf', bleed: 21 }, /^bleed /],
      [{ path: 'a.pdf', bleed: 4 }, /^出血 4 毫米太大/],
      [{ path: 'a.png', scale: 150 }, /^scale /],
      [{ path: '../outside.tif' }, /工作区/],
      [{ path: 'a.gif', format: 'gif' }, /^format /],
    ];
    for (const [args, message] of cases) {
      const r = await call(s, 'export_image', args);
      expect(r.ok, JSON.stringify(args)).toBe(false);
      if (!r.ok) expect(r.error.message, JSON.stringify(args)).toMatch(message);
      expect(hashEditor(s.editor.snapshot)).toBe(kept);
    }
    expect(readdirSync(s.workspace.root)).toEqual([]);
    // A name without an extension gets the format's.
    const bare = await ok(s, 'export_image', { path: 'bare', format: 'tiff' });
    expect(bare).toMatchObject({ path: 'bare.tiff', format: 'tiff' });
    expect(String(bare.note)).toMatch(/已导出为“bare\.tiff”/);
  });
});
