/**
 * A session's state (every document with its whole history, the garment memory) as a file: the object graph as
 * JSON with every shared object written once, and every pixel buffer as a file of its own.
 *
 * Identity is part of the state, not an accident of it: a document is unsaved when its current state is not
 * the very object it was saved as, history steps share the layers they did not change, and a garment analysis
 * is stale when the layer no longer holds the raster it measured. So the graph is written with references,
 * and read back into the same shape of sharing. Buffers are immutable once committed, so a buffer already
 * written by an earlier snapshot is named again instead of written again: a snapshot costs the pixels that
 * changed since the previous one.
 */
import { allocPixels } from '../engine/raster.js';

/** A pixel buffer the graph refers to: written once, under `name`, in the snapshot's buffer folder. */
export interface BufferRef {
  readonly name: string;
  readonly byteLength: number;
  /** Shared memory (the compositor's workers read it in place) or an ordinary ArrayBuffer. */
  readonly shared: boolean;
}

export interface EncodedState {
  /** JSON text of the graph. */
  readonly json: string;
  /** Buffers the graph names that were not written before: the caller writes them, then calls `persisted`. */
  readonly fresh: readonly { readonly name: string; readonly bytes: Uint8Array }[];
}

type Encoded = null | boolean | number | string | EncodedNode;
type EncodedNode =
  | ['ref', number]
  | ['obj', number, Record<string, Encoded>]
  | ['arr', number, Encoded[]]
  | ['map', number, [Encoded, Encoded][]]
  | ['set', number, Encoded[]]
  | ['view', number, ViewType, string, number, number]
  | ['num', 'NaN' | 'Infinity' | '-Infinity' | '-0']
  | ['undef'];

const VIEW_TYPES = {
  Uint8Array,
  Uint8ClampedArray,
  Int8Array,
  Uint16Array,
  Int16Array,
  Uint32Array,
  Int32Array,
  Float32Array,
  Float64Array,
} as const;
type ViewType = keyof typeof VIEW_TYPES;

function viewTypeOf(value: ArrayBufferView): ViewType | undefined {
  for (const [name, ctor] of Object.entries(VIEW_TYPES)) {
    if (value instanceof ctor) return name as ViewType;
  }
  return undefined;
}

export class StateCodecError extends Error {}

/**
 * Names for buffers already on disk. A snapshot lists a buffer's name only once its file is durable
 * (`persisted`), so a buffer whose write failed is written again by the next snapshot.
 */
export class BufferNames {
  private readonly names = new WeakMap<ArrayBufferLike, string>();
  private readonly onDisk = new Set<string>();
  private seq = 0;

  constructor(private readonly prefix: string) {}

  known(buffer: ArrayBufferLike): string | undefined {
    const name = this.names.get(buffer);
    return name !== undefined && this.onDisk.has(name) ? name : undefined;
  }

  /** The file `name` was removed: a buffer that had it is written again when a snapshot needs it. */
  forget(name: string): void {
    this.onDisk.delete(name);
  }

  fresh(): string {
    return `${this.prefix}-${(++this.seq).toString(36)}`;
  }

  persisted(buffer: ArrayBufferLike, name: string): void {
    this.names.set(buffer, name);
    this.onDisk.add(name);
  }
}

/**
 * Encodes `root`: plain objects, arrays, Maps, Sets, typed arrays and primitives. Anything else (a class
 * instance, a function) is refused: it would not come back as it was, and a snapshot that silently lost part
 * of a session would be worse than none.
 */
export function encodeState(
  root: unknown,
  names: BufferNames,
): EncodedState & { refs: Map<ArrayBufferLike, BufferRef> } {
  const ids = new Map<object, number>();
  const refs = new Map<ArrayBufferLike, BufferRef>();
  const fresh: { name: string; bytes: Uint8Array }[] = [];

  const bufferRef = (buffer: ArrayBufferLike): BufferRef => {
    let ref = refs.get(buffer);
    if (ref) return ref;
    const known = names.known(buffer);
    const name = known ?? names.fresh();
    ref = { name, byteLength: buffer.byteLength, shared: buffer instanceof SharedArrayBuffer };
    refs.set(buffer, ref);
    if (!known) fresh.push({ name, bytes: new Uint8Array(buffer, 0, buffer.byteLength) });
    return ref;
  };

  const encode = (value: unknown, where: string): Encoded => {
    if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
    if (value === undefined) return ['undef'];
    if (typeof value === 'number') {
      if (Number.isNaN(value)) return ['num', 'NaN'];
      if (value === Number.POSITIVE_INFINITY) return ['num', 'Infinity'];
      if (value === Number.NEGATIVE_INFINITY) return ['num', '-Infinity'];
      if (Object.is(value, -0)) return ['num', '-0'];
      return value;
    }
    if (typeof value !== 'object') throw new StateCodecError(`cannot snapshot a ${typeof value} at ${where}`);
    const seen = ids.get(value);
    if (seen !== undefined) return ['ref', seen];
    const id = ids.size;
    ids.set(value, id);
    if (ArrayBuffer.isView(value)) {
      const type = viewTypeOf(value);
      if (!type) throw new StateCodecError(`cannot snapshot a ${value.constructor.name} at ${where}`);
      const ref = bufferRef(value.buffer);
      const length = (value as unknown as { length: number }).length;
      return ['view', id, type, ref.name, value.byteOffset, length];
    }
    if (Array.isArray(value)) return ['arr', id, value.map((v, i) => encode(v, `${where}[${i}]`))];
    if (value instanceof Map) {
      return [
        'map',
        id,
        [...value].map(([k, v]) => [encode(k, `${where} key`), encode(v, `${where}.get()`)]),
      ];
    }
    if (value instanceof Set) return ['set', id, [...value].map((v) => encode(v, `${where} member`))];
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new StateCodecError(
        `cannot snapshot a ${value.constructor?.name ?? 'class instance'} at ${where}`,
      );
    }
    const out: Record<string, Encoded> = {};
    for (const key of Object.keys(value)) {
      out[key] = encode((value as Record<string, unknown>)[key], `${where}.${key}`);
    }
    return ['obj', id, out];
  };

  const graph = encode(root, '$');
  const buffers = [...refs.values()];
  return { json: JSON.stringify({ buffers, graph }), fresh, refs };
}

/**
 * Decodes what `encodeState` wrote. `load(name)` gives a buffer file's bytes; shared buffers come back in shared
 * memory, as `allocPixels` makes them, so the compositor's workers read them without a copy.
 */
export function decodeState(
  json: string,
  load: (ref: BufferRef) => Uint8Array,
  names?: BufferNames,
): unknown {
  const { buffers, graph } = JSON.parse(json) as { buffers: BufferRef[]; graph: Encoded };
  const byName = new Map<string, ArrayBufferLike>();
  for (const ref of buffers) {
    const bytes = load(ref);
    if (bytes.byteLength !== ref.byteLength) {
      throw new StateCodecError(`buffer ${ref.name} holds ${bytes.byteLength} bytes, not ${ref.byteLength}`);
    }
    const target = ref.shared ? allocPixels(ref.byteLength) : new Uint8ClampedArray(ref.byteLength);
    target.set(bytes);
    byName.set(ref.name, target.buffer);
    names?.persisted(target.buffer, ref.name);
  }
  const objects: unknown[] = [];

  const decode = (node: Encoded): unknown => {
    if (!Array.isArray(node)) return node;
    switch (node[0]) {
      case 'undef':
        return undefined;
      case 'num':
        return node[1] === '-0' ? -0 : Number(node[1]);
      case 'ref':
        if (node[1] >= objects.length) throw new StateCodecError(`dangling reference ${node[1]}`);
        return objects[node[1]];
      case 'view': {
        const [, id, type, name, offset, length] = node;
        const buffer = byName.get(name);
        const ctor = VIEW_TYPES[type];
        if (!buffer || !ctor) throw new StateCodecError(`unknown buffer ${name} or view type ${type}`);
        objects[id] = new ctor(buffer as ArrayBuffer, offset, length);
        return objects[id];
      }
      case 'arr': {
        const out: unknown[] = [];
        objects[node[1]] = out;
        for (const item of node[2]) out.push(decode(item));
        return out;
      }
      case 'map': {
        const out = new Map<unknown, unknown>();
        objects[node[1]] = out;
        for (const [k, v] of node[2]) out.set(decode(k), decode(v));
        return out;
      }
      case 'set': {
        const out = new Set<unknown>();
        objects[node[1]] = out;
        for (const v of node[2]) out.add(decode(v));
        return out;
      }
      case 'obj': {
        const out: Record<string, unknown> = {};
        objects[node[1]] = out;
        for (const [k, v] of Object.entries(node[2])) out[k] = decode(v);
        return out;
      }
      default:
        throw new StateCodecError(`unknown node ${JSON.stringify(node).slice(0, 40)}`);
    }
  };
  return decode(graph);
}
