/**
 * ICC profiles whose RGB → PCS transform is a lookup table (lut16Type A2B0, v2) instead of colorants and tone
 * curves, as scanner, camera and many measured display profiles are: nothing under /usr/share/color/icc is one.
 * The table holds XYZ = M · curve(rgb) on a 9-point grid, which trilinear interpolation reproduces exactly, so
 * LittleCMS (ImageMagick's, sharp's) reads the profile as the matrix/TRC profile it imitates — but only through
 * the table: it has no rXYZ/gXYZ/bXYZ colorants to read.
 */

/** The colorants (rXYZ, gXYZ, bXYZ) of a matrix/TRC profile as a row-major matrix from linear RGB to XYZ. */
export function colorants(icc: Uint8Array): number[] {
  const view = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const count = view.getUint32(128);
  const columns: number[][] = [];
  for (const sig of ['rXYZ', 'gXYZ', 'bXYZ']) {
    for (let i = 0; i < count; i++) {
      const at = 132 + i * 12;
      if (String.fromCharCode(...icc.subarray(at, at + 4)) !== sig) continue;
      const offset = view.getUint32(at + 4);
      columns.push([0, 1, 2].map((k) => view.getInt32(offset + 8 + k * 4) / 65536));
    }
  }
  if (columns.length !== 3) throw new Error('not a matrix/TRC profile');
  return [0, 1, 2].flatMap((row) => columns.map((c) => c[row]!));
}

class Writer {
  private readonly parts: Buffer[] = [];
  u8(v: number): this {
    return this.push(Buffer.from([v]));
  }
  u16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(v);
    return this.push(b);
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    return this.push(b);
  }
  s15(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(Math.round(v * 65536));
    return this.push(b);
  }
  str(s: string): this {
    return this.push(Buffer.from(s, 'latin1'));
  }
  push(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const GRID = 9;

/**
 * A LUT-based RGB profile named `name`: device RGB through `gamma` (1: linear) and the matrix `m` (linear RGB →
 * XYZ, D50, row-major) to the XYZ connection space.
 */
export function lutProfile(name: string, m: readonly number[], gamma: number): Buffer {
  const curve = (n: number) =>
    Array.from({ length: n }, (_, i) => Math.round((i / (n - 1)) ** gamma * 65535));
  const entries = gamma === 1 ? 2 : 256;
  const lut = new Writer().str('mft2').u32(0).u8(3).u8(3).u8(GRID).u8(0);
  for (let i = 0; i < 9; i++) lut.s15(i % 4 === 0 ? 1 : 0); // identity: used only for XYZ input
  lut.u16(entries).u16(2);
  for (let c = 0; c < 3; c++) for (const v of curve(entries)) lut.u16(v);
  // Red varies slowest, then green, then blue; XYZ as u1Fixed15 (0x8000 is 1.0).
  for (let r = 0; r < GRID; r++)
    for (let g = 0; g < GRID; g++)
      for (let b = 0; b < GRID; b++) {
        const rgb = [r, g, b].map((v) => v / (GRID - 1));
        for (let row = 0; row < 3; row++) {
          const xyz = m[row * 3]! * rgb[0]! + m[row * 3 + 1]! * rgb[1]! + m[row * 3 + 2]! * rgb[2]!;
          lut.u16(Math.max(0, Math.min(65535, Math.round(xyz * 32768))));
        }
      }
  for (let c = 0; c < 3; c++) lut.u16(0).u16(65535);
  const desc = new Writer()
    .str('desc')
    .u32(0)
    .u32(name.length + 1)
    .str(name)
    .u8(0);
  desc.u32(0).u32(0).u16(0).u8(0).push(Buffer.alloc(67));
  const wtpt = new Writer().str('XYZ ').u32(0).s15(0.9642).s15(1).s15(0.8249);
  const tags: [string, Buffer][] = [
    ['desc', desc.done()],
    ['wtpt', wtpt.done()],
    ['A2B0', lut.done()],
  ];
  let offset = 128 + 4 + tags.length * 12;
  const table = new Writer().u32(tags.length);
  const data: Buffer[] = [];
  for (const [sig, body] of tags) {
    const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
    table.str(sig).u32(offset).u32(body.length);
    data.push(padded);
    offset += padded.length;
  }
  const header = new Writer()
    .u32(offset)
    .str('lcms')
    .u32(0x02100000) // version 2.1
    .str('mntr')
    .str('RGB ')
    .str('XYZ ')
    .push(Buffer.alloc(12)) // date
    .str('acsp')
    .push(Buffer.alloc(24)) // platform, flags, manufacturer, model, attributes
    .u32(0) // perceptual
    .s15(0.9642)
    .s15(1)
    .s15(0.8249)
    .push(Buffer.alloc(4 + 16 + 28)); // creator, id, reserved
  return Buffer.concat([header.done(), table.done(), ...data]);
}
