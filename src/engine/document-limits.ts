/**
 * How large a document may be: one set of limits for what the registry states (create_document, resize_canvas,
 * resize_image), what the engine enforces before allocating anything, and what the files we write can hold.
 * The registry depends on nothing, so it writes the numbers itself; test/engine/document-limits.test.ts ties
 * them to these.
 *
 * - A plain PSD (version 1) holds at most 30,000 px per side; PSB (version 2) 300,000 — Adobe's file format
 *   specification, and the limits ag-psd's reader checks. A document with a side beyond 30,000 px is saved as PSB.
 * - The pixel count is bounded by memory, not by the format: a canvas-sized RGBA buffer (the composite every
 *   save, export and render starts from) of 0x3FFF² px is 1 GiB, and ag-psd's writer takes a further 8 bytes per
 *   canvas pixel of scratch space, which must stay within one typed array (4 GiB in Node 20). It is also
 *   sharp's default input limit, which decoding images keeps. A 9,000 × 18,000 marker (150 DPI) is 60 % of it.
 */
import { LAYER_REACH_MAX } from '../registry/bounds.js';
import { fail } from './errors.js';

/** Widest or tallest canvas of a PSD (version 1). */
export const PSD_MAX_SIDE = 30_000;
/** Widest or tallest canvas of a PSB (version 2, the large document format). */
export const PSB_MAX_SIDE = 300_000;
/** Widest or tallest canvas a document may have: what a PSB holds. */
export const MAX_DOCUMENT_SIDE = PSB_MAX_SIDE;
/** Pixels (width × height) a document may have. */
export const MAX_DOCUMENT_PIXELS = 0x3fff * 0x3fff;

/** How far from the canvas's origin a layer's pixels may lie (the registry's bound, which says why). */
export const MAX_LAYER_REACH = LAYER_REACH_MAX;

/** How far from the canvas's origin a rectangle reaches, in pixels (compared with MAX_LAYER_REACH). */
export function reachOf(r: {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}): number {
  return Math.max(Math.abs(r.x), Math.abs(r.y), Math.abs(r.x + r.w), Math.abs(r.y + r.h));
}

/** The PSD version a canvas needs: 1 (PSD) up to 30,000 px per side, 2 (PSB) beyond. */
export function psdVersionFor(width: number, height: number): 1 | 2 {
  return width > PSD_MAX_SIDE || height > PSD_MAX_SIDE ? 2 : 1;
}

const grouped = (n: number): string => n.toLocaleString('en-US');

/**
 * Refuses (`invalid_arguments`) a canvas beyond the limits, before any pixel is allocated. `what` names the
 * result in the message, e.g. '新文档' or '调整后的画布'.
 */
export function checkCanvasSize(width: number, height: number, what: string): void {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 1 && height >= 1)) {
    fail('invalid_arguments', `${what}尺寸 ${width}×${height} 无效：宽和高必须是正整数（像素）`);
  }
  if (width > MAX_DOCUMENT_SIDE || height > MAX_DOCUMENT_SIDE) {
    fail(
      'invalid_arguments',
      `${what}尺寸 ${width}×${height} 超过上限：每边最多 ${grouped(MAX_DOCUMENT_SIDE)} 像素（PSB 格式的上限）`,
      {
        hint: `宽和高取 1 到 ${MAX_DOCUMENT_SIDE}`,
        details: [
          { parameter: width > MAX_DOCUMENT_SIDE ? 'width' : 'height', value: Math.max(width, height) },
        ],
      },
    );
  }
  if (width * height > MAX_DOCUMENT_PIXELS) {
    fail(
      'invalid_arguments',
      `${what}尺寸 ${width}×${height}（${grouped(width * height)} 像素）超过上限：宽×高最多 ${grouped(MAX_DOCUMENT_PIXELS)} 像素`,
      {
        hint: `减小宽或高，使宽×高不超过 ${MAX_DOCUMENT_PIXELS}（例如 ${Math.floor(MAX_DOCUMENT_PIXELS / height)}×${height}）`,
        details: [{ parameter: 'width', value: width }],
      },
    );
  }
}

/**
 * Refuses (`out_of_bounds`) an image file whose header gives a size beyond the limits, before it is decoded: it
 * would become a document (or a placed layer) that could not be saved. `what` names the file ('TIFF 图像').
 */
export function checkImageSize(width: number, height: number, what: string): void {
  const hint = '请先缩小图像（或裁成几部分）再打开或置入';
  if (width > MAX_DOCUMENT_SIDE || height > MAX_DOCUMENT_SIDE) {
    fail(
      'out_of_bounds',
      `${what}尺寸 ${width}×${height} 超过文档上限：每边最多 ${grouped(MAX_DOCUMENT_SIDE)} 像素（PSB 格式的上限），无法读取`,
      { hint, details: { width, height } },
    );
  }
  if (width * height > MAX_DOCUMENT_PIXELS) {
    fail(
      'out_of_bounds',
      `${what}尺寸 ${width}×${height} 超过文档上限（宽×高最多 ${grouped(MAX_DOCUMENT_PIXELS)} 像素，约 2.68 亿），无法读取`,
      { hint, details: { width, height } },
    );
  }
}

/**
 * Refuses (`out_of_bounds`) a layer raster over `rect` larger than a document may be: it is one dense raster, so
 * pixels lying far apart (a layer moved a billion pixels off the canvas, then merged with one on it or filled where
 * the canvas is) would need more memory than any machine has. Photoshop cannot move a layer that far to begin
 * with. `what` names the result ('合并后的图层'), `hint` says what to do instead.
 */
export function checkLayerExtent(
  rect: { readonly w: number; readonly h: number },
  what: string,
  hint: string,
): void {
  if (rect.w * rect.h <= MAX_DOCUMENT_PIXELS) return;
  fail(
    'out_of_bounds',
    `${what}范围 ${grouped(rect.w)}×${grouped(rect.h)} 像素超过上限（宽×高最多 ${grouped(MAX_DOCUMENT_PIXELS)} 像素）：图层的像素相距太远`,
    { hint, details: { width: rect.w, height: rect.h } },
  );
}
