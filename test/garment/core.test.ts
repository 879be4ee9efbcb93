/** The garment CV building blocks against known answers: FFT, CIEDE2000, palette, lattice, photo extraction, pieces. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocState, PixelLayer } from '../../src/engine/model.js';
import { paletteOf } from '../../src/garment/builtin/palette.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { classifyPieces, collectPieces, nameHint } from '../../src/garment/builtin/pieces.js';
import { detectLattice, latticeFrom } from '../../src/garment/builtin/repeat.js';
import { deltaE00, labOfHex, labToRgb, rgbToLab } from '../../src/garment/color.js';
import { autocorrelate, crossCorrelate } from '../../src/garment/fft.js';
import { labOf } from '../../src/garment/image.js';
import {
  backdropAt,
  GROUND,
  garmentDocument,
  garmentPhoto,
  LIGHT_PERIOD,
  type LightPhoto,
  lightGroundPhoto,
  NAVY,
  PHOTO,
  PLAID_TILE,
  type PlainPhoto,
  plaidAt,
  plainGarmentPhoto,
  RED,
  TILE,
} from '../support/garment-fixtures.js';
import { newSession } from '../support/session.js';

/** `box`'s left, top, right and bottom each within `px` of `want`'s. */
function expectBox(box: { x: number; y: number; w: number; h: number }, want: number[], px: number): void {
  const got = [box.x, box.y, box.x + box.w, box.y + box.h];
  for (const [i, v] of got.entries())
    expect(Math.abs(v - want[i]!), `edge ${i}: ${v} for ${want[i]}`).toBeLessThanOrEqual(px);
}

describe('fft', () => {
  // Sizes that exercise fft.js's radix-4 and radix-2 ends, square and not.
  it.each([
    [5, 3, 16, 8],
    [37, 23, 64, 32],
    [20, 40, 32, 64],
  ])(
    'the auto- and cross-correlations of %i × %i images (padded %i × %i) equal the direct sums at every lag',
    (w, h, nx, ny) => {
      let seed = w * 1000 + h;
      const noise = () =>
        Float64Array.from({ length: w * h }, () => {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          return (seed % 1000) / 100 - 5;
        });
      const v = noise();
      const u = noise();
      const maxX = nx - w;
      const rows = ny - h + 1;
      const auto = autocorrelate(v, w, h, nx, ny, rows);
      const cross = crossCorrelate(v, u, w, h, nx, ny, rows);
      const direct = (a: Float64Array, b: Float64Array, dx: number, dy: number) => {
        let s = 0;
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            if (x + dx < 0 || x + dx >= w || y + dy < 0 || y + dy >= h) continue;
            s += a[y * w + x]! * b[(y + dy) * w + x + dx]!;
          }
        }
        return s;
      };
      for (let dy = 0; dy < rows; dy++) {
        for (let dx = -maxX; dx <= maxX; dx++) {
          const at = dy * nx + ((dx + nx) % nx);
          expect(auto[at]).toBeCloseTo(direct(v, v, dx, dy), 6);
          expect(cross[at]).toBeCloseTo(direct(v, u, dx, dy), 6);
        }
      }
    },
  );
});

describe('colour', () => {
  it('CIEDE2000 reproduces Sharma, Wu & Dalal test pairs', () => {
    const pairs: [number[], number[], number][] = [
      [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
      [[50, 0, 0], [50, -1, 2], 2.3669],
      [[50, 2.5, 0], [73, 25, -18], 27.1492],
      [[50, 2.5, 0], [50, 3.1736, 0.5854], 1.0],
      [[60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644],
    ];
    for (const [a, b, d] of pairs) {
      expect(deltaE00({ L: a[0]!, a: a[1]!, b: a[2]! }, { L: b[0]!, a: b[1]!, b: b[2]! })).toBeCloseTo(d, 3);
    }
  });

  it('round-trips sRGB through Lab', () => {
    for (const [r, g, b] of [
      [0, 0, 0],
      [255, 255, 255],
      [31, 58, 104],
      [232, 220, 196],
    ]) {
      expect(labToRgb(rgbToLab(r!, g!, b!))).toEqual({ r, g, b });
    }
  });
});

describe('palette and lattice', () => {
  it('k-means finds the colours and their shares, deterministically', () => {
    const samples: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const hex = i < 700 ? GROUND : i < 950 ? NAVY : RED;
      const l = labOfHex(hex);
      samples.push(l.L + ((i * 7) % 3) - 1, l.a, l.b);
    }
    const p = paletteOf(Float32Array.from(samples));
    expect(p.map((c) => c.share)).toEqual([0.7, 0.25, 0.05]);
    expect(deltaE00(p[1]!.lab, labOfHex(NAVY))).toBeLessThan(1);
    expect(paletteOf(Float32Array.from(samples))).toEqual(p);
  });

  it('names block, half-drop and half-brick lattices and their super-tiles', () => {
    expect(latticeFrom([64, 0], [0, 64], 1, 1e5)).toMatchObject({ tileW: 64, tileH: 64, layout: 'block' });
    expect(latticeFrom([64, 32], [0, 64], 1, 1e5)).toMatchObject({
      tileW: 128,
      tileH: 64,
      layout: 'half_drop',
    });
    expect(latticeFrom([96, 0], [48, 96], 1, 1e5)).toMatchObject({
      tileW: 96,
      tileH: 192,
      layout: 'half_brick',
    });
  });

  describe('prefers the full period when a shorter lag is not an exact repeat', () => {
    const mod = (a: number, n: number) => ((a % n) + n) % n;
    /** Luminance fields with a known period, under mild folds and deterministic noise, as in a photo. */
    const fields: Record<
      string,
      { period: [number, number]; shorter?: number; at: (x: number, y: number) => number }
    > = {
      // Three similar 28 px sub-blocks per 84 px tile, an accent line once per tile: the plaid.
      'tartan 84 (sub-blocks of 28)': {
        period: [84, 84],
        shorter: 28,
        at: (x, y) => {
          const band = (u: number) => {
            const s = mod(u, 84);
            return (
              (s % 28 < 12 ? 60 : 0) + (s % 28 >= 16 && s % 28 < 18 ? 25 : 0) + (s >= 70 && s < 74 ? 90 : 0)
            );
          };
          return 220 - 0.5 * band(x) - 0.5 * band(y);
        },
      },
      // Two near-identical halves: only a faint line tells them apart.
      'check 96 (halves of 48)': {
        period: [96, 96],
        shorter: 48,
        at: (x, y) => {
          const band = (u: number) => {
            const s = mod(u, 96);
            return (s % 48 < 16 ? 70 : 0) + (s >= 30 && s < 34 ? 40 : 0);
          };
          return 220 - 0.5 * band(x) - 0.5 * band(y);
        },
      },
      // A large floral repeat over a fine weave (an 8 px basket check, as strong as the flowers' shading).
      'floral 96 over a weave': {
        period: [96, 96],
        at: (x, y) => {
          const u = mod(x, 96);
          const v = mod(y, 96);
          let f = 0;
          for (const [cx, cy, r] of [
            [30, 30, 22],
            [70, 66, 16],
            [78, 18, 8],
          ] as const) {
            const d = Math.hypot(u - cx, v - cy);
            if (d < r) f += 80 * (1 - (d / r) ** 2);
          }
          return 200 - f + 30 * (mod(x, 8) < 4 ? 1 : -1) * (mod(y, 8) < 4 ? 1 : -1);
        },
      },
      // Stripes repeat under any shift along them: their tile is one period square, not a skewed lattice.
      'horizontal stripes 40': { period: [40, 40], at: (_x, y) => (mod(y, 40) < 14 ? 60 : 210) },
      'vertical stripes 36': { period: [36, 36], at: (x) => (mod(x, 36) < 9 ? 90 : 200) },
      // Controls: exact short repeats stay short.
      'gingham 40': {
        period: [40, 40],
        at: (x, y) => 230 - (mod(x, 40) < 20 ? 50 : 0) - (mod(y, 40) < 20 ? 50 : 0),
      },
      'half-drop 64': {
        period: [128, 64],
        at: (x, y) => {
          const yy = Math.floor(x / 64) % 2 ? y + 32 : y;
          return (mod(x, 64) - 20) ** 2 + (mod(yy, 64) - 20) ** 2 < 144 ? 40 : 200;
        },
      },
    };
    for (const [name, f] of Object.entries(fields)) {
      it(name, () => {
        const w = 400;
        const h = 420;
        let seed = 1;
        const lum = new Float64Array(w * h);
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            const fold = 0.95 + 0.05 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
            lum[y * w + x] = f.at(x + 5, y + 9) * fold + (((seed >> 8) % 9) - 4);
          }
        }
        const lat = detectLattice(lum, new Uint8Array(w * h).fill(1), w, h)!;
        expect([lat.tileW, lat.tileH]).toEqual(f.period);
        expect(lat.confidence).toBeGreaterThan(0.9);
        if (f.shorter) {
          // The shorter lattice the autocorrelation peaks suggested is reported as rejected.
          const lens = [lat.shorter!.v1, lat.shorter!.v2].map((v) => Math.hypot(v[0], v[1]));
          expect(lens).toEqual([f.shorter, f.shorter]);
          expect(lat.shorter!.confidence).toBeLessThan(lat.confidence);
        } else expect(lat.shorter).toBeUndefined();
      });
    }
  });

  // Real tiles (Debian gimp-data-extras, GPL, so read from the system, never vendored): each one's period was
  // reported as a fraction of it before the exactness check (75 × 50 for 150 × 100, 48 for 120, 11 for 64).
  const GIMP = '/usr/share/gimp/2.0/patterns';
  it.skipIf(!existsSync(GIMP))('finds the full tile of real GIMP patterns under folds and noise', () => {
    for (const [file, tw, th] of [
      ['abstract_flowers.pat', 150, 100],
      ['greyweave2.pat', 120, 120],
      ['woodblind.pat', 64, 64],
    ] as const) {
      const buf = readFileSync(join(GIMP, file));
      const hs = buf.readUInt32BE(0);
      const ch = buf.readUInt32BE(16);
      expect([buf.readUInt32BE(8), buf.readUInt32BE(12)]).toEqual([tw, th]);
      const w = 460;
      const h = 420;
      let seed = 3;
      const lum = new Float64Array(w * h);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const i = hs + ((y % th) * tw + (x % tw)) * ch;
          const l = ch >= 3 ? 0.2126 * buf[i]! + 0.7152 * buf[i + 1]! + 0.0722 * buf[i + 2]! : buf[i]!;
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          const fold = 0.95 + 0.05 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
          lum[y * w + x] = l * fold + (((seed >> 8) % 9) - 4);
        }
      }
      const lat = detectLattice(lum, new Uint8Array(w * h).fill(1), w, h);
      expect(lat && [lat.tileW, lat.tileH], file).toEqual([tw, th]);
    }
  });

  it('finds nothing in noise', () => {
    const w = 200;
    const h = 200;
    let seed = 7;
    const lum = Float64Array.from({ length: w * h }, () => {
      seed = (seed * 16807) % 2147483647;
      return seed % 256;
    });
    expect(detectLattice(lum, new Uint8Array(w * h).fill(1), w, h)).toBeNull();
  });
});

describe('photo extraction', () => {
  it('recovers a block repeat: period 64 ±1, palette within ΔE00 5, no motif', async () => {
    const e = await analysePhoto(await garmentPhoto('fill'), 'p.png', 'h');
    expect(e.kind).toBe('fill_pattern');
    expect(e.swatch).toBe(false);
    expect(Math.abs(e.lattice!.tileW - TILE)).toBeLessThanOrEqual(1);
    expect(Math.abs(e.lattice!.tileH - TILE)).toBeLessThanOrEqual(1);
    expect(e.lattice!.layout).toBe('block');
    for (const truth of [GROUND, NAVY, RED]) {
      expect(Math.min(...e.palette.map((c) => deltaE00(c.lab, labOfHex(truth))))).toBeLessThan(5);
    }
    expect(deltaE00(e.ground.lab, labOfHex(GROUND))).toBeLessThan(5);
    expect(e.motif).toBeNull();
    expect(e.bodyWidth).toBe(300);
    expect(e.garment).toMatchObject({ x: 60, y: 150, w: 520, h: 450 });
  });

  it('takes the tile without the light: no banding from a falloff and folds across the garment', async () => {
    // The print's ground in the tile, row by row and column by column (away from the disc and the dot).
    const bands = (tile: { w: number; h: number; data: Uint8ClampedArray }) => {
      const rows = new Float64Array(tile.h);
      const cols = new Float64Array(tile.w);
      const rowN = new Float64Array(tile.h);
      const colN = new Float64Array(tile.w);
      for (let v = 0; v < tile.h; v++) {
        for (let u = 0; u < tile.w; u++) {
          if ((u - 20) ** 2 + (v - 20) ** 2 <= 15 ** 2 || (u - 48) ** 2 + (v - 44) ** 2 <= 9 ** 2) continue;
          const o = (v * tile.w + u) * 4;
          const L = labOf(tile.data[o]!, tile.data[o + 1]!, tile.data[o + 2]!).L;
          rows[v]! += L;
          rowN[v]!++;
          cols[u]! += L;
          colN[u]!++;
        }
      }
      const range = (s: Float64Array, n: Float64Array) => {
        const m = [...s].map((v, i) => v / n[i]!);
        return Math.max(...m) - Math.min(...m);
      };
      return { rows: range(rows, rowN), cols: range(cols, colN) };
    };
    // The light fades 20 % from collar to hem and two folds cross the body: a median over repeats taken from
    // different heights kept that as a 3.9 L ramp down the tile (a visible step at every repeat when tiled).
    const e = await analysePhoto(await garmentPhoto('fill', 1, 'falloff'), 'p.png', 'h');
    expect([e.lattice!.tileW, e.lattice!.tileH]).toEqual([TILE, TILE]);
    const b = bands(e.tile);
    console.log(`tile banding under a falloff: rows ${b.rows.toFixed(2)} L, columns ${b.cols.toFixed(2)} L`);
    expect(b.rows).toBeLessThan(2);
    expect(b.cols).toBeLessThan(1.5);
    expect(deltaE00(e.ground.lab, labOfHex(GROUND))).toBeLessThan(10);
  });

  it('recovers a plaid at its full 84 px tile, not its 28 px sub-blocks', async () => {
    const e = await analysePhoto(await garmentPhoto('plaid'), 'p.png', 'h');
    expect(e.kind).toBe('fill_pattern');
    expect([e.lattice!.tileW, e.lattice!.tileH]).toEqual([PLAID_TILE, PLAID_TILE]);
    expect(e.lattice!.shorter).toBeDefined();
    // The median tile is the plaid: one red accent line per tile in each direction, where the truth has it.
    let wrong = 0;
    for (let y = 0; y < PLAID_TILE; y++) {
      for (let x = 0; x < PLAID_TILE; x++) {
        const o = (y * PLAID_TILE + x) * 4;
        const got = labOf(e.tile.data[o]!, e.tile.data[o + 1]!, e.tile.data[o + 2]!);
        const [r, g, b] = plaidAt(x, y);
        if (deltaE00(got, labOf(r, g, b)) > 8) wrong++;
      }
    }
    // Edges of bands may be a pixel off (the fold shading and the median), nothing more.
    expect(wrong / PLAID_TILE ** 2).toBeLessThan(0.12);
  });

  it('recovers a half-drop repeat as a 128 × 64 super-tile', async () => {
    const e = await analysePhoto(await garmentPhoto('half_drop'), 'p.png', 'h');
    expect(e.lattice).toMatchObject({ tileW: 128, tileH: 64, layout: 'half_drop' });
  });

  it('finds the placed motif (theme) and the motif over a repeat (mixed); a plain garment is solid', async () => {
    const theme = await analysePhoto(await garmentPhoto('theme'), 'p.png', 'h');
    expect(theme.kind).toBe('theme_pattern');
    // The flower spans x 270..370, y 278..377 in the photo.
    expect(theme.motif!.bounds.x).toBeGreaterThanOrEqual(268);
    expect(theme.motif!.bounds.x + theme.motif!.bounds.w).toBeLessThanOrEqual(373);
    expect(Math.abs(theme.motif!.bounds.w - 101)).toBeLessThanOrEqual(3);
    const mixed = await analysePhoto(await garmentPhoto('mixed'), 'p.png', 'h');
    expect(mixed.kind).toBe('mixed_pattern');
    expect(mixed.lattice!.tileW).toBe(TILE);
    const solid = await analysePhoto(await garmentPhoto('solid'), 'p.png', 'h');
    expect(solid.kind).toBe('solid');
    expect(solid.lattice).toBeNull();
    expect(deltaE00(solid.ground.lab, labOfHex(GROUND))).toBeLessThan(5);
  });

  describe('a plain garment is solid: its neck opening, armholes and fold shadows are not motifs', () => {
    const cases: [string, PlainPhoto][] = [
      [
        'cream, neck showing a grey background',
        { ground: '#e8dcc4', background: '#7a8088', neck: 'background', shadow: 0.3 },
      ],
      [
        'cream, neck showing the inside',
        { ground: '#e8dcc4', background: '#7a8088', neck: 'inside', shadow: 0.3 },
      ],
      [
        'red on light grey, neck showing the background',
        { ground: '#b22234', background: '#d8d8d8', neck: 'background', shadow: 0.35 },
      ],
      [
        'navy on white, neck showing the inside',
        { ground: '#1f3a68', background: '#f2f2f2', neck: 'inside', shadow: 0.4 },
      ],
      [
        'grey on white, deep folds',
        { ground: '#8a8f96', background: '#ffffff', neck: 'inside', shadow: 0.45 },
      ],
    ];
    for (const [name, p] of cases) {
      it(name, async () => {
        const e = await analysePhoto(await plainGarmentPhoto(p), 'p.png', 'h');
        expect(e.swatch).toBe(false);
        expect(e.motif).toBeNull();
        expect(e.lattice).toBeNull();
        expect(e.kind).toBe('solid');
        expect(e.flatness).toBeGreaterThanOrEqual(0.9);
        expect(e.notPrint).toContain('neck_opening');
        expect(e.notPrint).toContain('fold_shadow');
        // The colour is the garment's (lit: the photo's light is 0.97..1 of it), and nothing else is in the palette.
        expect(deltaE00(e.ground.lab, labOfHex(p.ground))).toBeLessThan(4);
        for (const c of e.palette) expect(deltaE00(c.lab, labOfHex(p.background))).toBeGreaterThan(10);
        expect(e.palette).toHaveLength(1);
      });
    }
  });

  it('still finds a crisp tone-on-tone motif (a darker shade of the ground) among the shadows', async () => {
    const e = await analysePhoto(
      await plainGarmentPhoto({
        ground: '#e8dcc4',
        background: '#7a8088',
        neck: 'inside',
        shadow: 0.3,
        star: '#8b8475', // the ground × 0.6
      }),
      'p.png',
      'h',
    );
    expect(e.kind).toBe('theme_pattern');
    const b = e.motif!.bounds;
    // The star spans 263..377 × 271..378 in the photo.
    expectBox(b, [263, 271, 377, 378], 3);
  });

  describe('finds a light-ground print on a light studio background by its shading and outline', () => {
    const cases: [string, LightPhoto][] = [
      [
        'white, red dots, on light grey, cast shadow',
        { ground: '#fafaf7', background: '#e9e9e9', print: 'dots', castShadow: true },
      ],
      [
        'cream, flowers, on white, no cast shadow',
        { ground: '#f3ead8', background: '#fdfdfd', print: 'flowers', castShadow: false },
      ],
      [
        'white, red dots, on white, cast shadow',
        { ground: '#fbfbf9', background: '#ffffff', print: 'dots', castShadow: true },
      ],
      [
        'white, flowers, on white, no cast shadow',
        { ground: '#fbfbf9', background: '#ffffff', print: 'flowers', castShadow: false },
      ],
    ];
    for (const [name, p] of cases) {
      it(name, async () => {
        const e = await analysePhoto(await lightGroundPhoto(p), 'p.png', 'h');
        expect(e.swatch, 'the garment is found, not taken for a swatch').toBe(false);
        // The scale comes from the body width: 300 px in the photo, within ±10 %.
        expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.1);
        expect(e.kind).toBe('fill_pattern');
        const period = LIGHT_PERIOD[p.print];
        expect([e.lattice!.tileW, e.lattice!.tileH]).toEqual([period, period]);
        // The background is not in the palette: every colour is nearer a colour of the print than the background.
        const printColours = [p.ground, '#d0312d', '#e0709a', '#4f8a3c', '#f2b632'].map(labOfHex);
        for (const c of e.palette) {
          const toPrint = Math.min(...printColours.map((q) => deltaE00(c.lab, q)));
          expect(toPrint, `${c.hex} is a print colour`).toBeLessThan(deltaE00(c.lab, labOfHex(p.background)));
        }
        // The small motifs are kept: the red dots (or the pink petals) are in the palette.
        const accent = labOfHex(p.print === 'dots' ? '#d0312d' : '#e0709a');
        expect(Math.min(...e.palette.map((c) => deltaE00(c.lab, accent)))).toBeLessThan(6);
      });
    }
  });

  it('treats a photo that is all fabric as a swatch', async () => {
    const sharp = (await import('sharp')).default;
    const full = await garmentPhoto('fill');
    const crop = await sharp(full).extract({ left: 180, top: 320, width: 256, height: 256 }).png().toBuffer();
    const e = await analysePhoto(crop, 'p.png', 'h');
    expect(e.swatch).toBe(true);
    expect(e.lattice).toMatchObject({ tileW: TILE, tileH: TILE });
    expect(PHOTO.width).toBe(640);
    // Other prints, cropped anywhere, and a check that is all check: the border's few colours are everywhere.
    for (const [kind, left, top, side] of [
      ['plaid', 180, 320, 256],
      ['stripes', 175, 200, 290],
      ['half_drop', 190, 330, 200],
      ['fill', 175, 200, 290],
    ] as const) {
      const piece = await sharp(await garmentPhoto(kind))
        .extract({ left, top, width: side, height: side })
        .png()
        .toBuffer();
      expect((await analysePhoto(piece, 'p.png', 'h')).swatch, `${kind} at ${left},${top}`).toBe(true);
    }
    const check = Buffer.alloc(400 * 400 * 3);
    for (let y = 0; y < 400; y++)
      for (let x = 0; x < 400; x++) check.set(backdropAt('gingham', x + 7, y + 5), (y * 400 + x) * 3);
    const all = await sharp(check, { raw: { width: 400, height: 400, channels: 3 } })
      .png()
      .toBuffer();
    expect((await analysePhoto(all, 'p.png', 'h')).swatch).toBe(true);
  });

  describe('finds a garment flat-laid on a patterned surface, not a swatch, and keeps the surface out of the print', () => {
    // The T-shirt spans 60..580 × 150..600 in the photo, its body 300 px wide; the surfaces' colours.
    const surfaces = {
      wood: ['#9e7048', '#5c3e26'],
      gingham: ['#f8f6f2', '#e28c88', '#c42c34'],
      carpet: ['#767470', '#4e4c48', '#908e8a'],
    } as const;
    for (const backdrop of ['wood', 'gingham', 'carpet'] as const) {
      it(backdrop, async () => {
        const e = await analysePhoto(await garmentPhoto('fill', 1, 'folds', backdrop), 'p.png', 'h');
        expect(e.swatch).toBe(false);
        const g = e.garment;
        expectBox(g, [60, 150, 580, 600], 3);
        expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
        expect([e.lattice!.tileW, e.lattice!.tileH]).toEqual([TILE, TILE]);
        const print = [GROUND, NAVY, RED].map(labOfHex);
        for (const c of e.palette) {
          const toPrint = Math.min(...print.map((q) => deltaE00(c.lab, q)));
          const toSurface = Math.min(...surfaces[backdrop].map((q) => deltaE00(c.lab, labOfHex(q))));
          expect(toPrint, `${c.hex} is a print colour`).toBeLessThan(toSurface);
        }
        // A solid garment on it stays solid: the surface's pattern is not taken for a print.
        const solid = await analysePhoto(await garmentPhoto('solid', 1, 'folds', backdrop), 'p.png', 'h');
        expect([solid.swatch, solid.kind, solid.bodyWidth]).toEqual([false, 'solid', 300]);
      });
    }

    // A plain garment of one of the surface's own colours has no colour to tell it by: its lack of the surface's
    // texture does. (A plank-coloured shirt on the planks is still read as a swatch: a window as tall as a plank
    // is as even as the shirt.)
    for (const [backdrop, colour, within] of [
      ['gingham', '#f8f6f2', 3],
      ['gingham', '#c42c34', 3],
      ['carpet', '#767470', 6],
    ] as const) {
      it(`a ${colour} shirt on the ${backdrop}, of the surface's own colour`, async () => {
        const e = await analysePhoto(await garmentPhoto('solid', 1, 'folds', backdrop, colour), 'p.png', 'h');
        expect([e.swatch, e.kind]).toEqual([false, 'solid']);
        const g = e.garment;
        expectBox(g, [60, 150, 580, 600], within);
        expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
        expect(deltaE00(e.palette[0]!.lab, labOfHex(colour))).toBeLessThan(5);
      });
    }
  });
});

describe('pieces', () => {
  it('reads part keywords in Chinese and English, with sides', () => {
    expect(nameHint('前片')).toEqual({ part: 'front', side: null });
    expect(nameHint('后幅')).toEqual({ part: 'back', side: null });
    expect(nameHint('左袖')).toEqual({ part: 'sleeve', side: 'left' });
    expect(nameHint('sleeve_R')).toEqual({ part: 'sleeve', side: 'right' });
    expect(nameHint('袖口')).toEqual({ part: 'cuff', side: null });
    expect(nameHint('Collar')).toEqual({ part: 'collar', side: null });
    expect(nameHint('口袋')).toEqual({ part: 'pocket', side: null });
    expect(nameHint('腰头')).toEqual({ part: 'waistband', side: null });
    expect(nameHint('Layer 3')).toBeNull();
  });

  it('measures symmetry and neckline depth; ignores hidden, clipped and background layers', async () => {
    const session = newSession();
    const state = await garmentDocument(session, 'none');
    const shapes = collectPieces(state);
    expect(shapes).toHaveLength(5);
    const byName = Object.fromEntries(shapes.map((s) => [s.name, s]));
    expect(byName['图层 3']!.symmetry).toBeGreaterThan(0.98); // front
    expect(byName['图层 5']!.symmetry).toBeLessThan(0.9); // sleeve
    expect(byName['图层 3']!.neckDepth).toBeGreaterThan(byName['图层 1']!.neckDepth);
    const hidden = { ...state, layers: new Map(state.layers) };
    const id = shapes[0]!.layerId;
    hidden.layers.set(id, { ...state.layers.get(id)!, visible: false });
    expect(collectPieces(hidden)).toHaveLength(4);
    const parts = classifyPieces(collectPieces(state));
    const of = (name: string) => parts.find((p) => p.name === name)!;
    expect([of('图层 3').part, of('图层 1').part, of('图层 4').part]).toEqual(['front', 'back', 'collar']);
    // The capless synthetic sleeves: sleeves, or a part in doubt (identify_pieces then asks to confirm).
    for (const p of [of('图层 2'), of('图层 5')])
      expect(p.part.endsWith('_sleeve') || p.doubt !== undefined).toBe(true);
  });

  it('reads a piece cut by its layer mask as the mask shows it', async () => {
    const session = newSession();
    const state = await garmentDocument(session, 'none');
    const front = collectPieces(state).find((s) => s.name === '图层 3')!;
    // The same front as an opaque print rectangle, its outline in a layer mask (a common way to shape a print).
    const layer = state.layers.get(front.layerId) as PixelLayer;
    const r = layer.raster;
    const rect = { ...r, data: new Uint8ClampedArray(r.data.length) };
    const mask = new Uint8Array(r.w * r.h);
    for (let i = 0; i < r.w * r.h; i++) {
      rect.data.set([200, 60, 60, 255], i * 4);
      mask[i] = r.data[i * 4 + 3]!;
    }
    const layers = new Map(state.layers);
    const masked: DocState = { ...state, layers };
    const lm = { x: r.x, y: r.y, w: r.w, h: r.h, data: mask, outside: 0 as const };
    layers.set(layer.id, { ...layer, raster: rect, mask: { ...lm, enabled: true } });
    const shape = collectPieces(masked).find((s) => s.name === '图层 3')!;
    expect(shape.area).toBe(front.area);
    expect(shape.bounds).toEqual(front.bounds);
    expect(shape.neckDepth).toBeCloseTo(front.neckDepth, 5);
    expect(classifyPieces(collectPieces(masked)).find((p) => p.name === '图层 3')!.part).toBe('front');
    // A disabled mask hides nothing: the rectangle is what is measured.
    layers.set(layer.id, { ...layer, raster: rect, mask: { ...lm, enabled: false } });
    expect(collectPieces(masked).find((s) => s.name === '图层 3')!.area).toBe(r.w * r.h);
  });
});
