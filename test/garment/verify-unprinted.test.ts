/**
 * verify_pattern_result on pieces left without their print: with the apply undone there is no result to score,
 * and it says so; with a piece not applied, the coverage measure says what is missing, and the photo and
 * palette measures do not read the bare piece's grey as a wrong extraction and send the model back to
 * generate_garment_preview.
 */
import { describe, expect, it } from 'vitest';
import { call, ok } from '../support/session.js';
import { appliedFlow, NAME } from './verify-set.js';

const DPI = 50;

interface Measured {
  readonly measure: string;
  readonly score: number;
}

describe('verify on pieces without their print', () => {
  it('after undo of the apply: no result to score, said as such; redone, scored again', async () => {
    const { session } = await appliedFlow('fill', DPI);
    const scored = await ok(session, 'verify_pattern_result');
    await ok(session, 'undo');
    const r = await call(session, 'verify_pattern_result', {});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_state');
    expect(r.error.message).toContain('已没有套图结果');
    expect(r.error.hint).toContain('extract_and_apply_all_pieces');
    await ok(session, 'redo');
    expect((await ok(session, 'verify_pattern_result')).score).toBe(scored.score);
  });

  it('the front (the piece the photo is compared on) not applied: coverage names it, not the extraction', async () => {
    const { session } = await appliedFlow('fill', DPI, [NAME.front]);
    const v = await ok(session, 'verify_pattern_result');
    const measures = v.measures as Measured[];
    const suggestions = (v.suggestions as string[]).join('\n');
    expect(measures.map((m) => m.measure)).not.toContain('photo');
    expect(suggestions).not.toContain('generate_garment_preview');
    expect(suggestions).toContain(`“${NAME.front}”`);
    // The pieces that were applied are still measured.
    expect(measures.find((m) => m.measure === 'palette')!.score).toBeGreaterThan(0.7);
  });
});
