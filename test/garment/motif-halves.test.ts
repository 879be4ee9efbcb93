/**
 * A placement motif on a front cut in halves: drawn about the garment's centre front, each half showing its own
 * part of it, so the two halves sewn together show the motif whole and centred as in the photo. Before, the
 * motif went on one half only, centred on that half (a quarter of the garment off the centre), and the other half
 * was plain; verify scored that 10. The photo's motif is an arrow pointing to the photo's right (not its own
 * mirror image), its ends 58 photo px either side of the centre line. Checked on the motif layers the tool drew,
 * from the pieces' own outlines: on our zip hoodie (its fronts one outline cut twice, the second mirrored), our
 * shirt (a right and a left front, not mirrored) and FreeSewing's Jaeger (fronts beside side bodies whose seam to
 * the front is not told, so the motif stays on the fronts), through the real flow with English part names.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState, Layer, PixelLayer } from '../../src/engine/model.js';
import sharp from '../../src/engine/sharp.js';
import { layersNamed } from '../../src/engine/tree.js';
import { SIDE_SEAM_ALLOWANCE_MM } from '../../src/garment/seams.js';
import { ARROW, garmentPhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

const PX_PER_MM = 1;
const SA = SIDE_SEAM_ALLOWANCE_MM * PX_PER_MM;
/** The arrow's ends from the photo's centre line (x 320), in photo px. */
const REACH = 320 - ARROW.left;

interface Measure {
  readonly measure: string;
  readonly score: number;
  readonly [key: string]: unknown;
}

function stateOf(session: Session): DocState {
  return session.editor.begin().activeDocument().state;
}

function layer(s: DocState, name: string): PixelLayer | undefined {
  const l = layersNamed(s, name)[0] as Layer | undefined;
  return l?.kind === 'pixel' ? l : undefined;
}

/** The piece's opaque extent and, per document column, the rows its motif layer covers with the arrow's red. */
function motifOn(s: DocState, piece: string) {
  const p = layer(s, piece)!.raster;
  const m = layer(s, `${piece} 主题图案`)?.raster;
  let left = Number.POSITIVE_INFINITY;
  let right = -1;
  const cols = new Map<number, { top: number; bottom: number; n: number }>();
  for (let y = 0; y < p.h; y++) {
    for (let x = 0; x < p.w; x++) {
      if (p.data[(y * p.w + x) * 4 + 3]! < 128) continue;
      const X = p.x + x;
      const Y = p.y + y;
      left = Math.min(left, X);
      right = Math.max(right, X);
      if (!m) continue;
      const i = X - m.x;
      const j = Y - m.y;
      if (i < 0 || j < 0 || i >= m.w || j >= m.h) continue;
      const o = (j * m.w + i) * 4;
      // The arrow's dark red, multiplied on white.
      if (!(m.data[o]! > 100 && m.data[o + 1]! < 80 && m.data[o + 2]! < 90)) continue;
      const c = cols.get(X) ?? { top: Y, bottom: Y, n: 0 };
      cols.set(X, { top: Math.min(c.top, Y), bottom: Math.max(c.bottom, Y), n: c.n + 1 });
    }
  }
  return { left, right, cols };
}

/** The bounding box of a PNG's arrow-red pixels. */
async function redBox(png: Buffer): Promise<{ w: number; h: number }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let [x0, y0, x1, y1] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, -1, -1];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const o = (y * info.width + x) * 3;
      if (!(data[o]! > 100 && data[o + 1]! < 80 && data[o + 2]! < 90)) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  return { w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

async function applied(id: string) {
  const g = loadFixtures().garments.find((x) => x.id === id)!;
  const session = newSession();
  await openMarker(session, marker(g, 'en', PX_PER_MM, 10), 'marker');
  await session.workspace.writeAtomic('photo.png', await garmentPhoto('arrow'));
  await ok(session, 'set_garment_photo', { path: 'photo.png' });
  const found = await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  const proposed = preview.proposed_pieces as { name: string; type: string }[];
  await ok(session, 'extract_and_apply_all_pieces', { pieces: proposed });
  const verify = async () => {
    const v = (await ok(session, 'verify_pattern_result')) as {
      score: number;
      measures: Measure[];
      suggestions: string[];
    };
    return { ...v, measure: (key: string) => v.measures.find((m) => m.measure === key) };
  };
  const { scale, motif_on_fabric: onFabric } = preview.placement as {
    scale: number;
    motif_on_fabric: number;
  };
  const fronts = (found.pieces as { name: string; part: string }[])
    .filter((p) => p.part === 'front')
    .map((p) => p.name);
  const images = preview.images as { base64: string; caption: string }[];
  return { session, proposed, fronts, scale, onFabric, images, verify };
}

describe('a placement motif on a front cut in halves', () => {
  for (const [id, what, halves] of [
    ['ziphoodie-M', 'a zip front’s mirrored halves', ['Front', 'Front copy']],
    ['shirt-M', 'a shirt’s right and left fronts', ['Front left', 'Front right']],
    // Its side bodies' edges do not tell which meets the front (seams-halves): the motif stays on the fronts.
    ['jaeger-cisMaleAdult42', 'a jacket’s fronts beside side bodies', ['Front', 'Front copy']],
  ] as const) {
    it(`is drawn whole about the centre front across ${what}, and verify finds it so`, async () => {
      const { session, proposed, fronts: all, scale, onFabric, images, verify } = await applied(id);
      expect(onFabric).toBeGreaterThanOrEqual(0.95);
      // The preview's second image, the front as sewn, shows the arrow whole: as wide against its height as in
      // the photo (one half of it would be half as wide).
      expect(images).toHaveLength(2);
      expect(images[1]!.caption).toMatch(/^前身缝合示意/);
      // Drawn on its own proxy of the front panels, large enough to read (on the marker's it was about 320 px).
      const sewnSize = await sharp(Buffer.from(images[1]!.base64, 'base64')).metadata();
      expect(Math.max(sewnSize.width!, sewnSize.height!)).toBeGreaterThanOrEqual(640);
      const arrow = await redBox(Buffer.from(images[1]!.base64, 'base64'));
      const photoRatio = (ARROW.tip - ARROW.left) / (ARROW.bottom - ARROW.top);
      expect(Math.abs(arrow.w / arrow.h / photoRatio - 1)).toBeLessThan(0.12);
      expect([...all].sort()).toEqual(expect.arrayContaining([...halves]));
      const fronts: readonly string[] = halves;
      // Both halves carry the motif; nothing else does.
      for (const p of proposed)
        expect(p.type, p.name).toBe(fronts.includes(p.name) ? 'theme_pattern' : 'solid');

      const s = stateOf(session);
      const [a, b] = fronts.map((f) => ({ name: f, ...motifOn(s, f) }));
      for (const h of [a!, b!]) expect(h.cols.size, h.name).toBeGreaterThan(10);
      // Each half's part of the arrow runs to one of its cut edges (its centre edge: the print runs on into the
      // seam allowance), the two halves' to opposite ones.
      const side = (h: NonNullable<typeof a>) => {
        const xs = [...h.cols.keys()];
        const touchesLeft = Math.min(...xs) <= h.left + 1;
        const touchesRight = Math.max(...xs) >= h.right - 1;
        expect(touchesLeft !== touchesRight, `${h.name}: one edge`).toBe(true);
        return touchesLeft ? 'left' : 'right';
      };
      // Seen from outside, the half whose centre edge is on its right is on the photo's left: the shaft's half.
      const [viewerLeft, viewerRight] = side(a!) === 'right' ? [a!, b!] : [b!, a!];
      expect(side(viewerRight)).toBe('left');
      // From the centre line (the allowance inside the centre edge) each half shows the arrow out to its end.
      const leftEnd = Math.min(...viewerLeft.cols.keys());
      const rightEnd = Math.max(...viewerRight.cols.keys());
      const centreL = viewerLeft.right + 1 - SA;
      const centreR = viewerRight.left + SA;
      expect(Math.abs(centreL - leftEnd - REACH * scale)).toBeLessThanOrEqual(3);
      expect(Math.abs(rightEnd + 1 - centreR - REACH * scale)).toBeLessThanOrEqual(3);
      // The shaft on the left half, the head on the right one: tallest next to the centre, narrowing to the tip.
      const height = (c: { top: number; bottom: number }) => c.bottom - c.top + 1;
      const shaft = (345 - 315) * scale;
      const head = (ARROW.bottom - ARROW.top) * scale;
      for (const c of viewerLeft.cols.values()) expect(Math.abs(height(c) - shaft)).toBeLessThanOrEqual(2);
      const rightCols = [...viewerRight.cols.entries()].sort((p, q) => p[0] - q[0]);
      const tallest = Math.max(...rightCols.map(([, c]) => height(c)));
      // The head's edges are anti-aliased: its tallest column within 5 %.
      expect(Math.abs(tallest - head)).toBeLessThanOrEqual(0.05 * head);
      const nearTip = rightCols.filter(([x]) => x > rightEnd - 0.2 * REACH * scale);
      for (const [, c] of nearTip) expect(height(c)).toBeLessThan(0.45 * head);
      // Level across the centre: the shaft's rows at the centre edge are the head's shaft rows.
      const shaftL = viewerLeft.cols.get(viewerLeft.right)!;
      const shaftR = viewerRight.cols.get(viewerRight.left)!;
      expect(Math.abs(shaftL.top - shaftR.top)).toBeLessThanOrEqual(1);

      const v = await verify();
      expect(v.measure('motif')!.score).toBeGreaterThanOrEqual(0.9);
      const pairs = Object.keys((v.measure('symmetry')?.mean_delta_e76 as object | undefined) ?? {});
      expect(pairs.some((p) => fronts.every((f) => p.split(' ↔ ').includes(f)))).toBe(false);
      expect(v.score).toBeGreaterThanOrEqual(9.5);
    });
  }

  it('warns when the motif falls mostly where the cut garment has no fabric, and verify says why', async () => {
    // Wahid's waistcoat: its V-neck opening runs down the centre front past the chest, where the T-shirt photo's
    // arrow is. Measured: 44 % of the arrow on the fronts.
    const g = loadFixtures().garments.find((x) => x.id === 'wahid-cisMaleAdult42')!;
    const session = newSession();
    await openMarker(session, marker(g, 'en', PX_PER_MM, 10), 'marker');
    await session.workspace.writeAtomic('photo.png', await garmentPhoto('arrow'));
    await ok(session, 'set_garment_photo', { path: 'photo.png' });
    await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    const onFabric = (preview.placement as { motif_on_fabric: number }).motif_on_fabric;
    expect(onFabric).toBeGreaterThan(0.3);
    expect(onFabric).toBeLessThan(0.6);
    expect(String(preview.warnings)).toContain(`只有 ${Math.round(onFabric * 100)}% 落在裁片上`);
    await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
    const v = (await ok(session, 'verify_pattern_result')) as { suggestions: string[] };
    expect(v.suggestions.join('\n')).toContain('落在领口等开口处或裁片之外');
    expect(v.suggestions.join('\n')).not.toContain('请检查“<裁片> 主题图案”图层是否可见');
  });

  it('says so when the motif falls on a half that was given no motif', async () => {
    const { session, proposed, fronts, verify } = await applied('ziphoodie-M');
    const before = await verify();
    // One half applied as a solid colour: the motif shows only its part on the other.
    const dropped = fronts[1]!;
    await ok(session, 'extract_and_apply_all_pieces', {
      pieces: proposed.map((p) => (p.name === dropped ? { ...p, type: 'solid' } : p)),
    });
    const after = await verify();
    const motif = after.measure('motif')!;
    expect(motif.cut_off_on).toEqual([dropped]);
    expect(motif.score).toBeLessThan(0.7);
    expect(after.score).toBeLessThan(before.score - 0.5);
    expect(after.suggestions.join('\n')).toContain(`“${dropped}”的 type 从 solid 改为 theme_pattern`);
  });
});
