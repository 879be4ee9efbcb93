/**
 * modify_selection through the real Session (Photoshop's Select › Modify › Expand and Contract): a rectangle
 * expanded is the rounded rectangle ImageMagick draws for it (its Minkowski sum with a disk), contracted the
 * smaller rectangle exactly; the canvas's edge is no edge; an inverted selection's hole shrinks; a contraction
 * that leaves nothing is refused and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { drawnByImageMagick, imageMagickAvailable } from '../support/imagemagick.js';
import { ok, refused } from '../support/session.js';
import { current } from './layer-fixtures.js';
import { emptyLayerDoc, labels, selected } from './selection-fixtures.js';

const W = 400;
const H = 300;

/** 255 inside [x0, x1) × [y0, y1), 0 elsewhere, over the canvas. */
function rect(x0: number, y0: number, x1: number, y1: number, inside = 255): number[] {
  const out: number[] = [];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) out.push(x >= x0 && x < x1 && y >= y0 && y < y1 ? inside : 255 - inside);
  return out;
}

describe('modify_selection', () => {
  it.skipIf(!imageMagickAvailable())(
    'expands a rectangle into the rounded rectangle of the same reach, anti-aliased at its corners',
    async () => {
      const s = await emptyLayerDoc(W, H);
      await ok(s, 'select_rect', { left: 100, top: 100, right: 200, bottom: 150 });
      const steps = labels(s).length;
      const r = await ok(s, 'modify_selection', { operation: 'expand', amount: 10 });
      expect(r.selection).toMatchObject({ bounds: { left: 90, top: 90, right: 210, bottom: 160 } });
      expect(labels(s)).toHaveLength(steps + 1);
      expect(labels(s).at(-1)).toBe('修改选区');
      const ours = selected(s);
      // The exact reach: every point within 10 px of the rectangle, drawn by ImageMagick at 8× and averaged down.
      const reference = await drawnByImageMagick(
        W,
        H,
        (at, size) => `roundrectangle ${at(90)},${at(90)} ${at(210)},${at(160)} ${size(10)},${size(10)}`,
        8,
      );
      let sum = 0;
      let worst = 0;
      for (let i = 0; i < ours.length; i++) {
        const diff = Math.abs(ours[i]! - reference[i]!);
        sum += diff;
        worst = Math.max(worst, diff);
      }
      // Straight edges land on whole pixels exactly; along the corners' arcs the ramp by distance differs from
      // true area coverage by at most a third of a pixel's.
      expect(sum / ours.length).toBeLessThan(0.05);
      expect(worst).toBeLessThanOrEqual(85);
      // The straight parts are whole: the middle of the top edge's new row, and just beyond it nothing.
      expect(ours[90 * W + 150]).toBe(255);
      expect(ours[89 * W + 150]).toBe(0);
      // The corner is cut round: the box's own corner is not selected, a point 7 px in on the diagonal is.
      expect(ours[90 * W + 90]).toBe(0);
      expect(ours[95 * W + 95]).toBe(255);
      await ok(s, 'undo');
      expect(selected(s)).toEqual(rect(100, 100, 200, 150));
    },
  );

  it('contracts a rectangle exactly; the canvas edge is no edge; an inverted selection’s hole shrinks instead', async () => {
    const s = await emptyLayerDoc(W, H);
    await ok(s, 'select_rect', { left: 100, top: 100, right: 200, bottom: 150 });
    await ok(s, 'modify_selection', { operation: 'contract', amount: 10 });
    expect(selected(s)).toEqual(rect(110, 110, 190, 140));

    // Along the canvas's edge nothing is taken away, as in Photoshop.
    await ok(s, 'select_rect', { left: 0, top: 0, right: 100, bottom: 100 });
    await ok(s, 'modify_selection', { operation: 'contract', amount: 10 });
    expect(selected(s)).toEqual(rect(0, 0, 90, 90));

    // Everything but a hole (a selection whose outside is selected): expanding it closes the hole in.
    await ok(s, 'select_rect', { left: 100, top: 100, right: 200, bottom: 150 });
    await ok(s, 'inverse_selection');
    await ok(s, 'modify_selection', { operation: 'expand', amount: 10 });
    expect(selected(s)).toEqual(rect(110, 110, 190, 140, 0));
    // And contracting it opens the hole out by 20 px, to rows 90–159, round at its corners: just beyond the box's
    // corner, still selected.
    await ok(s, 'modify_selection', { operation: 'contract', amount: 20 });
    const opened = selected(s);
    expect(opened[90 * W + 150]).toBe(0);
    expect(opened[89 * W + 150]).toBe(255);
    expect(opened[159 * W + 150]).toBe(0);
    expect(opened[160 * W + 150]).toBe(255);
    expect(opened[92 * W + 92]).toBe(255);
  });

  it('refuses a contraction that would leave nothing, and a document without a selection, changing nothing', async () => {
    const s = await emptyLayerDoc(W, H);
    const none = await refused(s, 'modify_selection', { operation: 'expand', amount: 5 }, 'invalid_state');
    expect(none.message).toContain('没有选区');
    await ok(s, 'select_rect', { left: 100, top: 100, right: 200, bottom: 150 });
    const steps = labels(s).length;
    const before = current(s).selection;
    const gone = await refused(
      s,
      'modify_selection',
      { operation: 'contract', amount: 30 },
      'invalid_arguments',
    );
    expect(gone.message).toContain('没有任何像素');
    expect(current(s).selection).toBe(before);
    expect(labels(s)).toHaveLength(steps);
    await refused(s, 'modify_selection', { operation: 'expand', amount: 0 }, 'invalid_arguments');
    await refused(s, 'modify_selection', { operation: 'expand', amount: 501 }, 'invalid_arguments');
    await refused(s, 'modify_selection', { operation: 'grow', amount: 5 }, 'invalid_arguments');
    expect(labels(s)).toHaveLength(steps);
  });
});
