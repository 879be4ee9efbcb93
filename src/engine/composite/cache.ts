/**
 * The composite cache: keeps the last document state and its full-canvas composite, and on a new state
 * re-renders only the rectangle that can differ.
 *
 * States are immutable and share every unchanged layer object, so a layer changed exactly when its object
 * differs. The dirty rectangle is the union, over changed, added and removed layers, of their footprint in
 * the old and in the new state (a group's footprint covers its children), plus the clipped layers resting on
 * a changed layer, whose visibility follows their base. Canvas size, colour mode and fill layers (which
 * cover the canvas) dirty everything.
 *
 * Two ways to ask. `render` hands out an immutable raster: once it has, the next change copies the
 * composite before re-rendering the dirty rectangle into the copy, so the raster handed out is never written
 * again. `peek` lends the composite for reading during the current call only; while nothing has been handed
 * out, the next change re-renders the dirty rectangle in place, so a 9000 × 18000 document holds one
 * composite (648 MB), not two.
 */
import type { DocState, Layer, Raster, Rect } from '../model.js';
import { allocPixels, copyPixels, EMPTY_RECT, intersectRect, isEmptyRect, unionRect } from '../raster.js';
import { canvasRect, layerExtent } from './bounds.js';
import { renderInto } from './compositor.js';
import { hasEffects } from './effects.js';

export interface CacheStats {
  /** Renders that ran the compositor at all. */
  readonly renders: number;
  /** Of those, how many covered the whole canvas. */
  readonly fullRenders: number;
  /** The rectangle the last call re-rendered (empty when it returned the previous composite). */
  readonly lastDirty: Rect;
}

export class CompositeCache {
  private state: DocState | null = null;
  private composite: Raster | null = null;
  private renders = 0;
  private fullRenders = 0;
  private lastDirty: Rect = EMPTY_RECT;
  /** Whether the current composite was handed out by `render` (and so must never be written again). */
  private handedOut = false;

  /** The full-canvas composite of `state`, immutable: callers may keep it like any other raster. */
  render(state: DocState): Raster {
    const out = this.update(state);
    this.handedOut = true;
    return out;
  }

  /**
   * The full-canvas composite of `state`, lent for reading until the next `render` or `peek` of this cache
   * (in practice: within the current tool call). Never store it or put it into a layer.
   */
  peek(state: DocState): Raster {
    return this.update(state);
  }

  private update(state: DocState): Raster {
    const prev = this.state;
    const prevComposite = this.composite;
    const canvas = canvasRect(state);
    let out: Raster;
    if (!prev || !prevComposite) {
      out = this.full(state, canvas);
    } else if (prev === state) {
      this.lastDirty = EMPTY_RECT;
      out = prevComposite;
    } else {
      const dirty = dirtyRect(prev, state);
      if (dirty === 'all') {
        out = this.full(state, canvas);
      } else {
        const r = intersectRect(dirty, canvas);
        this.lastDirty = r;
        if (isEmptyRect(r)) {
          out = prevComposite;
        } else {
          // In shared memory (not `slice()`), so that the compositor's worker can write into it too.
          const data = this.handedOut ? copyPixels(prevComposite.data) : prevComposite.data;
          renderInto(state, r, data, canvas.w, r.x, r.y);
          this.renders++;
          out = { ...canvas, data };
        }
      }
    }
    if (out !== prevComposite) this.handedOut = false;
    this.state = state;
    this.composite = out;
    return out;
  }

  /** The composite it keeps, or null before the first render (what it costs in memory). */
  get held(): Raster | null {
    return this.composite;
  }

  get stats(): CacheStats {
    return { renders: this.renders, fullRenders: this.fullRenders, lastDirty: this.lastDirty };
  }

  /** Forgets the cached composite (the next render is a full one). */
  clear(): void {
    this.state = null;
    this.composite = null;
    this.handedOut = false;
  }

  private full(state: DocState, canvas: Rect): Raster {
    const data = allocPixels(canvas.w * canvas.h * 4);
    renderInto(state, canvas, data, canvas.w, 0, 0);
    this.renders++;
    this.fullRenders++;
    this.lastDirty = canvas;
    return { ...canvas, data };
  }
}

/**
 * Whether a change to `layer` can show anywhere on the canvas: a fill layer covers it, and an adjustment layer
 * (alone or in a group) changes whatever lies below it, which its own extent does not bound.
 */
function everywhere(state: DocState, layer: Layer): boolean {
  if (layer.kind === 'fill' || layer.kind === 'adjustment') return true;
  if (layer.kind !== 'group') return false;
  return layer.children.some((id) => {
    const child = state.layers.get(id);
    return child !== undefined && everywhere(state, child);
  });
}

/** The area where the composites of `a` and `b` may differ, or `all`. */
export function dirtyRect(a: DocState, b: DocState): Rect | 'all' {
  if (a.width !== b.width || a.height !== b.height || a.mode !== b.mode) return 'all';
  let dirty = EMPTY_RECT;
  const touch = (state: DocState, id: number): void => {
    const layer = state.layers.get(id);
    if (layer) dirty = unionRect(dirty, layerExtent(state, layer));
    // A styled group's effects follow its content: a change inside it can move them anywhere they reach.
    for (let g = groupOf(state).get(id); g !== undefined; g = groupOf(state).get(g)) {
      const group = state.layers.get(g);
      if (group && hasEffects(group)) dirty = unionRect(dirty, layerExtent(state, group));
    }
  };
  const touchWithClipped = (state: DocState, id: number): void => {
    touch(state, id);
    for (const above of clippedAbove(state, id)) touch(state, above);
  };

  if (a.layers !== b.layers) {
    for (const [id, la] of a.layers) {
      const lb = b.layers.get(id);
      if (la === lb) continue;
      if (everywhere(a, la) || (lb && everywhere(b, lb))) return 'all';
      touchWithClipped(a, id);
      touchWithClipped(b, id);
    }
    for (const [id, lb] of b.layers) {
      if (a.layers.has(id)) continue;
      if (everywhere(b, lb)) return 'all';
      touchWithClipped(b, id);
    }
  }
  // The top-level order lives in the state itself; groups carry theirs, so a group's reorder already shows
  // up as a changed group. Anything whose position moved is dirty, with what clips to it.
  if (a.root !== b.root) {
    const n = Math.max(a.root.length, b.root.length);
    for (let i = 0; i < n; i++) {
      const ia = a.root[i];
      const ib = b.root[i];
      if (ia === ib) continue;
      for (const [state, id] of [
        [a, ia],
        [b, ib],
      ] as const) {
        if (id === undefined) continue;
        const layer = state.layers.get(id);
        if (layer && everywhere(state, layer)) return 'all';
        touchWithClipped(state, id);
      }
    }
  }
  return dirty;
}

/** The ids of the run of clipped layers directly above `id` in its parent: they clip to it (or through it). */
function clippedAbove(state: DocState, id: number): number[] {
  const siblings = parentList(state).get(id);
  if (!siblings) return [];
  const out: number[] = [];
  for (let i = siblings.indexOf(id) + 1; i < siblings.length; i++) {
    const sib = siblings[i]!;
    const layer: Layer | undefined = state.layers.get(sib);
    if (!layer?.clipped) break;
    out.push(sib);
  }
  return out;
}

/** For each layer id, the child list (root or a group's children) that holds it. Memoised per layer map. */
const parents = new WeakMap<DocState, Map<number, readonly number[]>>();

function parentList(state: DocState): Map<number, readonly number[]> {
  let map = parents.get(state);
  if (!map) {
    map = new Map();
    for (const id of state.root) map.set(id, state.root);
    for (const layer of state.layers.values()) {
      if (layer.kind === 'group') for (const id of layer.children) map.set(id, layer.children);
    }
    parents.set(state, map);
  }
  return map;
}

/** For each layer id inside a group, the group's id. Memoised per state. */
const groups = new WeakMap<DocState, Map<number, number>>();

function groupOf(state: DocState): Map<number, number> {
  let map = groups.get(state);
  if (!map) {
    map = new Map();
    for (const layer of state.layers.values()) {
      if (layer.kind === 'group') for (const id of layer.children) map.set(id, layer.id);
    }
    groups.set(state, map);
  }
  return map;
}
