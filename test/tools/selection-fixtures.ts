/** Reading and combining a session's pixel selection in selection-tool tests. */
import { expect } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { newSession, ok } from '../support/session.js';
import { current } from './layer-fixtures.js';

/** The history step labels of the active document. */
export function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

/** The selection over the whole canvas, row by row (0 everywhere when there is none). */
export function selected(s: Session): number[] {
  const st = current(s);
  const m = st.selection;
  const out: number[] = [];
  for (let y = 0; y < st.height; y++) {
    for (let x = 0; x < st.width; x++) {
      if (!m) out.push(0);
      else {
        const lx = x - m.x;
        const ly = y - m.y;
        out.push(lx < 0 || ly < 0 || lx >= m.w || ly >= m.h ? m.outside : m.data[ly * m.w + lx]!);
      }
    }
  }
  return out;
}

/** A `w × h` document whose active layer is an empty pixel layer 'P'. */
export async function emptyLayerDoc(w: number, h: number): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: w, height: h });
  await ok(s, 'create_layer', { name: 'P' });
  return s;
}

/** Each way of meeting the selection there is, with what it makes of a pixel's old value p and new value q. */
export const MODES = [
  ['add', Math.max],
  ['subtract', (p: number, q: number) => Math.max(0, p - q)],
  ['intersect', Math.min],
] as const;

/**
 * Calls `tool` with `args` in each mode after select_rect selected `rect`, on a document `make` builds: the
 * result is the rectangle and what `tool` selects alone combined value by value, as one history step.
 */
export async function expectModes(
  make: () => Promise<Session>,
  tool: string,
  args: Record<string, unknown>,
  rect: { left: number; top: number; right: number; bottom: number },
): Promise<void> {
  const alone = await make();
  await ok(alone, tool, args);
  const drawn = selected(alone);
  const width = current(alone).width;
  const inRect = (i: number) => {
    const x = i % width;
    const y = Math.floor(i / width);
    return x >= rect.left && x < rect.right && y >= rect.top && y < rect.bottom ? 255 : 0;
  };
  for (const [mode, op] of MODES) {
    const s = await make();
    await ok(s, 'select_rect', rect);
    const steps = labels(s).length;
    const r = await ok(s, tool, { ...args, mode });
    expect(r.mode).toBe(mode);
    expect(labels(s)).toHaveLength(steps + 1);
    expect(selected(s), mode).toEqual(drawn.map((v, i) => op(inRect(i), v)));
  }
}
