/**
 * `toEqual` on typed arrays by their bytes. Vitest compares a typed array element by element through its generic
 * equality, about 7 µs an element: half a minute for a 1280 px photo's RGBA, most of some tests' time on a loaded
 * machine. Equal bytes are equal arrays; different bytes are different integer arrays. A float array whose bytes
 * differ is left to vitest, for NaNs of different payloads.
 */
import { expect } from 'vitest';

const INTEGER_KINDS = new Set([
  '[object Uint8Array]',
  '[object Uint8ClampedArray]',
  '[object Int8Array]',
  '[object Uint16Array]',
  '[object Int16Array]',
  '[object Uint32Array]',
  '[object Int32Array]',
  '[object BigInt64Array]',
  '[object BigUint64Array]',
]);

function typedArraysEqual(a: unknown, b: unknown): boolean | undefined {
  if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a instanceof DataView || b instanceof DataView) {
    return undefined;
  }
  const kind = Object.prototype.toString.call(a);
  if (kind !== Object.prototype.toString.call(b)) return undefined;
  if (a.byteLength === b.byteLength) {
    const same = Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    );
    if (same) return true;
  }
  return INTEGER_KINDS.has(kind) ? false : undefined;
}

expect.addEqualityTesters([typedArraysEqual]);
