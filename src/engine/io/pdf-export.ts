/**
 * A document's flattened picture as a one-page PDF, the file print shops ask for most: the page is the document's
 * physical size (its pixels at its resolution), the picture fills it, losslessly (Flate), in the document's colour
 * space with its profile embedded (ICCBased: sRGB, or the press profile and the document's own inks for CMYK), so
 * a RIP reads the same colours the PSD, TIFF and JPEG hold. A document drawn with bleed (the margin the press
 * prints past the cut) states it: the page's trim box is the document inset by the bleed, its bleed box the whole
 * document; with crop marks the page grows by a margin round the document and corner marks show where to cut,
 * in registration colour (all four inks) on a CMYK page.
 *
 * The file is marked and built as PDF/X-4 (ISO 15930-7), the exchange standard print shops preflight: PDF 1.6, an
 * output intent naming the printing condition with its profile embedded (the document's press profile: its own
 * for CMYK, the configured one an RGB picture will be printed through), title, dates, trapping and the standard's
 * version both in the document information and in the XMP metadata, a file identifier, trim and bleed boxes inside
 * the page. The picture is opaque (flattened on white), so nothing in it needs the transparency X-4 allows.
 * pdf-lib writes the file's structure; the pixels are compressed by Node's zlib on its thread pool (pdf-lib's own
 * deflate runs in JavaScript on the calling thread, slow on a print-size picture).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  lineTo,
  moveTo,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  type PDFOperator,
  PDFRawStream,
  type PDFRef,
  PDFString,
  popGraphicsState,
  pushGraphicsState,
  setGraphicsState,
  setLineWidth,
  setStrokingCmykColor,
  setStrokingGrayscaleColor,
  stroke,
} from 'pdf-lib';
import { PDF_MARK_MARGIN_MM } from '../../registry/file-formats.js';
import { planeFitted } from '../channels.js';
import type { Raster } from '../model.js';
import type { PressProfile } from '../press-profile.js';
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
  /** The printing condition the file is made for (PDF/X's output intent): a CMYK press profile. */
  readonly outputIntent?: Pick<PressProfile, 'bytes' | 'name'>;
  /** Spot plates printed over the picture, each its own separation (below). */
  readonly spots?: readonly PdfSpot[];
}

/**
 * A spot plate: `data` is a byte per pixel of the picture before any `size` (0 full ink, 255 none, as a PSD's spot
 * channel), printed in the ink `name`, whose look is `lab` (CIE Lab, D50).
 */
export interface PdfSpot {
  readonly name: string;
  readonly data: Uint8Array;
  readonly lab: readonly [number, number, number];
}

/** The standard's version as PDF/X names it, in the document information and the XMP metadata alike. */
export const PDFX_VERSION = 'PDF/X-4';

const xmlText = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The XMP packet PDF/X-4 asks for: title, dates, tool, trapping, identifiers, the standard's version. */
function xmpPacket(title: string, when: Date, documentId: string): string {
  const date = when.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about=""',
    ' xmlns:dc="http://purl.org/dc/elements/1.1/"',
    ' xmlns:xmp="http://ns.adobe.com/xap/1.0/"',
    ' xmlns:pdf="http://ns.adobe.com/pdf/1.3/"',
    ' xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"',
    ' xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">',
    '<dc:format>application/pdf</dc:format>',
    `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(title)}</rdf:li></rdf:Alt></dc:title>`,
    `<xmp:CreateDate>${date}</xmp:CreateDate>`,
    `<xmp:ModifyDate>${date}</xmp:ModifyDate>`,
    `<xmp:MetadataDate>${date}</xmp:MetadataDate>`,
    '<xmp:CreatorTool>Atelier</xmp:CreatorTool>',
    '<pdf:Producer>Atelier</pdf:Producer>',
    '<pdf:Trapped>False</pdf:Trapped>',
    `<xmpMM:DocumentID>uuid:${documentId}</xmpMM:DocumentID>`,
    `<xmpMM:InstanceID>uuid:${documentId}</xmpMM:InstanceID>`,
    '<xmpMM:VersionID>1</xmpMM:VersionID>',
    '<xmpMM:RenditionClass>default</xmpMM:RenditionClass>',
    `<pdfxid:GTS_PDFXVersion>${PDFX_VERSION}</pdfxid:GTS_PDFXVersion>`,
    '</rdf:Description>',
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
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

/** An 8-bit image XObject of `w × h` pixels in `colorSpace`, its samples `packed` (Flate). */
function imageXObject(
  context: PDFDocument['context'],
  w: number,
  h: number,
  colorSpace: Parameters<PDFDocument['context']['obj']>[0] & unknown[],
  packed: Uint8Array,
  extra: { Decode?: number[] } = {},
): PDFRef {
  const dict: PDFDict = context.obj({
    Type: 'XObject',
    Subtype: 'Image',
    Width: w,
    Height: h,
    BitsPerComponent: 8,
    ColorSpace: colorSpace,
    ...extra,
    Filter: 'FlateDecode',
    Length: packed.length,
  });
  return context.register(PDFRawStream.of(dict, packed));
}

/**
 * Each spot plate as an image in its own Separation colour space: one component, the tint being how much ink
 * (the plate's bytes read inverted by the Decode array), its look for a proof or a printer without the ink the
 * Lab colour at full tint over white paper.
 */
async function spotImages(
  context: PDFDocument['context'],
  spots: readonly PdfSpot[],
  raster: Raster,
  w: number,
  h: number,
): Promise<PDFRef[]> {
  const refs: PDFRef[] = [];
  for (const spot of spots) {
    const plane = await planeFitted(spot.data, raster.w, raster.h, w, h);
    const packed = await deflated(plane);
    const tint = context.obj({
      FunctionType: 2,
      Domain: [0, 1],
      C0: [100, 0, 0],
      C1: [...spot.lab],
      N: 1,
    });
    const lab = [
      PDFName.of('Lab'),
      context.obj({ WhitePoint: [0.9642, 1, 0.8249], Range: [-128, 127, -128, 127] }),
    ];
    const separation = [PDFName.of('Separation'), PDFName.of(spot.name), lab, tint];
    refs.push(imageXObject(context, w, h, separation, packed, { Decode: [1, 0] }));
  }
  return refs;
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
    const pdf = await PDFDocument.create({ updateMetadata: false });
    const when = new Date();
    const title = opts.title?.trim() || 'Atelier';
    pdf.setTitle(title);
    pdf.setCreator('Atelier');
    pdf.setProducer('Atelier');
    pdf.setCreationDate(when);
    pdf.setModificationDate(when);
    const { context } = pdf;
    const iccRef = context.register(
      PDFRawStream.of(context.obj({ N: channels, Filter: 'FlateDecode', Length: icc.length }), icc),
    );
    // PDF/X: the printing condition, its profile embedded (the picture's own when it is in the same inks).
    const intent = opts.outputIntent;
    if (intent) {
      const same = opts.cmyk && Buffer.compare(Buffer.from(opts.cmyk.bytes), Buffer.from(intent.bytes)) === 0;
      const packed = same ? undefined : await deflated(intent.bytes);
      const destRef = packed
        ? context.register(
            PDFRawStream.of(context.obj({ N: 4, Filter: 'FlateDecode', Length: packed.length }), packed),
          )
        : iccRef;
      pdf.catalog.set(
        PDFName.of('OutputIntents'),
        context.obj([
          context.obj({
            Type: 'OutputIntent',
            S: 'GTS_PDFX',
            OutputConditionIdentifier: PDFString.of('Custom'),
            OutputCondition: PDFString.of(intent.name),
            Info: PDFString.of(intent.name),
            RegistryName: PDFString.of('http://www.color.org'),
            DestOutputProfile: destRef,
          }),
        ]),
      );
      // The document information pdf-lib made for the title and dates above.
      const info = context.lookup(context.trailerInfo.Info, PDFDict);
      info.set(PDFName.of('Trapped'), PDFName.of('False'));
      info.set(PDFName.of('GTS_PDFXVersion'), PDFString.of(PDFX_VERSION));
      const id = randomUUID();
      const xmp = Buffer.from(xmpPacket(title, when, id), 'utf8');
      const metadata = context.register(
        PDFRawStream.of(context.obj({ Type: 'Metadata', Subtype: 'XML', Length: xmp.length }), xmp),
      );
      pdf.catalog.set(PDFName.of('Metadata'), metadata);
      const hex = id.replace(/-/g, '');
      context.trailerInfo.ID = context.obj([PDFHexString.of(hex), PDFHexString.of(hex)]);
    }
    const imageRef = imageXObject(context, w, h, [PDFName.of('ICCBased'), iccRef], pixels);
    const spots = await spotImages(context, opts.spots ?? [], raster, w, h);
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
    if (spots.length > 0) {
      // Overprinted: a spot ink prints on top of the process inks under it instead of knocking them out.
      page.node.setExtGState(
        PDFName.of('GsSpot'),
        context.obj({ Type: 'ExtGState', OP: true, op: true, OPM: 1 }),
      );
      for (const [k, ref] of spots.entries()) page.node.setXObject(PDFName.of(`Spot${k}`), ref);
      page.pushOperators(
        pushGraphicsState(),
        setGraphicsState('GsSpot'),
        concatTransformationMatrix(width, 0, 0, height, margin, margin),
        ...spots.map((_, k) => drawObject(`Spot${k}`)),
        popGraphicsState(),
      );
    }
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
    const bytes = Buffer.from(await pdf.save({ useObjectStreams: false }));
    // PDF/X-4 is PDF 1.6, and nothing here needs more; pdf-lib's writer always states 1.7 in the header, whose
    // eight bytes are restated in place (no offset moves).
    if (intent && bytes.subarray(0, 8).toString('latin1') === '%PDF-1.7')
      bytes.write('%PDF-1.6', 0, 'latin1');
    return bytes;
  } catch (err) {
    throw encodeFailure('PDF', err);
  }
}
