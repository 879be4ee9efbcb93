/**
 * Poppler (Debian's poppler-utils) as an independent reader of the PDFs we export: `pdfinfo` for the page, and
 * `pdfimages` for the pictures a page holds, listed and extracted as they are stored (PNG for RGB, TIFF for CMYK).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { withTempFiles } from '../engine/press-profile-support.js';

const run = promisify(execFile);
const PDFINFO = '/usr/bin/pdfinfo';
const PDFIMAGES = '/usr/bin/pdfimages';
const PDFTOPPM = '/usr/bin/pdftoppm';

export function popplerAvailable(): boolean {
  return existsSync(PDFINFO) && existsSync(PDFIMAGES);
}

export interface PdfImage {
  readonly width: number;
  readonly height: number;
  /** As pdfimages names it: 'rgb', 'cmyk', 'icc', … */
  readonly color: string;
  readonly components: number;
  readonly bitsPerComponent: number;
  readonly ppiX: number;
}

export interface PdfRead {
  /** pdfinfo's fields, e.g. `Pages`, `Page size`, `Title`. */
  readonly info: Readonly<Record<string, string>>;
  readonly images: readonly PdfImage[];
  /** The first picture as pdfimages extracts it, with its file's extension ('png' or 'tif'). */
  readonly first: { readonly bytes: Buffer; readonly ext: string } | null;
  /** Every picture of the first page so, in the page's order (a separation's through its alternate colours). */
  readonly pictures: readonly { readonly bytes: Buffer; readonly ext: string }[];
}

/** What pdfinfo, pdfimages (and with `boxes`, the page's boxes: `MediaBox`, `TrimBox`, …) read of `pdf`. */
export async function readPdf(pdf: Uint8Array, opts: { boxes?: boolean } = {}): Promise<PdfRead> {
  return withTempFiles({ 'in.pdf': pdf }, async ({ 'in.pdf': file }) => {
    const dir = path.dirname(file!);
    const { stdout: infoOut } = await run(PDFINFO, [...(opts.boxes ? ['-box'] : []), file!], {
      encoding: 'utf8',
    });
    // The document's own fields; lines indented under one (a PDF subtype's Title, Standard…) by their name too,
    // a name's first line kept (the subtype's Title does not replace the document's).
    const info: Record<string, string> = {};
    for (const line of infoOut.split('\n')) {
      const m = /^([^:]+):\s*(.*)$/.exec(line);
      if (!m) continue;
      const key = m[1]!.trim();
      if (!(key in info)) info[key] = m[2]!.trim();
    }
    const { stdout: listOut } = await run(PDFIMAGES, ['-list', file!], { encoding: 'utf8' });
    const images = listOut
      .split('\n')
      .slice(2)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols.length >= 13)
      .map((cols) => ({
        width: Number(cols[3]),
        height: Number(cols[4]),
        color: cols[5]!,
        components: Number(cols[6]),
        bitsPerComponent: Number(cols[7]),
        ppiX: Number(cols[12]),
      }));
    await run(PDFIMAGES, ['-png', '-tiff', '-f', '1', '-l', '1', file!, path.join(dir, 'img')]);
    const extracted = (await readdir(dir)).filter((f) => f.startsWith('img-')).sort();
    const pictures = await Promise.all(
      extracted.map(async (name) => ({
        bytes: await readFile(path.join(dir, name)),
        ext: path.extname(name).slice(1),
      })),
    );
    return { info, images, first: pictures[0] ?? null, pictures };
  });
}

/** The first page as Poppler renders it at `dpi`: straight RGBA. */
export async function renderPdf(
  pdf: Uint8Array,
  dpi: number,
): Promise<{ width: number; height: number; data: Uint8Array }> {
  return withTempFiles({ 'in.pdf': pdf }, async ({ 'in.pdf': file }) => {
    const page = path.join(path.dirname(file!), 'page');
    await run(PDFTOPPM, ['-r', String(dpi), '-png', '-singlefile', file!, page]);
    const { data, info } = await sharp(await readFile(`${page}.png`))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data: new Uint8Array(data) };
  });
}

/** The XMP metadata of `pdf`, as `pdfinfo -meta` prints it. */
export async function pdfMetadata(pdf: Uint8Array): Promise<string> {
  return withTempFiles({ 'in.pdf': pdf }, async ({ 'in.pdf': file }) => {
    const { stdout } = await run(PDFINFO, ['-meta', file!], { encoding: 'utf8' });
    return stdout;
  });
}
