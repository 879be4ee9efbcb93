/**
 * A document's flattened picture as a one-page PDF, the file print shops ask for most: the page is the document's
 * physical size (its pixels at its resolution), the picture fills it, losslessly (Flate), in the document's colour
 * space with its profile embedded (ICCBased: sRGB, or the press profile and the document's own inks for CMYK), so
 * a RIP reads the same colours the PSD, TIFF and JPEG hold. A document drawn with bleed (the margin the press
 * prints past the cut) states it: the page's trim box is the document inset by the bleed, its bleed box the whole
 * document; with crop marks the page grows by a margin round the document and corner marks show where to cut,
 * in registration colour (all four inks) on a CMYK page. Not PDF/X: no output intent.
 * pdf-lib writes the file's structure; the pixels are compressed by Node's zlib on its thread pool (pdf-lib's own
 * deflate runs in JavaScript on the calling thread, slow on a print-size picture).
 */
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  lineTo,
  moveTo,
  PDFDocument,
  PDFName,
  type PDFOperator,
  PDFRawStream,
  popGraphicsState,
  pushGraphicsState,
  setLineWidth,
  setStrokingCmykColor,
  setStrokingGrayscaleColor,
  stroke,
} from 'pdf-lib';
import { PDF_MARK_MARGIN_MM } from '../../registry/file-formats.js';
import type { Raster } from '../model.js';
import { checkDpi, checkRaster, encodeFailure, type FlatOptions, flatInput } from './image-codec.js';
import { srgbProfilePath } from './rgb-profile.js';

const deflated = promisify(deflate);

/** PostScript points per inch: a PDF page is measured in them. */
const POINTS_PER_INCH = 72;
const points = (mm: number) => (mm / 25.4) * POINTS_PER_INCH;

/** Crop marks: how far round the document the page reaches, how long a mark is, how thick (printers' usual). */
const MARK_LENGTH_MM = 5;
const MARK_WIDTH_PT = 0.25;

export interface PdfOptions extends FlatOptions {
  readonly title?: string;
  /** Millimetres of bleed the document holds on every side: the trim box is inset by it. */
  readonly bleedMm?: number;
  /** Corner marks outside the document where the trim box's edges run. */
  readonly cropMarks?: boolean;
}

/**
 * The crop marks round a trim box [x0, y0, x1, y1]: at each corner one mark along each edge's line, from `gap`
 * beyond the corner outwards, `length` long.
 */
function cropMarks(
  trim: readonly [number, number, number, number],
  gap: number,
  length: number,
): PDFOperator[] {
  const [x0, y0, x1, y1] = trim;
  const ops: PDFOperator[] = [];
  const line = (ax: number, ay: number, bx: number, by: number) => ops.push(moveTo(ax, ay), lineTo(bx, by));
  for (const x of [x0, x1]) {
    const out = x === x0 ? -1 : 1;
    for (const y of [y0, y1]) {
      const up = y === y0 ? -1 : 1;
      // Horizontal, along the trim's top or bottom edge; vertical, along its left or right edge.
      line(x + out * gap, y, x + out * (gap + length), y);
      line(x, y + up * gap, x, y + up * (gap + length));
    }
  }
  return ops;
}

export async function encodePdf(raster: Raster, dpi: number, opts: PdfOptions = {}): Promise<Buffer> {
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
    const margin = opts.cropMarks ? points(PDF_MARK_MARGIN_MM) : 0;
    const bleed = points(opts.bleedMm ?? 0);
    const page = pdf.addPage([width + 2 * margin, height + 2 * margin]);
    page.node.setXObject(PDFName.of('Im0'), imageRef);
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(width, 0, 0, height, margin, margin),
      drawObject('Im0'),
      popGraphicsState(),
    );
    page.setBleedBox(margin, margin, width, height);
    page.setTrimBox(margin + bleed, margin + bleed, width - 2 * bleed, height - 2 * bleed);
    if (opts.cropMarks) {
      const trim = [margin + bleed, margin + bleed, margin + width - bleed, margin + height - bleed] as const;
      page.pushOperators(
        pushGraphicsState(),
        setLineWidth(MARK_WIDTH_PT),
        opts.cmyk ? setStrokingCmykColor(1, 1, 1, 1) : setStrokingGrayscaleColor(0),
        // From the bleed's edge outwards (a little past it, so no mark prints on the sheet kept).
        ...cropMarks(trim, bleed + points(1), points(MARK_LENGTH_MM)),
        stroke(),
        popGraphicsState(),
      );
    }
    const bytes = await pdf.save({ useObjectStreams: false });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (err) {
    throw encodeFailure('PDF', err);
  }
}
