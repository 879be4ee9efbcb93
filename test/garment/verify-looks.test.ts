/**
 * verify_pattern_result and a piece whose print takes on its own mode or opacity, or its group's (apply.ts
 * pieceLooks): a measure of its own leads the list, naming the pieces and layers and how far the canvas is from
 * the print in normal mode at 100 %; the other measures judge those pieces' print as it would show so, and so
 * never send the designer to re-apply or recolour for what the layer does — yet still catch a print that is wrong.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { ok } from '../support/session.js';
import { appliedFlow, NAME, recolour } from './verify-set.js';

interface Verified {
  score: number;
  measures: { measure: string; score: number; per_piece?: Record<string, unknown> }[];
  suggestions: string[];
  next: string;
}

const verify = async (session: Session) =>
  (await ok(session, 'verify_pattern_result')) as unknown as Verified;
const scoreOf = (v: Verified, key: string) => v.measures.find((m) => m.measure === key)?.score;
/** Advice that changes the print: re-applying it, or another colour. */
const reprints = (s: string) => s.includes('extract_and_apply_all_pieces') || s.includes('color 用');

describe('verify_pattern_result and the pieces’ mode and opacity', () => {
  it('scores a correct print at 90 % opacity as correct, led by the looks measure; back at 100 % as before', async () => {
    // The star's dark red ground: at 90 % over white it shows ΔE00 about 5 lighter, which the photo and
    // palette measures used to count as a wrong colour (score 7, "re-apply 前片").
    const { session } = await appliedFlow('star', 50);
    const before = await verify(session);
    expect(before.measures.some((m) => m.measure === 'looks')).toBe(false);

    await ok(session, 'set_layer_opacity', { name: NAME.front, opacity: 90 });
    const faded = await verify(session);
    for (const s of faded.suggestions) expect(reprints(s), s).toBe(false);
    expect(faded.measures[0]!.measure).toBe('looks');
    expect(faded.measures[0]!.per_piece![NAME.front]).toMatchObject({
      layers: [{ layer: NAME.front, group: false, blend_mode: null, opacity: 0.9 }],
    });
    expect(faded.suggestions[0]).toContain('花样与下方混合');
    expect(faded.suggestions[0]).toContain(`set_layer_opacity 把“${NAME.front}”调回 100`);
    for (const key of ['photo', 'palette', 'motif']) expect(scoreOf(faded, key)).toBeGreaterThanOrEqual(0.9);
    expect(faded.score).toBeGreaterThanOrEqual(9);
    expect(faded.next).not.toContain('extract_and_apply_all_pieces');

    await ok(session, 'set_layer_opacity', { name: NAME.front, opacity: 100 });
    const fixed = await verify(session);
    expect(fixed.score).toBe(before.score);
    expect(fixed.measures).toEqual(before.measures);
    expect(fixed.suggestions).toEqual(before.suggestions);
  });

  it('judges pieces in screen, luminosity and a difference group as printed, and never sends them to re-apply', async () => {
    const { session } = await appliedFlow('fill', 50);
    const before = await verify(session);
    await ok(session, 'set_layer_blend_mode', { name: NAME.front, mode: 'screen' });
    await ok(session, 'set_layer_blend_mode', { name: NAME.left, mode: 'luminosity' });
    await ok(session, 'set_layer_blend_mode', { name: `${NAME.collar} 花样`, mode: 'difference' });
    const v = await verify(session);
    const [first, ...rest] = v.suggestions;
    for (const s of rest) expect(reprints(s), s).toBe(false);

    const looks = v.measures[0]!;
    expect(looks.measure).toBe('looks');
    expect(Object.keys(looks.per_piece!).sort()).toEqual([NAME.front, NAME.left, NAME.collar].sort());
    expect(looks.per_piece![NAME.collar]).toMatchObject({
      layers: [{ layer: `${NAME.collar} 花样`, group: true, blend_mode: 'difference', opacity: null }],
    });
    // Screen on white shows no print at all: as bad as a hidden print, whatever the print is.
    expect(looks.score).toBeLessThan(0.1);
    expect(v.score).toBeLessThan(before.score);
    expect(first).toContain('花样与下方混合');
    for (const name of [`“${NAME.front}”`, `“${NAME.left}”`, `“${NAME.collar} 花样”`])
      expect(first).toContain(name);
    // The print itself is right, and the print measures say so.
    for (const key of ['photo', 'texture', 'palette', 'symmetry', 'seams'])
      expect(scoreOf(v, key), key).toBeGreaterThanOrEqual(0.9);
    expect(v.next).not.toContain('extract_and_apply_all_pieces');

    await ok(session, 'set_layer_blend_mode', { name: NAME.front, mode: 'normal' });
    await ok(session, 'set_layer_blend_mode', { name: NAME.left, mode: 'normal' });
    await ok(session, 'set_layer_blend_mode', { name: `${NAME.collar} 花样`, mode: 'normal' });
    const fixed = await verify(session);
    expect(fixed.score).toBe(before.score);
    expect(fixed.measures).toEqual(before.measures);
  });

  it('still finds a wrong print in a piece at 90 % opacity', async () => {
    const { session } = await appliedFlow('fill', 50);
    recolour(session);
    await ok(session, 'set_layer_opacity', { name: NAME.front, opacity: 90 });
    const v = await verify(session);
    expect(v.measures[0]!.measure).toBe('looks');
    expect(scoreOf(v, 'palette')).toBeLessThan(0.7);
    expect(v.suggestions.slice(1).some((s) => s.startsWith('配色') && reprints(s))).toBe(true);
    expect(v.score).toBeLessThan(6);
  });
});
