/** The suite's typed-array equality (support/typed-array-equality.ts) still tells different arrays apart. */
import { describe, expect, it } from 'vitest';

describe('toEqual on typed arrays, by their bytes', () => {
  it('equal for the same bytes, deep inside objects too', () => {
    const big = new Uint8ClampedArray(4 << 20).map((_, i) => i * 7);
    expect({ photo: { data: big } }).toEqual({ photo: { data: big.slice() } });
    expect(new Float32Array([Number.NaN, 1])).toEqual(new Float32Array([Number.NaN, 1]));
  });

  it('different for one byte, a length, a kind or a signed zero', () => {
    const a = new Uint8Array(1 << 20).fill(3);
    const b = a.slice();
    b[b.length - 1] = 4;
    expect(a).not.toEqual(b);
    expect(a).not.toEqual(a.subarray(1));
    expect(new Uint8Array([1, 2])).not.toEqual(new Int8Array([1, 2]));
    expect(new Float64Array([0])).not.toEqual(new Float64Array([-0]));
    expect({ inside: a }).not.toEqual({ inside: b });
  });
});
