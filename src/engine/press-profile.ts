/**
 * The press profile: the CMYK ICC output profile that convert_to_cmyk separates with, that CMYK JPEG and PSD
 * files embed, and that inks are reported in.
 *
 * Chosen by configuration: `ATELIER_CMYK_PROFILE=/path/to/profile.icc`, or by default Debian's
 * `/usr/share/color/icc/ghostscript/default_cmyk.icc` (package `libgs-common`, "Artifex CMYK SWOP Profile", a
 * SWOP coated press profile with 300 % total ink; Debian's `icc-profiles-free` ships characterisation data and
 * RGB profiles only, no CMYK output profile). A configured file that is missing or is not a CMYK output profile
 * is an error naming the variable, never a silent fall-back to another profile.
 *
 * The transform is libvips/LittleCMS through sharp, which fixes the rendering intent to perceptual and offers no
 * black-point compensation. A press profile's perceptual table already maps sRGB black to the press's darkest
 * printable colour (what black-point compensation does for the colorimetric intents), so greys stay neutral
 * down to black; test/engine/press-profile.test.ts measures it against ImageMagick/LittleCMS.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fail } from './errors.js';
import type { DocState } from './model.js';

export const PROFILE_VARIABLE = 'ATELIER_CMYK_PROFILE';
export const DEFAULT_PROFILE_PATH = '/usr/share/color/icc/ghostscript/default_cmyk.icc';
export const DEFAULT_PROFILE_PACKAGE = 'libgs-common';

export interface PressProfile {
  /** Absolute path of the ICC file (for sharp; never put in a tool result). */
  readonly path: string;
  /** The file's name, without folders. */
  readonly file: string;
  /** The profile's own description ('desc' tag), e.g. "Artifex CMYK SWOP Profile". */
  readonly name: string;
  /** Where the choice came from: configuration, or the file the document was opened from (its own profile). */
  readonly source: 'default' | typeof PROFILE_VARIABLE | 'document';
  /** The ICC bytes, embedded as they are in the files we write. */
  readonly bytes: Uint8Array;
}

/** How the conversion is done, for tool results: what sharp's transform does (see above). */
export const CONVERSION_INTENT = 'perceptual';

/** What a tool result says about the profile: no server path. */
export function profileSummary(p: PressProfile) {
  return { name: p.name, file: p.file, source: p.source, intent: CONVERSION_INTENT };
}

const ascii = (b: Uint8Array, at: number, n: number): string =>
  String.fromCharCode(...b.subarray(at, Math.min(b.length, at + n)));

/**
 * The profile's description: a v2 'desc' (textDescriptionType, ASCII) or v4 'mluc' (first record, UTF-16BE).
 * Undefined when the profile has none it can read.
 */
export function iccDescription(icc: Uint8Array): string | undefined {
  if (icc.length < 132) return undefined;
  const view = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const count = view.getUint32(128);
  for (let i = 0; i < count && 132 + i * 12 + 12 <= icc.length; i++) {
    const at = 132 + i * 12;
    if (ascii(icc, at, 4) !== 'desc') continue;
    const offset = view.getUint32(at + 4);
    const size = view.getUint32(at + 8);
    if (offset + size > icc.length || size < 12) return undefined;
    const type = ascii(icc, offset, 4);
    if (type === 'desc') {
      const n = view.getUint32(offset + 8);
      const text = ascii(icc, offset + 12, Math.min(n, size - 12));
      return text.replace(/\0+$/, '').trim() || undefined;
    }
    if (type === 'mluc' && size >= 28) {
      const len = view.getUint32(offset + 20);
      const start = offset + view.getUint32(offset + 24);
      let text = '';
      for (let j = 0; j + 1 < len && start + j + 1 < icc.length; j += 2) {
        text += String.fromCharCode(view.getUint16(start + j));
      }
      return text.replace(/\0+$/, '').trim() || undefined;
    }
    return undefined;
  }
  return undefined;
}

/** The profile's data colour space signature ('RGB ', 'GRAY', 'CMYK', 'Lab '…), undefined when not a profile. */
export function iccColourSpace(icc: Uint8Array): string | undefined {
  return icc.length < 132 || ascii(icc, 36, 4) !== 'acsp' ? undefined : ascii(icc, 16, 4);
}

/** Why `icc` is not a CMYK output profile, or null when it is one. */
export function notCmykOutputProfile(icc: Uint8Array): string | null {
  const space = iccColourSpace(icc);
  if (space === undefined) return '不是 ICC 配置文件';
  const declared = new DataView(icc.buffer, icc.byteOffset, icc.byteLength).getUint32(0);
  if (declared !== icc.length) return `ICC 文件长度 ${icc.length} 与其声明的 ${declared} 不符（文件不完整）`;
  if (space !== 'CMYK') return `色彩空间为“${space.trim()}”，不是 CMYK`;
  const cls = ascii(icc, 12, 4);
  if (cls !== 'prtr') return `配置文件类别为“${cls.trim()}”，不是输出（印刷）配置文件`;
  return null;
}

let cached: PressProfile | undefined;

/** Loads and checks the ICC file at `file` (absolute). */
function loadProfile(file: string, source: PressProfile['source']): PressProfile {
  const hint =
    source === 'default'
      ? `安装 Debian 软件包 ${DEFAULT_PROFILE_PACKAGE}（提供默认的 CMYK 印刷配置文件），或设置环境变量 ${PROFILE_VARIABLE} 指向一个 CMYK ICC 配置文件`
      : `把环境变量 ${PROFILE_VARIABLE} 改为一个存在的 CMYK 输出 ICC 配置文件（.icc/.icm）的路径，或删除该变量以使用默认配置文件`;
  const where =
    source === 'default' ? '默认的 CMYK 印刷配置文件' : `${PROFILE_VARIABLE} 指定的 CMYK 印刷配置文件`;
  const base = path.basename(file);
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch {
    fail('unsupported', `${where}“${base}”不存在，无法进行 CMYK 转换`, { hint });
  }
  if (cached && cached.path === file && cached.source === source) return cached;
  if (!stat.isFile()) fail('unsupported', `${where}“${base}”不是文件，无法进行 CMYK 转换`, { hint });
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (err) {
    const why = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
    fail('io_error', `${where}“${base}”无法读取（${why}）`, { hint });
  }
  const wrong = notCmykOutputProfile(bytes);
  if (wrong) fail('unsupported', `${where}“${base}”不可用：${wrong}`, { hint });
  cached = { path: file, file: base, name: iccDescription(bytes) ?? base, source, bytes };
  return cached;
}

/**
 * The configured press profile, loaded once; a missing or unusable file fails (`unsupported`) with a hint
 * naming what to install or set.
 */
export function pressProfile(env: NodeJS.ProcessEnv = process.env): PressProfile {
  const configured = env[PROFILE_VARIABLE]?.trim();
  if (configured) return loadProfile(path.resolve(configured), PROFILE_VARIABLE);
  return loadProfile(DEFAULT_PROFILE_PATH, 'default');
}

/**
 * The CMYK profile a document's inks are in, as Photoshop keeps a document's own profile: the one embedded in the
 * CMYK file it was opened from when that is not the press profile, else the press profile. Saving separates with
 * it and embeds it, so an unedited file keeps its inks and a print shop gets the profile it sent.
 */
export function documentProfile(state: Pick<DocState, 'cmykProfile'>): PressProfile {
  return state.cmykProfile ? ownProfile(state.cmykProfile) : pressProfile();
}

/** Whether `icc` is the press profile (false when none is usable): a file tagged with it needs no profile of its own. */
export function isPressProfile(icc: Uint8Array): boolean {
  try {
    return Buffer.compare(Buffer.from(icc), Buffer.from(pressProfile().bytes)) === 0;
  } catch {
    return false;
  }
}

const ownProfiles = new WeakMap<Uint8Array, PressProfile>();
const ownFiles = new Map<string, string>();
let ownDir: string | undefined;

/**
 * A document's own profile as a PressProfile: written once per process into a private temporary folder (sharp
 * takes a profile only as a file), named by its digest, written again if something cleaned it away.
 */
function ownProfile(bytes: Uint8Array): PressProfile {
  const known = ownProfiles.get(bytes);
  if (known && existsSync(known.path)) return known;
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  let file = ownFiles.get(digest);
  if (!file || !existsSync(file)) {
    if (!ownDir || !existsSync(ownDir)) {
      const dir = mkdtempSync(path.join(tmpdir(), 'atelier-cmyk-'));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      ownDir = dir;
    }
    file = path.join(ownDir, `${digest}.icc`);
    writeFileSync(file, bytes);
    ownFiles.set(digest, file);
  }
  const name = iccDescription(bytes) ?? '嵌入的配置文件';
  const profile: PressProfile = { path: file, file: `${name}.icc`, name, source: 'document', bytes };
  ownProfiles.set(bytes, profile);
  return profile;
}
