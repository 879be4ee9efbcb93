/**
 * The preview is drawn on a screen-size proxy of the pieces (screen-proxy.ts), not on the print-resolution
 * marker: at 150 DPI it must still show what extract_and_apply_all_pieces then builds at full resolution.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/engine/composite/index.js';
import { deltaE76 } from '../../src/garment/color.js';
import { labOf } from '../../src/garment/image.js';
import { usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

const DPI = 150;
/** Side of the blocks compared, preview px: a block averages away the half-pixel the proxy's rounding moves. */
const BLOCK = 6;

interface Bounds {
  left: number;
  top: number;
  width: number;
  height: number;
}

describe('generate_garment_preview at 150 DPI', () => {
  it('shows, block by block, the print that extract_and_apply_all_pieces builds at full resolution', async () => {
    const session = newSession();
    const g = loadFixtures().garments.find((x) => x.id === 'teagan-cisMaleAdult42')!;
    const m = marker(g, 'en', DPI / 25.4, 10);
    await openMarker(session, m, 'T 恤');
    await usePhoto(session, 'fill');
    const found = await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const state = session.editor.begin().activeDocument().state;
    const full = renderDocument(state);

    const png = Buffer.from((preview.images as { base64: string }[])[0]!.base64, 'base64');
    const { data: img, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    // The preview's frame: the pieces' union at the proxy's factor, with canvasAround's margin.
    const pieces = (found.pieces as { bounds: Bounds }[]).map((p) => p.bounds);
    const x0 = Math.min(...pieces.map((b) => b.left));
    const y0 = Math.min(...pieces.map((b) => b.top));
    const x1 = Math.max(...pieces.map((b) => b.left + b.width));
    const y1 = Math.max(...pieces.map((b) => b.top + b.height));
    const k = 970 / Math.max(x1 - x0, y1 - y0);
    expect(k).toBeLessThan(0.2); // a real proxy: the marker is 8859 px wide
    const margin = Math.round(Math.max(x1 - x0, y1 - y0) * k * 0.02) + 4;
    const docX = (i: number) => (Math.round(x0 * k) - margin + i) / k;
    const docY = (j: number) => (Math.round(y0 * k) - margin + j) / k;
    const inPiece = (X: number, Y: number) =>
      pieces.some((b) => X >= b.left && Y >= b.top && X < b.left + b.width && Y < b.top + b.height) &&
      full.data[(Math.floor(Y) * full.w + Math.floor(X)) * 4 + 1]! < 250; // the print, not the white paper

    const des: number[] = [];
    for (let by = 0; by + BLOCK <= info.height; by += BLOCK) {
      for (let bx = 0; bx + BLOCK <= info.width; bx += BLOCK) {
        // Blocks well inside a piece (a block's width of print all round), away from the drawn outline.
        const X0 = docX(bx - BLOCK);
        const Y0 = docY(by - BLOCK);
        const X1 = docX(bx + 2 * BLOCK);
        const Y1 = docY(by + 2 * BLOCK);
        if (![X0, X1].every((X) => [Y0, Y1].every((Y) => inPiece(X, Y)))) continue;
        if (
          !pieces.some((b) => X0 >= b.left && Y0 >= b.top && X1 < b.left + b.width && Y1 < b.top + b.height)
        )
          continue;
        const mean = (
          get: (x: number, y: number, c: number) => number,
          xa: number,
          ya: number,
          n: number,
          s: number,
        ) => {
          const v = [0, 0, 0];
          let c = 0;
          for (let y = 0; y < n; y++) {
            for (let x = 0; x < n; x++) {
              for (let ch = 0; ch < 3; ch++)
                v[ch]! += get(Math.floor(xa + x * s), Math.floor(ya + y * s), ch);
              c++;
            }
          }
          return labOf(v[0]! / c, v[1]! / c, v[2]! / c);
        };
        const shown = mean((x, y, ch) => img[(y * info.width + x) * 4 + ch]!, bx, by, BLOCK, 1);
        // The same area of the full-resolution result, sampled on a grid of BLOCK × 4 points per side.
        const n = BLOCK * 4;
        const built = mean(
          (x, y, ch) => full.data[(y * full.w + x) * 4 + ch]!,
          docX(bx),
          docY(by),
          n,
          BLOCK / k / n,
        );
        des.push(deltaE76(shown, built));
      }
    }
    des.sort((a, b) => a - b);
    const median = des[des.length >> 1]!;
    const p95 = des[Math.floor(des.length * 0.95)]!;
    console.log(
      `preview vs applied at ${DPI} DPI: ${des.length} blocks, ΔE76 median ${median.toFixed(2)}, 95th ${p95.toFixed(2)}`,
    );
    expect(des.length).toBeGreaterThan(1000);
    expect(median).toBeLessThan(3);
    expect(p95).toBeLessThan(8);
  }, 120_000);
});
