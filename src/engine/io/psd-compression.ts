/**
 * Finds the layer channel whose compression word is not one PSD defines (0 raw, 1 RLE, 2 ZIP, 3 ZIP with
 * prediction), walking the layer records (their channel tables, then the channels one after the other) without
 * decoding anything. Run before ag-psd reads the file: ag-psd refuses such a channel with "Invalid compression: N"
 * and nothing to say which layer it was in — or, when the word one byte later is 0–3, reads the channel from
 * there, shifted, as if nothing were wrong.
 */
import { largeAdditionalInfoKeys } from 'ag-psd/dist/helpers.js';
import {
  createReader,
  readInt16,
  readPascalString,
  readSignature,
  readUint16,
  readUint32,
  readUnicodeStringWithLength,
} from 'ag-psd/dist/psdReader.js';

export interface InvalidCompression {
  /** The layer's name (its Unicode name when it has one, as ag-psd reads it). */
  readonly layer: string;
  /** The channel id: -2 the mask, -1 transparency, 0… the colour channels. */
  readonly channel: number;
  readonly code: number;
}

type Reader = ReturnType<typeof createReader>;

const LUNI = Buffer.from('8BIMluni', 'latin1');

/** The first layer channel of `buf` (a PSD or PSB) with a compression word above 3, if the file's structure leads to one. */
export function invalidCompression(buf: Uint8Array): InvalidCompression | undefined {
  try {
    const r = createReader(buf.buffer as ArrayBuffer, buf.byteOffset, buf.byteLength);
    const large = buf[5] === 2;
    const length = () => (large ? readUint32(r) * 2 ** 32 + readUint32(r) : readUint32(r));
    r.offset = 26;
    skipBlock(r); // colour mode data
    skipBlock(r); // image resources
    const sectionEnd = length() + r.offset;
    const infoLength = length();
    const infoEnd = r.offset + infoLength;
    if (infoLength > 0) {
      const found = scanLayerInfo(r, buf, large, infoEnd);
      if (found) return found;
    }
    // 16- and 32-bit files keep their layers in an Lr16 or Lr32 block after the global layer mask info.
    r.offset = infoEnd;
    if (r.offset + 4 > sectionEnd) return undefined;
    skipBlock(r); // global layer mask info
    while (r.offset + 12 <= sectionEnd) {
      // Blocks are padded to 2 bytes by the format and to 4 by Photoshop; ag-psd realigns on the signature too.
      while (r.offset + 12 <= sectionEnd && !isSignatureAt(buf, r.offset)) r.offset++;
      const signature = readSignature(r);
      const key = readSignature(r);
      if (signature !== '8BIM' && signature !== '8B64') return undefined;
      const long = signature === '8B64' || (large && largeAdditionalInfoKeys.includes(key));
      const n = long ? readUint32(r) * 2 ** 32 + readUint32(r) : readUint32(r);
      const end = r.offset + n;
      if (key === 'Lr16' || key === 'Lr32' || key === 'Layr') return scanLayerInfo(r, buf, large, end);
      r.offset = end;
    }
  } catch {
    // A structure too damaged to walk: the caller keeps ag-psd's message.
  }
  return undefined;
}

/** Skips a block given by its 4-byte length. */
function skipBlock(r: Reader): void {
  const n = readUint32(r);
  r.offset += n;
}

function isSignatureAt(buf: Uint8Array, at: number): boolean {
  const s = String.fromCharCode(buf[at]!, buf[at + 1]!, buf[at + 2]!, buf[at + 3]!);
  return s === '8BIM' || s === '8B64';
}

/** The layer info structure at `r` (its layer count first), up to `end`. */
function scanLayerInfo(
  r: Reader,
  buf: Uint8Array,
  large: boolean,
  end: number,
): InvalidCompression | undefined {
  const count = Math.abs(readInt16(r));
  const records: { name: string; channels: { id: number; length: number }[] }[] = [];
  for (let i = 0; i < count; i++) {
    r.offset += 16; // rectangle
    const channels = Array.from({ length: readUint16(r) }, () => ({
      id: readInt16(r),
      length: large ? readUint32(r) * 2 ** 32 + readUint32(r) : readUint32(r),
    }));
    r.offset += 12; // signature, blend mode, opacity, clipping, flags, filler
    const extraLength = readUint32(r);
    const extraEnd = r.offset + extraLength;
    skipBlock(r); // mask data
    skipBlock(r); // blending ranges
    let name = readPascalString(r, 1);
    const luni = Buffer.from(buf.buffer, buf.byteOffset + r.offset, Math.max(0, extraEnd - r.offset)).indexOf(
      LUNI,
    );
    if (luni >= 0) {
      r.offset += luni + LUNI.length + 4; // its block length
      name = readUnicodeStringWithLength(r, readUint32(r));
    }
    records.push({ name, channels });
    r.offset = extraEnd;
  }
  for (const { name, channels } of records) {
    for (const c of channels) {
      if (r.offset + c.length > end) return undefined;
      if (c.length >= 2) {
        const code = (buf[r.offset]! << 8) | buf[r.offset + 1]!;
        if (code > 3) return { layer: name, channel: c.id, code };
      }
      r.offset += c.length;
    }
  }
  return undefined;
}
