import { describe, expect, it } from 'vitest';
import { allocPixels } from '../../src/engine/raster.js';
import { BufferNames, decodeState, encodeState, StateCodecError } from '../../src/service/state-codec.js';

function roundTrip(root: unknown, names = new BufferNames('t')): unknown {
  const encoded = encodeState(root, names);
  const files = new Map(encoded.fresh.map((f) => [f.name, Uint8Array.from(f.bytes)]));
  return decodeState(encoded.json, (ref) => files.get(ref.name)!);
}

describe('state codec', () => {
  it('keeps sharing: one object reached twice comes back as one object', () => {
    const raster = { x: 1, y: 2, w: 1, h: 1, data: allocPixels(4) };
    raster.data.set([1, 2, 3, 4]);
    const layer = { id: 3, raster };
    const root = { a: new Map([[3, layer]]), b: [layer], memo: { raster } };
    const back = roundTrip(root) as typeof root;
    expect(back.a.get(3)).toBe(back.b[0]);
    expect(back.memo.raster).toBe(back.b[0]!.raster);
    expect([...back.memo.raster.data]).toEqual([1, 2, 3, 4]);
    expect(back.memo.raster.data.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('writes one buffer once for several views, and views at their offsets', () => {
    const data = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]);
    const root = { head: data.subarray(0, 4), tail: data.subarray(4), f: new Float32Array([0.5, -2]) };
    const encoded = encodeState(root, new BufferNames('t'));
    expect(encoded.fresh).toHaveLength(2);
    const back = roundTrip(root) as typeof root;
    expect([...back.tail]).toEqual([4, 5, 6, 7]);
    expect(back.head.buffer).toBe(back.tail.buffer);
    expect([...back.f]).toEqual([0.5, -2]);
    expect(back.head.buffer).not.toBeInstanceOf(SharedArrayBuffer);
  });

  it('does not write again a buffer an earlier snapshot wrote', () => {
    const names = new BufferNames('t');
    const kept = allocPixels(8);
    const first = encodeState({ kept }, names);
    for (const [buffer, ref] of first.refs) names.persisted(buffer, ref.name);
    const second = encodeState({ kept, added: allocPixels(4) }, names);
    expect(second.fresh.map((f) => f.bytes.byteLength)).toEqual([4]);
    names.forget(first.fresh[0]!.name);
    expect(encodeState({ kept }, names).fresh).toHaveLength(1);
  });

  it('keeps numbers JSON cannot hold, undefined, Sets and cycles', () => {
    const cyclic: Record<string, unknown> = { n: Number.NaN, inf: -Infinity, z: -0, u: undefined };
    cyclic.self = cyclic;
    cyclic.set = new Set(['a', 1]);
    const back = roundTrip(cyclic) as Record<string, unknown>;
    expect(back.self).toBe(back);
    expect(back.n).toBeNaN();
    expect(back.inf).toBe(-Infinity);
    expect(Object.is(back.z, -0)).toBe(true);
    expect('u' in back && back.u === undefined).toBe(true);
    expect([...(back.set as Set<unknown>)]).toEqual(['a', 1]);
  });

  it('refuses what would not come back as it was', () => {
    class Thing {}
    expect(() => encodeState({ deep: [new Thing()] }, new BufferNames('t'))).toThrow(StateCodecError);
    expect(() => encodeState({ f: () => 1 }, new BufferNames('t'))).toThrow(/function at \$\.f/);
  });
});
