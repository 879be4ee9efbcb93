/**
 * Colour, guides and colour modes: set_foreground_color, get_pixel_color, add_guide, clear_guides,
 * convert_to_rgb, convert_to_cmyk — through the real Session. References: the W3C source-over formula written
 * here, psd-tools for guides in saved PSDs, ImageMagick (lcms) doing the same ICC round trip with the profile our
 * CMYK JPEG embeds and lcms' own sRGB profile, and `identify` for the JPEG colour space.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { NO_LOCKS } from '../../src/engine/factory.js';
import type { Raster, TextLayer } from '../../src/engine/model.js';
import { CONVERT, identifyInfo, imageMagickAvailable } from '../support/imagemagick.js';
import { psdToolsAvailable, readWithPsdTools, SYSTEM_PYTHON } from '../support/psd-tools.js';
import { hashEditor, newSession, ok, refused } from '../support/session.js';
import { addLayer, addPixel, current, edit, named, px, rasterOf, solid } from './layer-fixtures.js';

const run = promisify(execFile);

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

async function doc(w = 20, h = 10): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: w, height: h });
  return s;
}

// ---------------------------------------------------------------------------------------------------------
// The ICC reference: ImageMagick with lcms, perceptual intent, sRGB (lcms built-in) → CMYK → sRGB.

interface Profiles {
  readonly dir: string;
  readonly srgb: string;
  readonly cmyk: string;
}

/** The CMYK profile our CMYK JPEG export embeds (extracted by ImageMagick) and lcms' built-in sRGB profile. */
async function profiles(s: Session): Promise<Profiles> {
  const dir = await mkdtemp(path.join(tmpdir(), 'icc-'));
  await ok(s, 'save_document_as', { path: 'probe.jpg' });
  const jpg = path.join(s.workspace.root, 'probe.jpg');
  const cmyk = path.join(dir, 'cmyk.icc');
  await run(CONVERT, [jpg, `icc:${cmyk}`]);
  const srgb = path.join(dir, 'srgb.icc');
  await run(SYSTEM_PYTHON, [
    '-c',
    `from PIL import ImageCms; open(${JSON.stringify(srgb)}, 'wb').write(ImageCms.ImageCmsProfile(ImageCms.createProfile('sRGB')).tobytes())`,
  ]);
  return { dir, srgb, cmyk };
}

/** ImageMagick's sRGB → CMYK → sRGB of `rgb` (w × h, 3 bytes per pixel). */
async function imRoundTrip(p: Profiles, rgb: Uint8Array, w: number, h: number): Promise<Uint8Array> {
  const input = path.join(p.dir, 'in.rgb');
  const output = path.join(p.dir, 'out.rgb');
  await writeFile(input, rgb);
  await run(CONVERT, [
    '-size',
    `${w}x${h}`,
    '-depth',
    '8',
    `rgb:${input}`,
    '-intent',
    'Perceptual',
    '-profile',
    p.srgb,
    '-profile',
    p.cmyk,
    '-profile',
    p.srgb,
    '-depth',
    '8',
    `rgb:${output}`,
  ]);
  return new Uint8Array(await readFile(output));
}

/** ImageMagick's ink values (0–100 %) for one sRGB colour. */
async function imCmyk(p: Profiles, [r, g, b]: readonly number[]): Promise<number[]> {
  const input = path.join(p.dir, 'one.rgb');
  await writeFile(input, Uint8Array.from([r!, g!, b!]));
  const { stdout } = await run(
    CONVERT,
    [
      '-size',
      '1x1',
      '-depth',
      '8',
      `rgb:${input}`,
      '-intent',
      'Perceptual',
      '-profile',
      p.srgb,
      '-profile',
      p.cmyk,
      '-depth',
      '8',
      'cmyk:-',
    ],
    { encoding: 'buffer' },
  );
  return [...(stdout as Buffer)].map((v) => (v / 255) * 100);
}

/** 16 × 16 × 16 colours, one per pixel, on a 64 × 64 raster. */
function colourGrid(x: number, y: number): Raster {
  const data = new Uint8ClampedArray(64 * 64 * 4);
  let i = 0;
  for (let r = 0; r < 16; r++)
    for (let g = 0; g < 16; g++)
      for (let b = 0; b < 16; b++) {
        data.set([r * 17, g * 17, b * 17, 255], i);
        i += 4;
      }
  return { x, y, w: 64, h: 64, data };
}

function rgbOf(r: Raster): Uint8Array {
  const out = new Uint8Array(r.w * r.h * 3);
  for (let i = 0, j = 0; i < r.data.length; i += 4, j += 3) out.set(r.data.subarray(i, i + 3), j);
  return out;
}

// ---------------------------------------------------------------------------------------------------------

describe('set_foreground_color', () => {
  it('stores the colour without adding a history step', async () => {
    const s = await doc();
    const steps = labels(s).length;
    const r = await ok(s, 'set_foreground_color', { color: 'F80' });
    expect(r).toMatchObject({ foreground: '#ff8800', previous: '#000000' });
    expect(current(s).foreground).toEqual({ r: 255, g: 136, b: 0 });
    expect(labels(s).length).toBe(steps);
    await refused(s, 'set_foreground_color', { color: 'orange' }, 'invalid_arguments');
  });

  it('is not history: undo and redo of other steps leave the foreground as it is (as in Photoshop)', async () => {
    const s = await doc();
    await ok(s, 'set_foreground_color', { color: '#ff0000' });
    await ok(s, 'create_layer', { name: '一' });
    await ok(s, 'set_foreground_color', { color: '#0000ff' });
    await ok(s, 'create_layer', { name: '二' });
    const steps = labels(s).length;
    await ok(s, 'undo', { steps: 2 });
    expect(current(s).foreground).toEqual({ r: 0, g: 0, b: 255 });
    expect(labels(s).length).toBe(steps);
    await ok(s, 'redo', { steps: 1 });
    expect(current(s).foreground).toEqual({ r: 0, g: 0, b: 255 });
    expect((await ok(s, 'set_foreground_color', { color: '#00ff00' })).previous).toBe('#0000ff');
  });

  it('in CMYK mode clamps the colour through the CMYK transform', async () => {
    const s = await doc();
    await ok(s, 'convert_to_cmyk');
    const r = await ok(s, 'set_foreground_color', { color: '#00ff00' });
    expect(r.requested_color).toBe('#00ff00');
    const fg = current(s).foreground;
    expect(Math.hypot(fg.r, 255 - fg.g, fg.b)).toBeGreaterThan(60);
  });
});

describe('get_pixel_color', () => {
  it('reads the composite at the integer pixel under x, y', async () => {
    const s = await doc();
    edit(s, (st) => addPixel(st, 'half red', solid({ x: 2, y: 2, w: 4, h: 3 }, [255, 0, 0, 128])));
    const r = await ok(s, 'get_pixel_color', { x: 3.9, y: 2.2 });
    // W3C source-over of red at α 128/255 onto opaque white.
    const a = 128 / 255;
    const want = [255, Math.round(255 * (1 - a)), Math.round(255 * (1 - a))];
    expect(r).toMatchObject({ x: 3, y: 2, a: 255, alpha: 100, mode: 'RGB' });
    for (const [i, k] of (['r', 'g', 'b'] as const).entries())
      expect(Math.abs((r[k] as number) - want[i]!)).toBeLessThanOrEqual(1);
    expect(r.hex).toBe(
      `#${[r.r, r.g, r.b].map((v) => (v as number).toString(16).padStart(2, '0')).join('')}`,
    );
    expect(r.cmyk).toBeUndefined();
    expect((await ok(s, 'get_pixel_color', { x: 19.99, y: 9.5 })).hex).toBe('#ffffff');
  });

  it('reports transparency and partial alpha', async () => {
    const s = await doc();
    edit(s, (st) => addPixel(st, 'ghost', solid({ x: 0, y: 0, w: 2, h: 2 }, [10, 20, 30, 128])));
    await ok(s, 'set_layer_visible', { name: '背景', visible: false });
    const half = await ok(s, 'get_pixel_color', { x: 1, y: 1 });
    expect(half).toMatchObject({ hex: '#0a141e', r: 10, g: 20, b: 30, a: 128, alpha: 50.2 });
    const none = await ok(s, 'get_pixel_color', { x: 5, y: 5 });
    expect(none).toMatchObject({ transparent: true, a: 0, alpha: 0, hex: null });
  });

  it('refuses points outside the canvas, stating its size, and adds no history step', async () => {
    const s = await doc();
    const steps = labels(s).length;
    const e = await refused(s, 'get_pixel_color', { x: 20, y: 0 }, 'out_of_bounds');
    expect(e.message).toContain('20×10');
    await refused(s, 'get_pixel_color', { x: 0, y: 10 }, 'out_of_bounds');
    await refused(s, 'get_pixel_color', { x: -1, y: 0 }, 'invalid_arguments');
    await ok(s, 'get_pixel_color', { x: 0, y: 0 });
    expect(labels(s).length).toBe(steps);
  });
});

describe('guides', () => {
  it('adds guides inside the canvas (its edges included) as history steps and refuses positions beyond it', async () => {
    const s = await doc(100, 50);
    await ok(s, 'add_guide', { position: 10, direction: 'vertical' });
    await ok(s, 'add_guide', { position: 12.5, direction: 'horizontal' });
    const r = await ok(s, 'add_guide', { position: 100, direction: 'vertical' });
    expect(r.guide_count).toBe(3);
    expect(labels(s).at(-1)).toBe('添加参考线');
    expect(current(s).guides).toEqual([
      { direction: 'vertical', position: 10 },
      { direction: 'horizontal', position: 12.5 },
      { direction: 'vertical', position: 100 },
    ]);
    const e = await refused(s, 'add_guide', { position: 51, direction: 'horizontal' }, 'out_of_bounds');
    expect(e.message).toContain('100×50');
    await refused(s, 'add_guide', { position: 100.5, direction: 'vertical' }, 'out_of_bounds');
    await refused(s, 'add_guide', { position: -1, direction: 'vertical' }, 'invalid_arguments');
    await refused(s, 'add_guide', { position: 5, direction: 'diagonal' }, 'invalid_arguments');
    expect((await ok(s, 'get_document_info')).guides).toBe(3);
  });

  it('clear_guides removes them all; with none it changes nothing', async () => {
    const s = await doc();
    await ok(s, 'add_guide', { position: 3, direction: 'vertical' });
    await ok(s, 'add_guide', { position: 3, direction: 'vertical' });
    expect(await ok(s, 'clear_guides')).toMatchObject({ cleared: 2 });
    expect(current(s).guides).toEqual([]);
    expect(labels(s).at(-1)).toBe('清除参考线');
    const steps = labels(s).length;
    expect(await ok(s, 'clear_guides')).toMatchObject({ cleared: 0 });
    expect(labels(s).length).toBe(steps);
  });

  it('are saved in the PSD, as psd-tools reads them', async () => {
    if (!psdToolsAvailable()) return;
    const s = await doc(100, 50);
    await ok(s, 'add_guide', { position: 25, direction: 'vertical' });
    await ok(s, 'add_guide', { position: 40.5, direction: 'horizontal' });
    await ok(s, 'save_document_as', { path: 'g.psd' });
    const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'g.psd')));
    expect(dump.guides).toEqual([
      { location: 25, direction: 'vertical' },
      { location: 40.5, direction: 'horizontal' },
    ]);
  });
});

describe('colour modes', () => {
  it('convert_to_cmyk clips out-of-gamut colours as lcms does, keeps greys grey and alpha exact', async () => {
    const s = await doc(80, 80);
    edit(s, (st) => addPixel(st, 'grid', colourGrid(0, 0)));
    const alphas = [0, 1, 64, 128, 200, 255];
    const translucent = new Uint8ClampedArray(alphas.flatMap((a) => [0, 255, 0, a]));
    edit(s, (st) => addPixel(st, 'alpha', { x: 70, y: 70, w: 6, h: 1, data: translucent }));
    const before = rasterOf(named(current(s), 'grid'));
    const r = await ok(s, 'convert_to_cmyk');
    expect(r.changed).toBe(true);
    expect((r.document as { mode: string }).mode).toBe('CMYK');
    expect((await ok(s, 'get_document_info')).document).toMatchObject({ mode: 'CMYK' });
    expect(labels(s).at(-1)).toBe('转CMYK');
    const after = rasterOf(named(current(s), 'grid'));
    expect(before.data[1 * 4 + 2]).toBe(17); // the input is untouched

    /** The converted colour of grid entry (r, g, b) × 17. */
    const at = (rr: number, gg: number, bb: number): number[] => {
      const i = (rr * 256 + gg * 16 + bb) * 4;
      return [...after.data.subarray(i, i + 3)];
    };
    // Pure green (0, 255, 0) comes back much duller; white stays white; greys stay neutral.
    const green = at(0, 15, 0);
    expect(Math.hypot(green[0]!, 255 - green[1]!, green[2]!)).toBeGreaterThan(80);
    expect(at(15, 15, 15)).toEqual([255, 255, 255]);
    for (let v = 0; v < 16; v++) {
      const [gr, gg, gb] = at(v, v, v);
      // Greys stay neutral down to black with the SWOP press profile; black comes back as the press's darkest
      // printable grey (0 → 21, 23, 24).
      expect(Math.max(gr!, gg!, gb!) - Math.min(gr!, gg!, gb!)).toBeLessThanOrEqual(4);
      expect(Math.abs(gg! - v * 17)).toBeLessThanOrEqual(24);
    }

    // Alpha exactly as it was; colour the same at every alpha.
    const tr = rasterOf(named(current(s), 'alpha'));
    expect([...tr.data].filter((_, i) => i % 4 === 3)).toEqual(alphas);
    for (let i = 2; i < 6; i++) expect(px(tr, 70 + i, 70).slice(0, 3)).toEqual(green);

    if (!imageMagickAvailable()) return;
    const p = await profiles(s);
    try {
      const ref = await imRoundTrip(p, rgbOf(before), 64, 64);
      const ours = rgbOf(after);
      let max = 0;
      let sum = 0;
      for (let i = 0; i < ours.length; i++) {
        const d = Math.abs(ours[i]! - ref[i]!);
        max = Math.max(max, d);
        sum += d;
      }
      // The forward leg agrees with lcms (sharp's CMYK bytes equal PIL's); on the way back libvips goes CMYK → Lab →
      // sRGB without lcms' black-point handling, so dark saturated colours differ most: measured max 24
      // ((51, 68, 0) → (52, 63, 0) here, (51, 63, 24) in lcms), mean 2.0 over these 4096 colours.
      expect(sum / ours.length).toBeLessThanOrEqual(2.5);
      expect(max).toBeLessThanOrEqual(30);
      // And the clipping itself is large: the round trip moves saturated colours a long way.
      let moved = 0;
      const orig = rgbOf(before);
      for (let i = 0; i < ours.length; i++) moved = Math.max(moved, Math.abs(ours[i]! - orig[i]!));
      expect(moved).toBeGreaterThan(100);
    } finally {
      await rm(p.dir, { recursive: true, force: true });
    }
  });

  it('converts stored colours too: fills, text, effects and the foreground, the same way as pixels', async () => {
    const s = await doc();
    const green = { r: 0, g: 255, b: 0 };
    edit(s, (st) =>
      addPixel(st, 'patch', solid({ x: 0, y: 0, w: 2, h: 1 }, [0, 255, 0, 255]), {
        effects: { stroke: { size: 2, position: 'outside', color: green, opacity: 1, blend: 'normal' } },
      }),
    );
    edit(s, (st) =>
      addLayer(
        st,
        (id): TextLayer => ({
          id,
          name: 'T',
          kind: 'text',
          visible: true,
          opacity: 1,
          blend: 'normal',
          clipped: false,
          locks: NO_LOCKS,
          raster: solid({ x: 5, y: 5, w: 2, h: 2 }, [0, 255, 0, 255]),
          text: { content: 'x', x: 5, y: 5, size: 12, color: green, font: 'a', renderedFont: 'a' },
        }),
      ),
    );
    await ok(s, 'set_foreground_color', { color: '#00ff00' });
    await ok(s, 'select_layers', { names: ['背景'] });
    await ok(s, 'fill_selection', { color: '#00ff00' }); // the lazy background becomes a green fill
    await ok(s, 'convert_to_cmyk');
    const st = current(s);
    const [r, g, b] = px(rasterOf(named(st, 'patch')), 0, 0);
    const clipped = { r: r!, g: g!, b: b! };
    expect(clipped).not.toEqual(green);
    const bg = named(st, '背景');
    expect(bg.kind === 'fill' && bg.color).toEqual(clipped);
    const t = named(st, 'T');
    expect(t.kind === 'text' && t.text.color).toEqual(clipped);
    expect(px(rasterOf(t), 5, 5).slice(0, 3)).toEqual([r, g, b]);
    expect(named(st, 'patch').effects?.stroke?.color).toEqual(clipped);
    expect(st.foreground).toEqual(clipped);
  });

  it('converting to the mode the document has is a no-op that says so and adds no step', async () => {
    const s = await doc();
    const steps = labels(s).length;
    const before = current(s);
    const hash = hashEditor(s.editor.snapshot);
    const rgb = await ok(s, 'convert_to_rgb');
    expect(rgb).toMatchObject({ changed: false });
    expect(rgb.note).toContain('RGB');
    expect(current(s)).toBe(before);
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
    expect(labels(s).length).toBe(steps);

    await ok(s, 'convert_to_cmyk');
    const cmykState = current(s);
    const again = await ok(s, 'convert_to_cmyk');
    expect(again).toMatchObject({ changed: false });
    expect(again.note).toContain('CMYK');
    expect(current(s)).toBe(cmykState);
    expect(labels(s).length).toBe(steps + 1);
  });

  it('convert_to_rgb keeps the clipped pixels (the gamut loss is permanent) and undo restores the colours', async () => {
    const s = await doc();
    edit(s, (st) => addPixel(st, 'g', solid({ x: 0, y: 0, w: 3, h: 3 }, [0, 255, 0, 255])));
    await ok(s, 'convert_to_cmyk');
    const clipped = rasterOf(named(current(s), 'g'));
    const r = await ok(s, 'convert_to_rgb');
    expect(r.changed).toBe(true);
    expect(current(s).mode).toBe('rgb');
    expect(rasterOf(named(current(s), 'g'))).toBe(clipped);
    expect(labels(s).at(-1)).toBe('转RGB');
    await ok(s, 'undo', { steps: 2 });
    expect(current(s).mode).toBe('rgb');
    expect(px(rasterOf(named(current(s), 'g')), 1, 1)).toEqual([0, 255, 0, 255]);
  });

  it('get_pixel_color adds the ink values in CMYK mode, as lcms computes them', async () => {
    const s = await doc();
    edit(s, (st) => addPixel(st, 'red', solid({ x: 0, y: 0, w: 2, h: 2 }, [255, 0, 0, 255])));
    await ok(s, 'convert_to_cmyk');
    const white = await ok(s, 'get_pixel_color', { x: 10, y: 5 });
    expect(white.cmyk).toEqual({ c: 0, m: 0, y: 0, k: 0 });
    const red = await ok(s, 'get_pixel_color', { x: 0, y: 0 });
    const cmyk = red.cmyk as { c: number; m: number; y: number; k: number };
    expect(cmyk.m).toBeGreaterThan(80);
    expect(cmyk.c).toBeLessThan(10);
    if (!imageMagickAvailable()) return;
    const p = await profiles(s);
    try {
      const ref = await imCmyk(p, [red.r as number, red.g as number, red.b as number]);
      [cmyk.c, cmyk.m, cmyk.y, cmyk.k].forEach((v, i) => {
        expect(Math.abs(v - ref[i]!)).toBeLessThanOrEqual(2);
      });
    } finally {
      await rm(p.dir, { recursive: true, force: true });
    }
  });

  it('exports a CMYK document as a real CMYK JPEG, and saves it as a CMYK PSD that reopens as CMYK', async () => {
    const s = await doc();
    await ok(s, 'convert_to_cmyk');
    await ok(s, 'save_document_as', { path: 'out.jpg' });
    const jpg = await readFile(path.join(s.workspace.root, 'out.jpg'));
    if (imageMagickAvailable()) expect((await identifyInfo(jpg, 'jpg')).colorspace).toBe('CMYK');
    const psd = await ok(s, 'save_document_as', { path: 'out.psd' });
    expect(psd.warnings).toBeUndefined();
    if (psdToolsAvailable()) {
      const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'out.psd')));
      expect(dump.colorMode).toBe(4); // CMYK
    }
    await ok(s, 'close_document', {});
    const opened = await ok(s, 'open_document', { path: 'out.psd' });
    expect((opened.document as { mode: string }).mode).toBe('CMYK');
  });
});
