/**
 * A document's flattened picture as a one-page PDF, the file print shops ask for most: the page is the document's
 * physical size (its pixels at its resolution), the picture fills it, losslessly (Flate), in the document's colour
 * space with its profile embedded (ICCBased: sRGB, or the press profile and the document's own inks for CMYK), so
 * a RIP reads the same colours the PSD, TIFF and JPEG hold. Not PDF/X: no bleed, trim box or output intent.
 * pdf-lib writes the file's structure; the pixels are compressed by Node's zlib on its thread pool (pdf-lib's own
 * deflate runs in JavaScript on the calling thread, slow on a print-size picture).
 */
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  PDFName,
  PDFRawStream,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import type { Raster } from '../model.js';
import { checkDpi, checkRaster, encodeFailure, type FlatOptions, flatInput } from './image-codec.js';
import { srgbProfilePath } from './rgb-profile.js';

const deflated = promisify(deflate);

/** PostScript points per inch: a PDF page is measured in them. */
const POINTS_PER_INCH = 72;

export async function encodePdf(
  raster: Raster,
  dpi: number,
  opts: FlatOptions & { readonly title?: string } = {},
): Promise<Buffer> {
  checkRaster(raster);
  checkDpi(dpi);
  try {
    const { data, info } = await (await flatInput(raster, opts)).raw().toBuffer({ resolveWithObject: true });
    const channels = opts.cmyk ? 4 : 3;
    const [w, h] = [opts.size?.w ?? raster.w, opts.size?.h ?? raster.h];
    if (info.channels !== channels || info.width !== w || info.height !== h) {
      throw new Error(`unexpected ${info.width}×${info.height}×${info.channels} pixels`);
    }
    const profile = opts.cmyk ? opts.cmyk.bytes : await readFile(srgbProfilePath());
    const [pixels, icc] = await Promise.all([deflated(data), deflated(profile)]);
    const pdf = await PDFDocument.create();
    pdf.setCreator('Atelier');
    pdf.setProducer('Atelier');
    if (opts.title) pdf.setTitle(opts.title);
    const { context } = pdf;
    const iccRef = context.register(
      PDFRawStream.of(context.obj({ N: channels, Filter: 'FlateDecode', Length: icc.length }), icc),
    );
    const imageRef = context.register(
      PDFRawStream.of(
        context.obj({
          Type: 'XObject',
          Subtype: 'Image',
          Width: w,
          Height: h,
          BitsPerComponent: 8,
          ColorSpace: [PDFName.of('ICCBased'), iccRef],
          Filter: 'FlateDecode',
          Length: pixels.length,
        }),
        pixels,
      ),
    );
    const [width, height] = [w, h].map((px) => (px / dpi) * POINTS_PER_INCH) as [number, number];
    const page = pdf.addPage([width, height]);
    page.node.setXObject(PDFName.of('Im0'), imageRef);
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(width, 0, 0, height, 0, 0),
      drawObject('Im0'),
      popGraphicsState(),
    );
    const bytes = await pdf.save({ useObjectStreams: false });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (err) {
    throw encodeFailure('PDF', err);
  }
}
