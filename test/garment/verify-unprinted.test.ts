/**
 * verify_pattern_result on pieces left without their print (the apply undone, or a piece not applied): the
 * coverage measure says what is missing; the photo and palette measures do not read the bare pieces' grey as a
 * wrong extraction and send the model back to generate_garment_preview.
 */
import { describe, expect, it } from 'vitest';
import { ok } from '../support/session.js';
import { appliedFlow, NAME } from './verify-set.js';

const DPI = 50;

interface Measured {
  readonly measure: string;
  readonly score: number;
}

describe('verify on pieces without their print', () => {
  it('after undo of the apply: coverage names every piece; no photo or palette verdict', async () => {
    const { session } = await appliedFlow('fill', DPI);
    await ok(session, 'undo');
    const v = await ok(session, 'verify_pattern_result');
    const measures = v.measures as Measured[];
    const suggestions = v.suggestions as string[];
    expect(measures.map((m) => m.measure)).not.toContain('photo');
    expect(measures.map((m) => m.measure)).not.toContain('palette');
    expect(measures.find((m) => m.measure === 'coverage')!.score).toBe(0);
    expect(suggestions.join('\n')).not.toContain('generate_garment_preview');
    expect(
      suggestions.some((s) => s.includes(`“${NAME.front}”`) && s.includes('extract_and_apply_all_pieces')),
    ).toBe(true);
    expect(v.score as number).toBeLessThan(5);
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
