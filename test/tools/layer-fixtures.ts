/** Building documents with pixels for tool tests: prepared states committed straight through the editor. */
import type { Session } from '../../src/calls/session.js';
import { groupLayer, pixelLayer } from '../../src/engine/factory.js';
import type { DocState, GroupLayer, Layer, PixelLayer, Raster, Rect } from '../../src/engine/model.js';
import { solidRaster } from '../../src/engine/raster.js';
import { allocateId, childrenOf, insertLayer, layersNamed } from '../../src/engine/tree.js';
import { ok } from '../support/session.js';

export type RGBA = readonly [number, number, number, number];

export async function newDoc(session: Session, width = 20, height = 20): Promise<void> {
  await ok(session, 'create_document', { width, height });
}

/** The active document's current state. */
export function current(session: Session): DocState {
  return session.editor.begin().activeDocument().state;
}

/** Commits `f(state)` as one history step, as a painting tool would. */
export function edit(session: Session, f: (s: DocState) => DocState): void {
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  tx.update(doc.id, f(doc.state));
  session.editor.commit(tx, 'test', true);
}

export function solid(rect: Rect, [r, g, b, a]: RGBA): Raster {
  return solidRaster(rect, { r, g, b }, a);
}

/** Adds a pixel layer at the top of `parent` (the top level by default). */
export function addPixel(
  state: DocState,
  name: string,
  raster: Raster,
  props: Partial<PixelLayer> = {},
  parent: number | null = null,
): DocState {
  const [id, next] = allocateId(state);
  const layer: PixelLayer = { ...pixelLayer(id, name, raster), ...props };
  return insertLayer(next, layer, parent, childrenOf(next, parent).length);
}

/** Adds any layer built from a fresh id at the top of `parent`. */
export function addLayer(
  state: DocState,
  build: (id: number) => Layer,
  parent: number | null = null,
): DocState {
  const [id, next] = allocateId(state);
  return insertLayer(next, build(id), parent, childrenOf(next, parent).length);
}

export function addGroup(
  state: DocState,
  name: string,
  props: Partial<GroupLayer> = {},
  parent: number | null = null,
): DocState {
  const [id, next] = allocateId(state);
  return insertLayer(next, { ...groupLayer(id, name), ...props }, parent, childrenOf(next, parent).length);
}

export function named(state: DocState, name: string): Layer {
  const l = layersNamed(state, name)[0];
  if (!l) throw new Error(`no layer ${name}`);
  return l;
}

export function idOf(state: DocState, name: string): number {
  return named(state, name).id;
}

/** Sets the layer selection (first = active), as select_layers would. */
export function select(state: DocState, ...names: string[]): DocState {
  const ids = names.map((n) => idOf(state, n));
  return { ...state, active: ids[0]!, selected: ids };
}

/** Names of a child list, bottom → top. */
export function namesOf(state: DocState, ids: readonly number[]): string[] {
  return ids.map((id) => state.layers.get(id)!.name);
}

export function rasterOf(layer: Layer): Raster {
  if (layer.kind === 'group' || layer.kind === 'fill' || layer.kind === 'adjustment')
    throw new Error(`${layer.name} has no raster`);
  return layer.raster;
}

/** The pixel at document position x, y ([0,0,0,0] outside the raster). */
export function px(r: Raster, x: number, y: number): number[] {
  const lx = x - r.x;
  const ly = y - r.y;
  if (lx < 0 || ly < 0 || lx >= r.w || ly >= r.h) return [0, 0, 0, 0];
  const i = (ly * r.w + lx) * 4;
  return [...r.data.subarray(i, i + 4)];
}

export function rectOfRaster(r: Raster): Rect {
  return { x: r.x, y: r.y, w: r.w, h: r.h };
}

/** Every channel within `tol` of the expected value. */
export function near(actual: readonly number[], expected: readonly number[], tol = 1): boolean {
  return actual.length === expected.length && actual.every((v, i) => Math.abs(v - expected[i]!) <= tol);
}
