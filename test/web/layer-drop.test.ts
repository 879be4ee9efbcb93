/** Where a row dropped in the layers pane lands (src/web/state/layer-drop.ts), without a browser. */
import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../../src/calls/snapshot-types.js';
import { dropAt } from '../../src/web/state/layer-drop.js';

let next = 1;
const node = (name: string, extra: Partial<LayerNode> = {}): LayerNode => ({
  id: next++,
  name,
  type: extra.children ? 'group' : 'pixel',
  visible: true,
  opacity: 100,
  blend_mode: 'normal',
  locked: false,
  ...extra,
});

// Top → bottom, as the pane lists them: G[g2 g1], E (an empty group), C, B, 背景.
const g2 = node('g2');
const g1 = node('g1');
const G = node('G', { children: [g2, g1] });
const E = node('E', { children: [] });
const C = node('C');
const B = node('B');
const bg = node('背景', { background: true });
const tree = [G, E, C, B, bg];
const open = () => true;
const shut = () => false;
const at = (dragged: LayerNode, target: LayerNode, f: number, expanded = open) => {
  const d = dropAt(tree, dragged.id, target.id, f, expanded);
  return d && `${d.position} ${d.target.name}`;
};

describe('dropAt', () => {
  it('a layer’s row: its upper half is above it, its lower half below it', () => {
    expect(at(B, g1, 0.2)).toBe('above g1');
    expect(at(B, g1, 0.7)).toBe('below g1');
    expect(at(g1, B, 0.4)).toBe('above B');
  });

  it('a group’s row: its upper quarter above it, the rest into it, its lower quarter below it when closed or empty', () => {
    expect(at(B, G, 0.1)).toBe('above G');
    expect(at(B, G, 0.5)).toBe('inside G');
    expect(at(B, G, 0.9)).toBe('inside G'); // its open list starts right under it
    expect(at(B, G, 0.9, shut)).toBe('below G');
    expect(at(B, E, 0.9)).toBe('below E');
    expect(at(B, E, 0.5)).toBe('inside E');
  });

  it('never below the background, never the background itself, never a group into itself', () => {
    expect(at(C, bg, 0.9)).toBe('above 背景');
    expect(at(bg, C, 0.2)).toBeNull();
    expect(at(G, g1, 0.5)).toBeNull();
    expect(at(G, G, 0.5)).toBeNull();
  });

  it('a drop where the layer already is gives nothing to do', () => {
    expect(at(C, E, 0.9)).toBeNull(); // below E is where C is
    expect(at(C, B, 0.2)).toBeNull(); // above B too
    expect(at(g2, G, 0.5)).toBeNull(); // already the group's top layer
    expect(at(B, bg, 0.2)).toBeNull();
    expect(at(C, B, 0.7)).toBe('below B');
  });
});
