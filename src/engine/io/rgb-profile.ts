/**
 * The ICC profile of RGB and grayscale files. Documents are sRGB inside (decodeImage converts every image to it),
 * so a PSD tagged with another profile — Adobe RGB (1998), a Dot Gain gray — is converted through its profile
 * when read, as its PNG or JPEG export would be, and RGB files we write say they are sRGB: without a profile,
 * Photoshop and RIPs take the numbers in their working space (Adobe RGB in the prepress settings).
 */

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rgbaFromProfile } from '../cmyk-pixels.js';
import type { Raster, RGB } from '../model.js';
import { iccColourSpace, iccDescription } from '../press-profile.js';

/**
 * The sRGB profile the RGB files we write embed (PNG, JPEG, PSD): `sRGB-v2-magic.icc` of Compact ICC Profiles
 * (github.com/saucecontrol/Compact-ICC-Profiles at bdd8466, CC0 1.0, sha256 af4efe28…b105f4), 736 bytes,
 * description "sRGB". libvips' built-in sRGB profile, which sharp embeds for `withIccProfile('srgb')`, is that
 * collection's v4 profile: ICC v4 tag types (mluc, para, chad) that older RIPs and viewers cannot read, so they
 * ignore the profile and take the numbers in their own working space. This is its v2 twin: the same colorants,
 * only v2 tag types (desc, text, curv), and a 182-point curve that LittleCMS takes every 8-bit value through
 * unchanged (test/engine/io/files-srgb-v2.test.ts). (Debian's icc-profiles-free sRGB.icc, also v2, moves
 * colours by up to 2/255.)
 */
const SRGB_V2 =
  'AAAC4GxjbXMCEAAAbW50clJHQiBYWVogB+IAAwAUAAkADgAdYWNzcE1TRlQAAAAAc2F3c2N0cmwAAAAAAAAAAAAAAAAAAPbWAAEAAAAA0y1o' +
  'YW5kk7I0qQ6wIoqY/Zqvo2eJmwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAJZGVzYwAAAPAAAABfY3BydAAAAQwAAAAMd3RwdAAA' +
  'ARgAAAAUclhZWgAAASwAAAAUZ1hZWgAAAUAAAAAUYlhZWgAAAVQAAAAUclRSQwAAAWgAAAF4Z1RSQwAAAWgAAAF4YlRSQwAAAWgAAAF4ZGVz' +
  'YwAAAAAAAAAFc1JHQgAAAAAAAAAAAAAAAHRleHQAAAAAQ0MwAFhZWiAAAAAAAADzVAABAAAAARbJWFlaIAAAAAAAAG+gAAA48gAAA49YWVog' +
  'AAAAAAAAYpYAALeJAAAY2lhZWiAAAAAAAAAkoAAAD4UAALbEY3VydgAAAAAAAAC2AAAAHAA4AFQAcACMAKgAxADhAQABIgFGAW0BlQHBAfAC' +
  'IAJVAosCxAMBAz8DggPGBA4EWQSnBPkFTAWkBf4GXAa+ByEHigf0CGMI1QlJCcMKPwq/C0ILyQxUDOENdA4JDqIPQA/gEIURLRHaEooTPhP2' +
  'FLIVcRY2Fv0XyhiZGW4aRhsiHAMc5x3QHr0friCkIZ4inCOfJKUlsSbAJ9Uo7SoKKyssUS18Lqov3jEWMlIzlDTZNiQ3czjGOiA7fDzfPkU/' +
  'sEEhQpZEEEWPRxJIm0ooS7tNUU7uUI9SNVPgVZBXRVkAWr5chF5MYBth72PHZaZniWlxa19tUW9KcUZzSnVRd155cXuIfaZ/yIHwhB6GUIiJ' +
  'isWNCY9RkZ+T85ZLmKubDp14n+eiW6TWp1ap26xnrvexj7Qqtsy5dLwhvtXBjcRMxxDJ2syrz3/SXNU92CTbEt4E4P7j/OcB6gztHPA081D2' +
  'c/mb/Mr//w==';

/** The embedded sRGB profile (ICC v2, see SRGB_V2): a copy, ready to embed. */
export function srgbProfile(): Uint8Array {
  return new Uint8Array(Buffer.from(SRGB_V2, 'base64'));
}

let srgbFile: string | undefined;

/**
 * The embedded sRGB profile as a file, for sharp's `withIccProfile` (libvips takes a profile only as a file or by
 * its built-in names). Written once per process into a private temporary folder, removed at exit; written again
 * if something cleaned it away, since libvips would otherwise write the file untagged with only a warning.
 */
export function srgbProfilePath(): string {
  if (srgbFile && existsSync(srgbFile)) return srgbFile;
  const dir = mkdtempSync(path.join(tmpdir(), 'atelier-icc-'));
  const file = path.join(dir, 'sRGB-v2.icc');
  writeFileSync(file, srgbProfile());
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  srgbFile = file;
  return file;
}

/**
 * The mode of the document an image is placed into (image-codec.ts DecodeOptions): what its converted colours
 * become when saved, said in the warnings.
 */
export type PlacedInto = 'rgb' | 'cmyk';

/** An embedded profile that is not sRGB: converts the file's colours to sRGB. */
export interface SourceProfile {
  readonly name: string;
  /** Straight RGBA of the file (gray as r = g = b) to straight sRGB RGBA, alpha kept, in place. */
  convert(rgba: Uint8ClampedArray, w: number, h: number): Promise<Uint8ClampedArray>;
  /**
   * For linear-light pixels (32-bit files, which Photoshop keeps in a linear version of their profile: its
   * primaries, gamma 1): the 3×3 matrix, row by row, from linear RGB in the profile's primaries to linear sRGB —
   * what LittleCMS computes for two matrix/TRC profiles, their tone curves aside. The identity for gray (a
   * linear gray is a linear sRGB neutral whatever the gray profile's curve). Undefined for a profile with no
   * colorants to read (a LUT-based one): `convertWide` applies it instead.
   */
  readonly linear?: readonly number[];
  /**
   * Interleaved 16-bit RGB of the file to straight sRGB RGBA (alpha 255) through the profile, by LittleCMS: for
   * the linear pixels of a 32-bit file whose profile has no colorants (LUT-based). Photoshop keeps a 32-bit
   * document in a linear profile and embeds that one, so the profile describes the linear values as they are.
   */
  convertWide(rgb: Uint16Array, w: number, h: number): Promise<Uint8ClampedArray>;
}

const IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/** The tags of an ICC profile, by signature: their data. */
function iccTags(icc: Uint8Array): Map<string, Uint8Array> {
  const tags = new Map<string, Uint8Array>();
  if (icc.length < 132) return tags;
  const view = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const count = view.getUint32(128);
  for (let i = 0; i < count && 144 + i * 12 <= icc.length; i++) {
    const at = 132 + i * 12;
    const offset = view.getUint32(at + 4);
    const size = view.getUint32(at + 8);
    if (offset + size <= icc.length) {
      tags.set(String.fromCharCode(...icc.subarray(at, at + 4)), icc.subarray(offset, offset + size));
    }
  }
  return tags;
}

/**
 * The colorants of a matrix/TRC RGB profile (rXYZ, gXYZ, bXYZ: its primaries in the D50 connection space) as the
 * matrix from linear RGB to XYZ, row by row; undefined when it has none or also a LUT (A2B0), which LittleCMS
 * would use instead.
 */
function colorantMatrix(icc: Uint8Array): number[] | undefined {
  const tags = iccTags(icc);
  if (tags.has('A2B0')) return undefined;
  const columns: number[][] = [];
  for (const sig of ['rXYZ', 'gXYZ', 'bXYZ']) {
    const t = tags.get(sig);
    if (!t || t.length < 20 || String.fromCharCode(...t.subarray(0, 4)) !== 'XYZ ') return undefined;
    const view = new DataView(t.buffer, t.byteOffset, t.byteLength);
    columns.push([0, 1, 2].map((k) => view.getInt32(8 + k * 4) / 65536)); // s15Fixed16
  }
  return [0, 1, 2].flatMap((row) => columns.map((c) => c[row]!));
}

function multiply(a: readonly number[], b: readonly number[]): number[] {
  return [0, 1, 2].flatMap((r) =>
    [0, 1, 2].map((c) => a[r * 3]! * b[c]! + a[r * 3 + 1]! * b[3 + c]! + a[r * 3 + 2]! * b[6 + c]!),
  );
}

function invert(m: readonly number[]): number[] | undefined {
  const [a, b, c, d, e, f, g, h, i] = m as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  if (!(Math.abs(det) > 1e-12)) return undefined;
  const adj = [
    e * i - f * h,
    c * h - b * i,
    b * f - c * e,
    f * g - d * i,
    a * i - c * g,
    c * d - a * f,
    d * h - e * g,
    b * g - a * h,
    a * e - b * d,
  ];
  return adj.map((v) => v / det);
}

/** Linear RGB in the primaries of `icc` to linear sRGB (the primaries of the sRGB profile documents are read into). */
async function linearToSrgb(icc: Uint8Array, gray: boolean): Promise<number[] | undefined> {
  if (gray) return IDENTITY;
  const file = colorantMatrix(icc);
  const srgb = colorantMatrix(srgbProfile());
  const back = srgb && invert(srgb);
  return file && back ? multiply(back, file) : undefined;
}

/** Largest difference from sRGB (per channel) at which a profile is taken as sRGB: its rounding, not a colour. */
const SRGB_TOLERANCE = 1;

/** Every 17th level of each channel (16³ colours; gray: every level), opaque. */
function probe(gray: boolean): Uint8ClampedArray {
  const levels = gray ? 256 : 16;
  const n = gray ? 256 : levels ** 3;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    const v = gray ? [i, i, i] : [i % 16, Math.floor(i / 16) % 16, Math.floor(i / 256)].map((l) => l * 17);
    out.set([v[0]!, v[1]!, v[2]!, 255], i * 4);
  }
  return out;
}

/**
 * The converter for a file's embedded `icc` (`gray`: a grayscale file), or undefined when its colours are read
 * as they are: no profile, an sRGB one, or one that cannot be used (with a warning, in Chinese, naming the file
 * by its format: `file`). `into`: the file is placed into a document of that mode, not opened as one.
 */
export async function sourceProfile(
  icc: Uint8Array | undefined,
  gray: boolean,
  warnings: string[],
  file = 'PSD',
  into?: PlacedInto,
): Promise<SourceProfile | undefined> {
  if (!icc) return undefined;
  const name = iccDescription(icc) ?? '未命名';
  // Photoshop's own default, "sRGB IEC61966-2.1" (and its variants), is sRGB whatever its curves round to.
  if (!gray && /^sRGB\b/.test(name)) return undefined;
  const space = iccColourSpace(icc);
  if (space !== (gray ? 'GRAY' : 'RGB ')) {
    warnings.push(`${file} 嵌入的配置文件“${name}”与文件的颜色模式不符，颜色已按 sRGB 读取`);
    return undefined;
  }
  // In place: a decoded layer is not held twice (the gray channel and alpha are copied out first).
  const convert = (rgba: Uint8ClampedArray, w: number, h: number) => {
    if (!gray) return rgbaFromProfile(rgba, w, h, 'rgb', true, icc, rgba);
    const ga = new Uint8Array(w * h * 2);
    for (let i = 0; i < w * h; i++) {
      ga[i * 2] = rgba[i * 4]!;
      ga[i * 2 + 1] = rgba[i * 4 + 3]!;
    }
    return rgbaFromProfile(ga, w, h, 'gray', true, icc, rgba);
  };
  const colours = probe(gray);
  let out: Uint8ClampedArray;
  try {
    out = await convert(colours.slice(), colours.length / 4, 1);
  } catch {
    warnings.push(`${file} 嵌入的配置文件“${name}”无法使用，颜色已按 sRGB 读取`);
    return undefined;
  }
  if (out.every((v, i) => Math.abs(v - colours[i]!) <= SRGB_TOLERANCE)) return undefined;
  // A CMYK document embeds its CMYK profile, never sRGB: the colours are separated from sRGB when it is saved.
  warnings.push(
    into === 'cmyk'
      ? `${file} 嵌入的配置文件“${name}”不是 sRGB：颜色已按它转换，保存时按文档的 CMYK 配置文件分色`
      : `${file} 嵌入的配置文件“${name}”不是 sRGB：颜色已按它转换为 sRGB，保存时嵌入 sRGB 配置文件`,
  );
  const linear = await linearToSrgb(icc, gray);
  const convertWide = (rgb: Uint16Array, w: number, h: number) =>
    rgbaFromProfile(rgb, w, h, 'rgb', false, icc);
  return { name, convert, convertWide, ...(linear ? { linear } : {}) };
}

/** `r` in sRGB (itself without a converter). */
export async function rasterInSrgb(p: SourceProfile | undefined, r: Raster): Promise<Raster> {
  if (!p || r.w <= 0 || r.h <= 0) return r;
  return { ...r, data: await p.convert(r.data, r.w, r.h) };
}

/** `c` in sRGB (itself without a converter). */
export async function colourInSrgb(p: SourceProfile | undefined, c: RGB): Promise<RGB> {
  if (!p) return c;
  const [r, g, b] = await p.convert(new Uint8ClampedArray([c.r, c.g, c.b, 255]), 1, 1);
  return { r: r!, g: g!, b: b! };
}
