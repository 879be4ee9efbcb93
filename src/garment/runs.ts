/**
 * Connected components of a mask read row by row, as runs of set pixels joined with union-find: the memory is a
 * few integers a run rather than a label a pixel, and each row's runs meet only the runs above them (split.ts
 * labels 60 Mpx markers this way; image.ts's `components` is built on it).
 */

/** A growable list of integers (a stack or a queue), for walks whose length is not known ahead. */
export class IntList {
  a = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length++] = v;
  }
  pop(): number {
    return this.a[--this.length]!;
  }
}

export interface RunComponent {
  readonly area: number;
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  /** Its first run (top row, leftmost); `next` chains the others in reading order, -1 ends. */
  readonly first: number;
}

export interface Runs {
  readonly y: Int32Array;
  readonly x0: Int32Array;
  /** Last pixel of the run (inclusive). */
  readonly x1: Int32Array;
  readonly next: Int32Array;
  readonly comps: RunComponent[];
}

/**
 * Connected components of the set pixels of a `w` × `h` mask given row by row (`row` fills a reused buffer),
 * as runs joined with union-find: 8-connected when `diagonal`, else 4-connected. Components come in the order
 * of their first pixel.
 */
export function labelRuns(
  w: number,
  h: number,
  row: (y: number, out: Uint8Array) => void,
  diagonal: boolean,
): Runs {
  const buf = new Uint8Array(w);
  let ys = new IntList();
  let xs0 = new IntList();
  let xs1 = new IntList();
  const parent = new IntList();
  const find = (r: number): number => {
    const p = parent.a;
    while (p[r] !== r) {
      p[r] = p[p[r]!]!;
      r = p[r]!;
    }
    return r;
  };
  const reach = diagonal ? 1 : 0;
  let prevStart = 0;
  let prevEnd = 0;
  for (let y = 0; y < h; y++) {
    row(y, buf);
    const start = xs0.length;
    let j = prevStart;
    for (let x = 0; x < w; x++) {
      if (!buf[x]) continue;
      const a0 = x;
      while (x + 1 < w && buf[x + 1]) x++;
      const r = xs0.length;
      ys.push(y);
      xs0.push(a0);
      xs1.push(x);
      parent.push(r);
      while (j < prevEnd && xs1.a[j]! < a0 - reach) j++;
      for (let k = j; k < prevEnd && xs0.a[k]! <= x + reach; k++) {
        const ra = find(r);
        const rb = find(k);
        // The older root stays root, so a component's root is its first run.
        if (ra !== rb) parent.a[Math.max(ra, rb)] = Math.min(ra, rb);
      }
    }
    prevStart = start;
    prevEnd = xs0.length;
  }
  const count = xs0.length;
  const next = new Int32Array(count).fill(-1);
  const last = new Int32Array(count).fill(-1);
  const index = new Int32Array(count).fill(-1);
  const comps: { area: number; x0: number; y0: number; x1: number; y1: number; first: number }[] = [];
  for (let r = 0; r < count; r++) {
    const root = find(r);
    const y = ys.a[r]!;
    const a0 = xs0.a[r]!;
    const a1 = xs1.a[r]!;
    if (root === r) {
      index[r] = comps.length;
      comps.push({ area: 0, x0: a0, y0: y, x1: a1, y1: y, first: r });
    } else {
      next[last[root]!] = r;
    }
    last[root] = r;
    const c = comps[index[root]!]!;
    c.area += a1 - a0 + 1;
    if (a0 < c.x0) c.x0 = a0;
    if (a1 > c.x1) c.x1 = a1;
    c.y1 = y;
  }
  const out = {
    y: ys.a.subarray(0, count),
    x0: xs0.a.subarray(0, count),
    x1: xs1.a.subarray(0, count),
    next,
    comps,
  };
  ys = xs0 = xs1 = new IntList();
  return out;
}
