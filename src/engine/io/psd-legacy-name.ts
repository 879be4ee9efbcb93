/**
 * The legacy layer name: the Pascal string in each layer record, read by programs that do not read the Unicode
 * name (`luni`), such as ImageMagick 6 and older RIPs. Photoshop writes it in the system's legacy code page,
 * so Chinese Photoshop writes GBK (code page 936): `圆角矩形 1` is stored as D4 B2 BD C7 BE D8 D0 CE 20 31
 * (chinedufn/psd#4; pytoshop#37 reads Photoshop 25's names with the cp936 locale). ag-psd writes every
 * non-ASCII character as `?`, so an old reader shows a Chinese name as `??`.
 *
 * We write what Chinese Photoshop writes: a file from Atelier then reads in those programs exactly as a
 * designer's own Photoshop file does, on the Chinese systems print shops and designers use. A reader on another
 * code page shows mojibake, as it does for Photoshop's files; an ASCII stand-in (`Layer 3`) would tell nobody
 * anything, and pinyin would need a dictionary. A character GBK lacks (an emoji) is `?`, as Windows writes it.
 * The name is cut at 255 bytes between characters and padded to four bytes with its length byte, as the
 * specification says. The `luni` block ag-psd writes is left as it is: Photoshop, psd-tools and ag-psd read
 * the exact name from it.
 */
import { EditorError } from '../errors.js';

/** The longest Pascal string: its length is one byte. */
const MAX_BYTES = 255;

let gbk: Map<number, number> | undefined;

/**
 * Code point → two-byte GBK code, from the GBK decoder the runtime ships (ICU's, the WHATWG table): every
 * two-byte sequence decoded once. The first sequence for a character wins.
 */
function gbkTable(): Map<number, number> {
  if (gbk) return gbk;
  const table = new Map<number, number>();
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder('gbk');
  } catch {
    // A Node built without full ICU has no GBK: every non-ASCII character stays `?`, as ag-psd writes it.
    gbk = table;
    return table;
  }
  const pair = new Uint8Array(2);
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x40; trail <= 0xfe; trail++) {
      if (trail === 0x7f) continue;
      pair[0] = lead;
      pair[1] = trail;
      const text = decoder.decode(pair);
      const cp = text.codePointAt(0);
      if (cp !== undefined && cp !== 0xfffd && text.length === 1 && !table.has(cp)) {
        table.set(cp, (lead << 8) | trail);
      }
    }
  }
  // Code page 936 (Chinese Windows) has the euro sign as one byte.
  table.set(0x20ac, 0x80);
  gbk = table;
  return table;
}

/** `name` as Chinese Photoshop writes its Pascal string: GBK, `?` for what GBK lacks, at most 255 bytes. */
export function legacyLayerName(name: string): Uint8Array {
  const out: number[] = [];
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    const code = cp < 0x80 ? cp : (gbkTable().get(cp) ?? 0x3f);
    const bytes = code > 0xff ? [code >> 8, code & 0xff] : [code];
    if (out.length + bytes.length > MAX_BYTES) break;
    out.push(...bytes);
  }
  return Uint8Array.from(out);
}

/** What ag-psd writes for `name`: its first 255 UTF-16 units, each a byte, `?` past ASCII. */
function agPsdPascal(name: string): Uint8Array {
  const out = new Uint8Array(Math.min(name.length, MAX_BYTES));
  for (let i = 0; i < out.length; i++) {
    const code = name.charCodeAt(i);
    out[i] = code < 0x80 ? code : 0x3f;
  }
  return out;
}

const padded = (n: number): number => Math.ceil((1 + n) / 4) * 4;

/**
 * `skeleton` (a PSD or PSB ag-psd wrote, `large` for PSB) with the legacy names of its layer records replaced:
 * `names` are the records' names in file order. Every record's extra data length and the layer info and layer
 * and mask section lengths are adjusted; a Pascal string is padded to four bytes, so the layer info keeps its
 * padding. A record whose stored name is not what ag-psd writes for its name is a structure we do not know:
 * an internal error rather than a file with names in the wrong layers.
 */
export function withLegacyNames(skeleton: Uint8Array, large: boolean, names: readonly string[]): Uint8Array {
  const view = new DataView(skeleton.buffer, skeleton.byteOffset, skeleton.byteLength);
  const lengthSize = large ? 8 : 4;
  const size = (at: number): number => (large ? Number(view.getBigUint64(at)) : view.getUint32(at));
  let at = 26;
  at += 4 + view.getUint32(at); // colour mode data
  at += 4 + view.getUint32(at); // image resources
  const section = at;
  const info = at + lengthSize;
  at = info + lengthSize;
  const count = Math.abs(view.getInt16(at));
  at += 2;
  const edits: { extra: number; name: number; old: number; bytes: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    at += 16; // bounds
    at += 2 + view.getUint16(at) * (2 + lengthSize); // channel ids and lengths
    at += 12; // blend signature and key, opacity, clipping, flags, filler
    const extra = at;
    const end = extra + 4 + view.getUint32(extra);
    let p = extra + 4;
    p += 4 + view.getUint32(p); // layer mask data
    p += 4 + view.getUint32(p); // blending ranges
    const stored = skeleton.subarray(p + 1, p + 1 + skeleton[p]!);
    const name = names[i];
    if (name !== undefined && p < end && /[^\0-\x7f]/.test(name)) {
      const expected = agPsdPascal(name);
      if (stored.length !== expected.length || !stored.every((b, k) => b === expected[k])) {
        throw new EditorError('internal', `PSD 结构异常：第 ${i + 1} 条图层记录的名称与图层不符`);
      }
      edits.push({ extra, name: p, old: padded(stored.length), bytes: legacyLayerName(name) });
    }
    at = end;
  }
  if (edits.length === 0) return skeleton;

  const growth = edits.reduce((n, e) => n + padded(e.bytes.length) - e.old, 0);
  const out = new Uint8Array(skeleton.length + growth);
  const outView = new DataView(out.buffer);
  const setSize = (to: number, n: number): void => {
    if (large) outView.setBigUint64(to, BigInt(n));
    else outView.setUint32(to, n);
  };
  let from = 0;
  let to = 0;
  let shift = 0;
  for (const e of edits) {
    out.set(skeleton.subarray(from, e.name), to);
    to += e.name - from;
    const fresh = padded(e.bytes.length);
    out[to] = e.bytes.length;
    out.set(e.bytes, to + 1); // the rest of `fresh` is already zero
    // The record's extra data length sits before its name, already copied: moved by the edits before it.
    outView.setUint32(e.extra + shift, view.getUint32(e.extra) + fresh - e.old);
    to += fresh;
    from = e.name + e.old;
    shift += fresh - e.old;
  }
  out.set(skeleton.subarray(from), to);
  setSize(section, size(section) + growth);
  setSize(info, size(info) + growth);
  return out;
}

/**
 * The names a file stores only as legacy Pascal strings (no `luni` block), read in the encoding they were
 * written in: keyed by the Latin-1 reading ag-psd gives them. Photoshop always writes `luni`; files without it
 * come from other programs — ImageMagick writes its labels there in UTF-8 — or from an old Photoshop on a
 * Chinese system, in GBK. UTF-8 is tried first (a valid multi-byte sequence is hardly ever chance), then GBK;
 * a name that is neither stays as read. A name with a `luni` block is never touched (Latin-1 `Ébauche` would
 * read as GBK too), which is why the records are walked here rather than every name guessed at.
 * A structure this walk does not expect gives no readings: the names then stay as ag-psd read them.
 */
export function legacyNameReadings(file: Uint8Array, large: boolean): Map<string, string> {
  const out = new Map<string, string>();
  try {
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const lengthSize = large ? 8 : 4;
    let at = 26;
    at += 4 + view.getUint32(at); // colour mode data
    at += 4 + view.getUint32(at); // image resources
    at += lengthSize; // layer and mask section length
    const infoLength = large ? Number(view.getBigUint64(at)) : view.getUint32(at);
    at += lengthSize;
    if (infoLength === 0) return out;
    const count = Math.abs(view.getInt16(at));
    at += 2;
    const utf8 = new TextDecoder('utf-8', { fatal: true });
    let gbkDecoder: InstanceType<typeof TextDecoder> | null = null;
    try {
      gbkDecoder = new TextDecoder('gbk', { fatal: true });
    } catch {
      // A Node built without full ICU: UTF-8 only.
    }
    for (let i = 0; i < count; i++) {
      at += 16; // bounds
      at += 2 + view.getUint16(at) * (2 + lengthSize); // channel ids and lengths
      at += 12; // blend signature and key, opacity, clipping, flags, filler
      const end = at + 4 + view.getUint32(at);
      let p = at + 4;
      p += 4 + view.getUint32(p); // layer mask data
      p += 4 + view.getUint32(p); // blending ranges
      const stored = file.subarray(p + 1, p + 1 + file[p]!);
      at = end;
      if (!stored.some((b) => b >= 0x80) || hasUnicodeName(file, p + padded(stored.length), end)) continue;
      const read = String.fromCharCode(...stored);
      const decoded = decodeOr(utf8, stored) ?? (gbkDecoder && decodeOr(gbkDecoder, stored));
      if (decoded) out.set(read, decoded);
    }
  } catch {
    return new Map();
  }
  return out;
}

function decodeOr(decoder: InstanceType<typeof TextDecoder>, bytes: Uint8Array): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** Whether the additional layer information between `from` and `end` holds a `luni` block. */
function hasUnicodeName(file: Uint8Array, from: number, end: number): boolean {
  const key = [0x6c, 0x75, 0x6e, 0x69]; // luni
  for (let p = from; p + 8 <= end; p++) {
    if (file[p] !== 0x38 || file[p + 1] !== 0x42) continue; // 8B(IM|64)
    if (key.every((b, k) => file[p + 4 + k] === b)) return true;
  }
  return false;
}
