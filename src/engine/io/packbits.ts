/**
 * PackBits (Apple TN1023), the RLE PSD and PSB files compress channel data with: each row of one channel is
 * packed on its own; a channel's data is its row byte counts (16-bit in PSD, 32-bit in PSB, big-endian) followed
 * by the packed rows. ag-psd's own encoder only takes RGBA-interleaved samples; CMYK layers have five channels.
 */

export interface PackedChannel {
  /** Packed bytes of each row. */
  readonly rowBytes: Uint32Array;
  /** The packed rows, one after another. */
  readonly data: Uint8Array;
}

/** The most bytes PackBits takes for a row of `w` samples (all literals: one header byte per 128). */
export function packedRowLimit(w: number): number {
  return w + Math.ceil(w / 128);
}

/**
 * Packs one channel of `w × h` interleaved samples: sample (x, y) is `src[(y * w + x) * stride + offset]`,
 * stored as `255 − sample` when `invert` (PSD keeps CMYK ink inverted). `scratch`, when given, must hold
 * `h × packedRowLimit(w)` bytes and is reused instead of allocating that much.
 */
export function packChannel(
  src: Uint8Array | Uint8ClampedArray,
  w: number,
  h: number,
  stride: number,
  offset: number,
  invert = false,
  scratch?: Uint8Array,
): PackedChannel {
  const out = scratch ?? new Uint8Array(h * packedRowLimit(w));
  const rowBytes = new Uint32Array(h);
  const flip = invert ? 255 : 0;
  const row = new Uint8Array(w);
  let o = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0, p = y * w * stride + offset; x < w; x++, p += stride) row[x] = src[p]! ^ flip;
    const n = packRow(row, w, out, o);
    rowBytes[y] = n;
    o += n;
  }
  return { rowBytes, data: out.slice(0, o) };
}

/**
 * Packs the first `w` samples of `row` into `out` at `at` (which must have `packedRowLimit(w)` bytes free there)
 * and returns the number of bytes written.
 */
export function packRow(row: Uint8Array, w: number, out: Uint8Array, at: number): number {
  let o = at;
  let i = 0;
  while (i < w) {
    // A run of three or more equal samples is worth a repeat packet; shorter ones join a literal.
    const v = row[i]!;
    let run = 1;
    while (i + run < w && run < 128 && row[i + run] === v) run++;
    if (run >= 3 || (run === 2 && i + 2 === w)) {
      out[o++] = 257 - run;
      out[o++] = v;
      i += run;
      continue;
    }
    const litStart = i;
    let n = 0;
    while (i < w && n < 128) {
      if (i + 2 < w && row[i] === row[i + 1] && row[i] === row[i + 2]) break;
      i++;
      n++;
    }
    out[o++] = n - 1;
    out.set(row.subarray(litStart, litStart + n), o);
    o += n;
  }
  return o - at;
}

/** Byte length of the row-count table of `rows` rows. */
const countsLength = (rows: number, large: boolean): number => rows * (large ? 4 : 2);

function writeCounts(target: Uint8Array, at: number, counts: Uint32Array, large: boolean): number {
  const view = new DataView(target.buffer, target.byteOffset, target.byteLength);
  for (const n of counts) {
    if (large) view.setUint32(at, n);
    else view.setUint16(at, n);
    at += large ? 4 : 2;
  }
  return at;
}

/** A layer channel's data as PSD stores it after its compression word: its row counts, then its rows. */
export function layerChannelBytes(c: PackedChannel, large: boolean): Uint8Array {
  const out = new Uint8Array(countsLength(c.rowBytes.length, large) + c.data.length);
  out.set(c.data, writeCounts(out, 0, c.rowBytes, large));
  return out;
}

/**
 * `packRow` of the `w` samples `src[start]`, `src[start + stride]`, …: one channel of interleaved pixels packed
 * without first copying it out.
 */
export function packStrided(
  src: Uint8Array | Uint8ClampedArray,
  start: number,
  stride: number,
  w: number,
  out: Uint8Array,
  at: number,
): number {
  let o = at;
  const end = start + w * stride;
  let p = start;
  while (p < end) {
    // A run of three or more equal samples is worth a repeat packet; shorter ones join a literal.
    const v = src[p]!;
    let q = p + stride;
    const runEnd = Math.min(end, p + 128 * stride);
    while (q < runEnd && src[q] === v) q += stride;
    const run = (q - p) / stride;
    if (run >= 3 || (run === 2 && q === end)) {
      out[o++] = 257 - run;
      out[o++] = v;
      p = q;
      continue;
    }
    const head = o++;
    let n = 0;
    while (p < end && n < 128) {
      const s = src[p]!;
      if (p + 2 * stride < end && s === src[p + stride] && s === src[p + 2 * stride]) break;
      out[o++] = s;
      p += stride;
      n++;
    }
    out[head] = n - 1;
  }
  return o - at;
}

/**
 * Walks packed rows as PSD stores them (`rows` byte counts, 16-bit in PSD and 32-bit in PSB, then the rows) and
 * checks that each row unpacks to exactly `rowBytes` bytes without running past its count, as psd-tools' decoder
 * does ("Invalid RLE compression"); ag-psd's decodes damaged rows to garbage without a word. Unpacks into `out`
 * (`rows × rowBytes` bytes) when given. Returns what is wrong (Chinese, for a message naming the layer), or
 * undefined. A flipped byte in a row count or a packet header is caught; one in a literal sample cannot be.
 */
export function checkPackedRows(
  data: Uint8Array,
  rows: number,
  rowBytes: number,
  large: boolean,
  out?: Uint8Array,
): string | undefined {
  const countSize = large ? 4 : 2;
  let at = rows * countSize;
  if (at > data.length) return `数据不完整（行长度表需要 ${at} 字节，只有 ${data.length} 字节）`;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let o = 0;
  for (let y = 0; y < rows; y++) {
    const count = large ? view.getUint32(y * 4) : view.getUint16(y * 2);
    const end = at + count;
    if (end > data.length) return `数据不完整（第 ${y + 1} 行超出了通道数据的末尾）`;
    let filled = 0;
    while (at < end) {
      const n = data[at++]!;
      if (n === 128) continue;
      const literal = n < 128;
      const length = literal ? n + 1 : 257 - n;
      if ((literal ? at + length : at + 1) > end || filled + length > rowBytes) {
        return `第 ${y + 1} 行的压缩数据无效（解压后超出该行的 ${rowBytes} 字节或该行的长度）`;
      }
      if (out) {
        if (literal) out.set(data.subarray(at, at + length), o + filled);
        else out.fill(data[at]!, o + filled, o + filled + length);
      }
      at += literal ? length : 1;
      filled += length;
    }
    if (filled !== rowBytes)
      return `第 ${y + 1} 行的压缩数据无效（解压后 ${filled} 字节，应为 ${rowBytes} 字节）`;
    o += rowBytes;
  }
  return undefined;
}
