/**
 * A placed motif crossed by a fold in the photo: the applied motif has the print's colours, not the fold's
 * shadow. The photos are the fixture's under the 'falloff' light — a 20 % falloff from collar to hem and a soft
 * fold 12 % deep along y 330, right across the motif's middle (the motif spans y ≈ 278..382).
 */
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE76, type Lab } from '../../src/garment/color.js';
import { labOf } from '../../src/garment/image.js';
import {
  EXPECTED_SCALE,
  garmentDocument,
  garmentPhoto,
  inStar,
  motifAt,
  STAR,
  THEME_GROUND,
} from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';

function hexLab(hex: string): Lab {
  const n = Number.parseInt(hex.slice(1), 16);
  return labOf((n >> 16) & 255, (n >> 8) & 255, n & 255);
}

/**
 * The front piece's composite colours where the photo has the motif part `inPart` (3 px in from its edge, so
 * the placement's sub-pixel rounding cannot matter), after applying `type`/`color` to the front.
 */
async function appliedMotif(
  kind: 'theme' | 'star',
  color: string,
  inPart: (x: number, y: number) => boolean,
): Promise<{ labs: Lab[]; blend: string }> {
  const session = newSession();
  await garmentDocument(session, 'zh');
  await session.workspace.writeAtomic('photo.png', await garmentPhoto(kind, 1, 'falloff'));
  await ok(session, 'set_garment_photo', { path: 'photo.png' });
  const found = await ok(session, 'identify_pieces');
  await ok(session, 'generate_garment_preview');
  const applied = await ok(session, 'extract_and_apply_all_pieces', {
    pieces: [{ name: '前片', type: 'theme_pattern', color }],
  });
  const blend = (applied.applied as { motif_layer?: { blend_mode: string } }[])[0]!.motif_layer!.blend_mode;
  const tx = session.editor.begin();
  const canvas = tx.peekComposite(tx.activeDocument().id);
  // Photo → document: the garment's centre line and top (x 320, y 150) onto the front piece's, at EXPECTED_SCALE.
  const f = (found.pieces as { name: string; bounds: { left: number; top: number; width: number } }[]).find(
    (p) => p.name === '前片',
  )!.bounds;
  const labs: Lab[] = [];
  for (let y = 260; y < 400; y++) {
    for (let x = 250; x < 390; x++) {
      let inside = true;
      for (let j = -3; j <= 3 && inside; j++)
        for (let i = -3; i <= 3 && inside; i++) inside = inPart(x + i, y + j);
      if (!inside) continue;
      const X = Math.floor(f.left + f.width / 2 + (x + 0.5 - 320) * EXPECTED_SCALE);
      const Y = Math.floor(f.top + (y + 0.5 - 150) * EXPECTED_SCALE);
      const o = (Y * canvas.w + X) * 4;
      labs.push(labOf(canvas.data[o]!, canvas.data[o + 1]!, canvas.data[o + 2]!));
    }
  }
  return { labs, blend };
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(q * (s.length - 1))]!;
}

function medianLab(labs: readonly Lab[]): Lab {
  return {
    L: quantile(
      labs.map((l) => l.L),
      0.5,
    ),
    a: quantile(
      labs.map((l) => l.a),
      0.5,
    ),
    b: quantile(
      labs.map((l) => l.b),
      0.5,
    ),
  };
}

describe('placed motif under a fold: the print, not the light', () => {
  it("keeps the photo's pixels for a motif under even light", async () => {
    const ext = await analysePhoto(await garmentPhoto('theme', 1, 'even'), 'p.png', 'h');
    expect(ext.motif).not.toBeNull();
    expect(ext.motif!.print).toBe(ext.motif!.photo);
  });

  it('multiply motif (dark red petals on cream): the petals keep their colour across the fold', async () => {
    const petalHex = '#8e1b2b';
    const petal = (x: number, y: number) => motifAt(x, y)?.[0] === 0x8e;
    const { labs, blend } = await appliedMotif('theme', THEME_GROUND, petal);
    expect(blend).toBe('multiply');
    expect(labs.length).toBeGreaterThan(3000);
    // Over the base in the print's ground colour, the petals show their own colour wherever the fold lay.
    const truth = hexLab(petalHex);
    const de = labs.map((l) => deltaE76(l, truth));
    const p95 = quantile(de, 0.95);
    const mean = de.reduce((a, b) => a + b, 0) / de.length;
    console.log(
      `petals under the fold: ΔE76 from ${petalHex} mean ${mean.toFixed(1)}, p95 ${p95.toFixed(1)}`,
    );
    // With the photo's pixels as they are (the light kept): mean 4.1, p95 8.7; with the light divided out: mean
    // 1.9, p95 3.5 (the photo's noise, ±4 per channel, is ΔE76 ≈ 2 on this dark red).
    expect(p95).toBeLessThan(5);
    expect(mean).toBeLessThan(3);
  });

  it('cut-out motif (yellow star on red): one colour across the fold', async () => {
    const { labs, blend } = await appliedMotif('star', STAR.ground, inStar);
    expect(blend).toBe('normal');
    expect(labs.length).toBeGreaterThan(3000);
    // The cut-out has the print's colours at the light the ground colour was read under (the garment's typical
    // light, darker than the collar's): its spread, not its level, is what the fold leaves.
    const mid = medianLab(labs);
    const spread = labs.map((l) => deltaE76(l, mid));
    const p95 = quantile(spread, 0.95);
    console.log(
      `star under the fold: ΔE76 from its median colour p95 ${p95.toFixed(1)}, median from ${STAR.motif} ${deltaE76(mid, hexLab(STAR.motif)).toFixed(1)}`,
    );
    // The light kept: p95 7.2; divided out: 3.3.
    expect(p95).toBeLessThan(4.5);
  });
});
