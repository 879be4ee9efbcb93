/**
 * The compositor's pixel kernels: a WebAssembly module built from `assembly/composite.ts` (SIMD, one pixel per
 * f32x4) into `dist/composite-kernels.wasm` by `npm run build`. Each thread that composites (the main thread,
 * the compositor's worker) instantiates its own copy, with its own memory, on first use.
 *
 * The kernels work only inside their module's memory: the compositor lays out its strips there (`Arena`) and
 * copies each source row in before blending it (a row is a few KiB; copying it costs a fraction of blending).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BlendMode } from '../model.js';
import { BLEND_MODES } from '../model.js';

// The part of the WebAssembly JS API used here: neither the ES2023 lib nor Node 20's types declare it.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
}

/** A row kernel: composites `n` straight RGBA8 pixels at address `src` onto the float accumulator at `acc`. */
export type BlendKernel = (acc: number, src: number, n: number, k: number, cov: number, atop: number) => void;

export interface Kernels {
  readonly memory: WebAssembly.Memory;
  /** The kernel for each blend mode. */
  readonly blend: Readonly<Record<BlendMode, BlendKernel>>;
  /** Writes `n` accumulator pixels at `acc` as straight RGBA8 at `out`. */
  readonly finish: (acc: number, out: number, n: number) => void;
  /** First free address of the module's memory. */
  readonly heapBase: number;
}

/** Where the build puts the module: `dist/` seen from both src/engine/composite and dist/engine/composite. */
const WASM_URL = new URL('../../../dist/composite-kernels.wasm', import.meta.url);

/** Modes with no kernel of their own. */
const SAME_AS: Partial<Record<BlendMode, BlendMode>> = {
  // Only groups pass through; on anything else it means nothing more than normal.
  'pass through': 'normal',
  // The compositor dithers the alpha to 0/1 first (see `dissolveCoverage`); what remains is normal.
  dissolve: 'normal',
};

/** 'color dodge' → 'colorDodge': the kernel's export name. */
function exportName(mode: BlendMode): string {
  return mode.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());
}

let loaded: Kernels | null = null;

/** This thread's kernels, instantiated on first use. */
export function kernels(): Kernels {
  loaded ??= instantiate();
  return loaded;
}

function instantiate(): Kernels {
  let bytes: Buffer;
  try {
    bytes = readFileSync(fileURLToPath(WASM_URL));
  } catch (err) {
    throw new Error(
      `the compositor's WebAssembly kernels are missing (${fileURLToPath(WASM_URL)}): run \`npm run build\``,
      { cause: err },
    );
  }
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
    env: {
      abort: () => {
        throw new Error('compositor kernel aborted');
      },
    },
  });
  const ex = instance.exports;
  const blend = {} as Record<BlendMode, BlendKernel>;
  for (const mode of BLEND_MODES) {
    const fn = ex[exportName(SAME_AS[mode] ?? mode)];
    if (typeof fn !== 'function') throw new Error(`compositor kernels: no kernel for blend mode "${mode}"`);
    blend[mode] = fn as BlendKernel;
  }
  return {
    memory: ex.memory as WebAssembly.Memory,
    blend,
    finish: ex.finish as Kernels['finish'],
    heapBase: (ex.heapBase as () => number)(),
  };
}

const PAGE = 65536;

/**
 * Lays out buffers in the kernels' memory for one render: `reserve` every size first, then `commit` grows
 * the memory once and hands out views. Views are valid until the next arena of this thread commits (a grow
 * detaches them), which is why a render takes all its buffers up front.
 */
export class Arena {
  private end: number;
  private readonly wanted: { bytes: number; offset: number }[] = [];

  constructor(readonly k: Kernels = kernels()) {
    this.end = k.heapBase;
  }

  /** Reserves `bytes` (16-byte aligned); returns a handle for `commit`. */
  reserve(bytes: number): number {
    this.wanted.push({ bytes, offset: this.end });
    this.end += (bytes + 15) & ~15;
    return this.wanted.length - 1;
  }

  /** Grows the memory to hold everything reserved. */
  commit(): void {
    const have = this.k.memory.buffer.byteLength;
    if (this.end > have) this.k.memory.grow(Math.ceil((this.end - have) / PAGE));
  }

  /** Address of reservation `handle`. */
  offset(handle: number): number {
    return this.wanted[handle]!.offset;
  }

  floats(handle: number): Float32Array {
    const w = this.wanted[handle]!;
    return new Float32Array(this.k.memory.buffer, w.offset, w.bytes >> 2);
  }

  bytes(handle: number): Uint8ClampedArray {
    const w = this.wanted[handle]!;
    return new Uint8ClampedArray(this.k.memory.buffer, w.offset, w.bytes);
  }
}
