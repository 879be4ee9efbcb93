/**
 * Adjustment layers read from a PSD are drawn over what lies below them: the compositor's result is compared
 * with ImageMagick's Levels and Negate on the same pixels, with Atelier's own (tested) Hue/Saturation applied to
 * the pixels instead of as a layer, and with the curve's own points. Opacity, mask, clipping and groups limit
 * them as in Photoshop; showing or hiding one redraws the whole canvas.
 */

import { execFile } from 'node:child_process';
import { type Layer as AgLayer, type Psd as AgPsd, writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/calls/session.js';
import { CONVERT } from '../../support/imagemagick.js';
import { newSession, ok } from '../../support/session.js';

const W = 32;
const H = 8;

/** A ramp: column x has grey-ish colour (8x, 255 − 6x, 4x + 40), so every pixel is a distinct test value. */
function ramp(): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) data.set([8 * x, 255 - 6 * x, 4 * x + 40, 255], (y * W + x) * 4);
  }
  return { width: W, height: H, data };
}

const pixels = (w: number, h: number, c: number[]) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set(c, i * 4);
  return { width: w, height: h, data };
};

async function open(children: AgLayer[], s: Session = newSession()): Promise<Session> {
  const psd: AgPsd = { width: W, height: H, imageData: ramp(), children };
  await s.workspace.writeAtomic('in.psd', Buffer.from(writePsdBuffer(psd)));
  await ok(s, 'open_document', { path: 'in.psd' });
  return s;
}

const base = (): AgLayer => ({ name: 'Background', left: 0, top: 0, right: W, bottom: H, imageData: ramp() });

async function composite(s: Session): Promise<Uint8ClampedArray> {
  return s.inspect((tx) => tx.composite(tx.activeDocument().id).data);
}

const at = (d: Uint8ClampedArray, x: number, y: number) => [
  ...d.subarray((y * W + x) * 4, (y * W + x) * 4 + 4),
];

describe('adjustment layers are drawn', () => {
  it('Levels as ImageMagick -level, Invert as -negate (within 1 level)', async () => {
    const s = await open([
      base(),
      {
        name: '色阶',
        adjustment: {
          type: 'levels',
          rgb: {
            shadowInput: 20,
            highlightInput: 230,
            midtoneInput: 1.4,
            shadowOutput: 0,
            highlightOutput: 255,
          },
        },
      },
    ]);
    const ours = await composite(s);
    // ImageMagick's black and white points are fractions of its quantum range: percentages say 20 and 230 of 255.
    const theirs = await magickOn(['-level', `${(20 / 255) * 100}%,${(230 / 255) * 100}%,1.4`]);
    expect(maxDiff(ours, theirs)).toBeLessThanOrEqual(1);
    expect(maxDiff(ours, ramp().data)).toBeGreaterThan(20); // it did something

    const inv = await open([base(), { name: '反相', adjustment: { type: 'invert' } }]);
    expect(maxDiff(await composite(inv), await magickOn(['-channel', 'RGB', '-negate']))).toBe(0);
  });

  it('Curves through their points, Hue/Saturation as the tool applies it, at opacity and through a mask', async () => {
    const curve = [
      { input: 0, output: 0 },
      { input: 128, output: 160 },
      { input: 255, output: 255 },
    ];
    const s = await open([base(), { name: '曲线', adjustment: { type: 'curves', rgb: curve } }]);
    const c = await composite(s);
    expect(at(c, 16, 0)[0]).toBe(160); // red 128 → 160, the curve's own point
    expect(at(c, 0, 0)[0]).toBe(0);
    // A brightening curve: every channel value is raised (or kept at the ends).
    for (let x = 1; x < W; x++) expect(at(c, x, 3)[0]!).toBeGreaterThan(8 * x);

    // Hue/Saturation as a layer at 100 % = the same adjustment applied to the pixels by adjust_hsl.
    const hue = { a: 0, b: 0, c: 0, d: 0, hue: 40, saturation: 30, lightness: -10 };
    const layer = await open([base(), { name: '色相', adjustment: { type: 'hue/saturation', master: hue } }]);
    const applied = await open([base()]);
    await ok(applied, 'adjust_hsl', { hue: 40, saturation: 30, lightness: -10 });
    expect(maxDiff(await composite(layer), await composite(applied))).toBe(0);

    // At 50 %: halfway; behind a mask hiding the right half: the right half untouched.
    const mask = pixels(W, H, [0, 0, 0, 255]);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W / 2; x++) mask.data.set([255, 255, 255, 255], (y * W + x) * 4);
    const faded = await open([
      base(),
      {
        name: '色相',
        opacity: 0.5,
        mask: { left: 0, top: 0, right: W, bottom: H, defaultColor: 0, imageData: mask },
        adjustment: { type: 'hue/saturation', master: hue },
      },
    ]);
    const f = await composite(faded);
    const full = await composite(layer);
    const r = ramp().data;
    for (const x of [2, 9, 14]) {
      for (let ch = 0; ch < 3; ch++) {
        const mid = (at(r, x, 4)[ch]! + at(full, x, 4)[ch]!) / 2;
        expect(Math.abs(at(f, x, 4)[ch]! - mid)).toBeLessThanOrEqual(1);
      }
    }
    for (const x of [17, 25, 31]) expect(at(f, x, 4)).toEqual(at(r, x, 4));
  });

  it("a Colorize Hue/Saturation is drawn: one hue for every pixel, its lightness the pixel's", async () => {
    // master.a is where ag-psd puts the block's colorize flag byte and its padding byte: 256 is the flag set.
    const master = { a: 256, b: 30, c: 60, d: 0, hue: 40, saturation: 30, lightness: -10 };
    const psd: AgPsd = {
      width: W,
      height: H,
      imageData: ramp(),
      children: [base(), { name: '着色', adjustment: { type: 'hue/saturation', master } }],
    };
    const bytes = Buffer.from(writePsdBuffer(psd));
    // The file as Photoshop reads it (Adobe's format: version 2, then the colorize flag, a padding byte, the
    // colorize settings): the flag byte is 1.
    const at2 = bytes.indexOf('hue2', 0, 'latin1');
    expect(at2).toBeGreaterThan(0);
    expect(bytes.readUInt16BE(at2 + 8)).toBe(2);
    expect(bytes[at2 + 10]).toBe(1);
    expect(bytes.readInt16BE(at2 + 12)).toBe(30);

    const s = newSession();
    await s.workspace.writeAtomic('in.psd', bytes);
    const opened = await ok(s, 'open_document', { path: 'in.psd' });
    expect(JSON.stringify(opened.warnings ?? [])).not.toContain('着色');
    // Hue 30°, saturation 60: the colour is mid grey 60 % of the way to HSV (30°, 100 %, 100 %), i.e. (0.80, 0.50,
    // 0.20); column 16 is (128, 159, 104), HSL lightness 132 / 255, just past the middle: 3.5 % towards white.
    const out = await composite(s);
    expect([...at(out, 16, 4).slice(0, 3)].map((v, i) => Math.abs(v - [206, 132, 58][i]!))).toEqual([
      0, 0, 0,
    ]);
    // Column 0 is (0, 255, 40), lightness 128: the colour itself, a hair towards white (128 is past 127.5).
    expect([...at(out, 0, 4).slice(0, 3)]).toEqual([204, 128, 52]);
    // Written back as read: the flag survives a save.
    await ok(s, 'save_document_as', { path: 'out.psd' });
    const again = Buffer.from(await s.workspace.read('out.psd'));
    const at3 = again.indexOf('hue2', 0, 'latin1');
    expect(again[at3 + 10]).toBe(1);
  });

  it('clipped, it adjusts only its base; in a group, only what the group holds; hidden, nothing', async () => {
    const red = pixels(8, 8, [200, 40, 40, 255]);
    const badge = (): AgLayer => ({ name: '徽章', left: 4, top: 0, right: 12, bottom: 8, imageData: red });
    const invert = (extra: Partial<AgLayer> = {}): AgLayer => ({
      name: '反相',
      adjustment: { type: 'invert' },
      ...extra,
    });
    const r = ramp().data;

    const clipped = await composite(await open([base(), badge(), invert({ clipping: true })]));
    expect(at(clipped, 6, 2)).toEqual([55, 215, 215, 255]);
    expect(at(clipped, 20, 2)).toEqual(at(r, 20, 2)); // the background beside the base: untouched

    // A normal-mode group isolates its adjustment; a pass-through group lets it reach the background.
    const grouped = (blendMode: AgLayer['blendMode']) =>
      open([base(), { name: '组', blendMode, opened: true, children: [badge(), invert()] }]);
    const isolated = await composite(await grouped('normal'));
    expect(at(isolated, 6, 2)).toEqual([55, 215, 215, 255]);
    expect(at(isolated, 20, 2)).toEqual(at(r, 20, 2));
    const through = await composite(await grouped('pass through'));
    expect(at(through, 20, 2)).toEqual([
      255 - at(r, 20, 2)[0]!,
      255 - at(r, 20, 2)[1]!,
      255 - at(r, 20, 2)[2]!,
      255,
    ]);

    // Shown and hidden again through the tools: the cached composite follows everywhere on the canvas.
    const s = await open([base(), invert({ hidden: true })]);
    expect(maxDiff(await composite(s), r)).toBe(0);
    await ok(s, 'set_layer_visible', { name: '反相', visible: true });
    expect(at(await composite(s), 30, 7)).toEqual([
      255 - at(r, 30, 7)[0]!,
      255 - at(r, 30, 7)[1]!,
      255 - at(r, 30, 7)[2]!,
      255,
    ]);
    await ok(s, 'undo', {});
    expect(maxDiff(await composite(s), r)).toBe(0);
  });
});

/** Black & White's default preset (ag-psd writes an unset slider as 0). */
const PRESET = { reds: 40, yellows: 60, greens: 40, cyans: 60, blues: 20, magentas: 80 };

describe('Channel Mixer and Black & White', () => {
  it('Channel Mixer as ImageMagick -color-matrix (within 1 level); monochrome makes every channel the gray row', async () => {
    const red = { red: 80, green: 30, blue: -10, constant: 5 };
    const green = { red: 0, green: 100, blue: 0, constant: 0 };
    const blue = { red: 20, green: 20, blue: 60, constant: -10 };
    const s = await open([
      base(),
      { name: '通道混合器', adjustment: { type: 'channel mixer', red, green, blue } },
    ]);
    const ours = await composite(s);
    const row = (c: typeof red) => [c.red, c.green, c.blue, 0, 0, c.constant].map((v) => v / 100).join(' ');
    const theirs = await magickOn(['-color-matrix', `6x3: ${row(red)} ${row(green)} ${row(blue)}`]);
    expect(maxDiff(ours, theirs)).toBeLessThanOrEqual(1);
    expect(maxDiff(ours, ramp().data)).toBeGreaterThan(20);

    const gray = { red: 40, green: 40, blue: 20, constant: 0 };
    const mono = await composite(
      await open([base(), { name: '单色', adjustment: { type: 'channel mixer', monochrome: true, gray } }]),
    );
    const r = ramp().data;
    for (let x = 0; x < W; x++) {
      const [R, G, B] = at(r, x, 1);
      const v = Math.round(0.4 * R! + 0.4 * G! + 0.2 * B!);
      expect(at(mono, x, 1)).toEqual([v, v, v, 255]);
    }
  });

  it("Black & White: a primary or secondary at its slider's share of white, a neutral unchanged, the rest between", async () => {
    // Six pure hues, their half-strength versions over gray, and grays.
    const swatches = [
      [255, 0, 0],
      [255, 255, 0],
      [0, 255, 0],
      [0, 255, 255],
      [0, 0, 255],
      [255, 0, 255],
      [200, 100, 100],
      [100, 200, 100],
      [0, 0, 0],
      [128, 128, 128],
      [255, 255, 255],
      [255, 128, 0],
    ];
    const img = {
      width: swatches.length,
      height: 1,
      data: new Uint8ClampedArray(swatches.flatMap((c) => [...c, 255])),
    };
    const psd = (adjustment: Record<string, unknown>): AgPsd => ({
      width: swatches.length,
      height: 1,
      imageData: img,
      children: [
        { name: 'Background', left: 0, top: 0, right: swatches.length, bottom: 1, imageData: img },
        { name: '黑白', adjustment: adjustment as unknown as AgLayer['adjustment'] },
      ],
    });
    const run = async (adjustment: Record<string, unknown>) => {
      const s = newSession();
      await s.workspace.writeAtomic('bw.psd', Buffer.from(writePsdBuffer(psd(adjustment))));
      await ok(s, 'open_document', { path: 'bw.psd' });
      const d = await composite(s);
      return swatches.map((_, i) => [...d.subarray(i * 4, i * 4 + 4)]);
    };
    // Photoshop's default preset: reds 40, yellows 60, greens 40, cyans 60, blues 20, magentas 80.
    const grays = (await run({ type: 'black & white', ...PRESET })).map((p) => {
      expect(p[0]).toBe(p[1]);
      expect(p[1]).toBe(p[2]);
      return p[0];
    });
    expect(grays.slice(0, 6)).toEqual([102, 153, 102, 153, 51, 204]);
    // 200,100,100: gray 100 plus 100 of red at 40 %; 100,200,100 the same with green.
    expect(grays.slice(6, 8)).toEqual([140, 140]);
    expect(grays.slice(8, 11)).toEqual([0, 128, 255]);
    // Orange: 128 of yellow at 60 % and 127 of red at 40 %.
    expect(grays[11]).toBe(Math.round(128 * 0.6 + 127 * 0.4));

    // Every slider at 100 %: each colour comes out at its largest channel.
    const full = await run({
      type: 'black & white',
      reds: 100,
      yellows: 100,
      greens: 100,
      cyans: 100,
      blues: 100,
      magentas: 100,
    });
    expect(full.map((p) => p[0])).toEqual(swatches.map((c) => Math.max(...c)));
  });

  it('a Black & White tint is its colour in Color mode over the gray, as in Photoshop; not drawn in a CMYK document', async () => {
    const tintColor = { r: 180, g: 120, b: 60 };
    const tinted = await composite(
      await open([
        base(),
        { name: '黑白', adjustment: { type: 'black & white', ...PRESET, useTint: true, tintColor } },
      ]),
    );
    const fill = { width: W, height: H, data: pixels(W, H, [180, 120, 60, 255]).data };
    const viaColorMode = await composite(
      await open([
        base(),
        { name: '黑白', adjustment: { type: 'black & white', ...PRESET } },
        { name: '着色', left: 0, top: 0, right: W, bottom: H, blendMode: 'color', imageData: fill },
      ]),
    );
    expect(maxDiff(tinted, viaColorMode)).toBeLessThanOrEqual(1);
    // A sepia-like tint: red over green over blue wherever the gray is not black or white.
    for (const x of [4, 12, 20]) {
      const [R, G, B] = at(tinted, x, 2);
      expect(R!).toBeGreaterThan(G!);
      expect(G!).toBeGreaterThan(B!);
    }

    // In a CMYK document Photoshop runs an adjustment on the inks: kept, not drawn, and converting or opening
    // such a file says so.
    const s = await open([base(), { name: '反相', adjustment: { type: 'invert' } }]);
    expect(maxDiff(await composite(s), ramp().data)).toBeGreaterThan(100);
    const converted = await ok(s, 'convert_to_cmyk', {});
    expect(JSON.stringify(converted.warnings)).toContain('“反相”');
    expect(JSON.stringify(converted.warnings)).toContain('油墨通道');
    const plain = await open([base()]);
    await ok(plain, 'convert_to_cmyk', {});
    expect(maxDiff(await composite(s), await composite(plain))).toBe(0);
    const info = await ok(s, 'get_active_layer_info', {});
    expect(info.layer ?? info).toMatchObject({ adjustment: { type: 'invert', drawn: false } });
    await ok(s, 'save_document_as', { path: 'cmyk.psd' });
    const reopened = await ok(s, 'open_document', { path: 'cmyk.psd' });
    expect(JSON.stringify(reopened.warnings)).toContain('CMYK 文档中的调整');
    expect(maxDiff(await composite(s), await composite(plain))).toBe(0);
  });
});

/** ImageMagick's result of `op` on the ramp, as RGBA bytes. */
async function magickOn(op: string[]): Promise<Uint8Array> {
  const child = execFile(
    CONVERT,
    ['-size', `${W}x${H}`, '-depth', '8', 'rgba:-', ...op, '-depth', '8', 'rgba:-'],
    {
      encoding: 'buffer',
      maxBuffer: 1 << 20,
    },
  );
  const out = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`convert ${code}`)),
    );
  });
  child.stdin!.end(Buffer.from(ramp().data.buffer));
  return new Uint8Array(await out);
}

function maxDiff(a: Uint8Array | Uint8ClampedArray, b: Uint8Array | Uint8ClampedArray): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
