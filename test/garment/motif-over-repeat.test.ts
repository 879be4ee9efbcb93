/**
 * A placed motif printed over an all-over repeat (mixed_pattern) covers the repeat in the photo: the applied
 * piece must show the motif's own colours there, not the repeat's dark dots through a multiply motif.
 */
import { describe, expect, it } from 'vitest';
import { deltaE76 } from '../../src/garment/color.js';
import { labOf } from '../../src/garment/image.js';
import { EXPECTED_SCALE, garmentDocument, motifAt, usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';

const GREEN = '#2e7d32';
/** ΔE76 from the petals' colour within which a composite pixel shows the petal (fold light is ≤ 10 % darker). */
const PETAL_DE = 15;

describe('mixed_pattern: the motif over the repeat', () => {
  it('shows the petals in their own colour where the repeat has dots under them (no dots through)', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    await usePhoto(session, 'mixed');
    const found = await ok(session, 'identify_pieces');
    await ok(session, 'generate_garment_preview');
    const applied = await ok(session, 'extract_and_apply_all_pieces', {
      pieces: [{ name: '前片', type: 'mixed_pattern' }],
    });
    const report = (applied.applied as { motif_layer?: { blend_mode: string } }[])[0]!.motif_layer!;
    expect(report.blend_mode).toBe('multiply');
    const tx = session.editor.begin();
    const canvas = tx.peekComposite(tx.activeDocument().id);

    // Photo → document: the garment's centre line and top (x 320, y 150) onto the front piece's (its top is
    // where its sloped shoulders start), at EXPECTED_SCALE.
    const f = (found.pieces as { name: string; bounds: { left: number; top: number; width: number } }[]).find(
      (p) => p.name === '前片',
    )!.bounds;
    const green = labOf(0x2e, 0x7d, 0x32);
    const petal = (x: number, y: number) => motifAt(x, y, GREEN)?.[1] === 0x7d;
    let sampled = 0;
    let wrong = 0;
    for (let y = 260; y < 400; y++) {
      for (let x = 250; x < 390; x++) {
        // Well inside a petal (3 px from its edge), where the placement's sub-pixel rounding cannot matter.
        let inside = true;
        for (let j = -3; j <= 3 && inside; j++)
          for (let i = -3; i <= 3 && inside; i++) inside = petal(x + i, y + j);
        if (!inside) continue;
        const X = Math.floor(f.left + f.width / 2 + (x + 0.5 - 320) * EXPECTED_SCALE);
        const Y = Math.floor(f.top + (y + 0.5 - 150) * EXPECTED_SCALE);
        const o = (Y * canvas.w + X) * 4;
        sampled++;
        const lab = labOf(canvas.data[o]!, canvas.data[o + 1]!, canvas.data[o + 2]!);
        if (deltaE76(lab, green) > PETAL_DE) wrong++;
      }
    }
    expect(sampled).toBeGreaterThan(3000);
    // Without the knockout about a tenth of the petals show the repeat's navy and red dots.
    expect(wrong / sampled).toBeLessThan(0.005);
  });
});
