/**
 * A CMYK PSD opened and saved again keeps its inks where its pixels did not change. The file is ImageMagick's
 * (an independent writer): a 100 % K black half and a 100 % C cyan half, the kind of separation a press file has
 * and a fresh separation of the same colours would not give back (the profile's black is four-colour). psd-tools
 * reads the inks we write.
 */
import { existsSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { cmykaFromRgba } from '../../../src/engine/cmyk-pixels.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import type { DocState, PixelLayer, Raster } from '../../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH, iccDescription } from '../../../src/engine/press-profile.js';
import { copyPixels } from '../../../src/engine/raster.js';
import { convertTo, imageMagickAvailable } from '../../support/imagemagick.js';
import { psdToolsAvailable, readWithPsdTools } from '../../support/psd-tools.js';
import { newSession, ok, tempDir } from '../../support/session.js';
import { withTempFiles } from '../press-profile-support.js';

const OTHER_PROFILE = '/usr/share/color/icc/ghostscript/ps_cmyk.icc';
const ready = psdToolsAvailable() && imageMagickAvailable() && existsSync(DEFAULT_PROFILE_PATH);
const W = 40;
const H = 26;

/** ImageMagick's CMYK PSD: a 2 px 50 % K stripe on top, then a 100 % K black half and a 100 % C cyan half. */
function pressFile(profile: string, depth = 8, compress: string[] = []): Promise<Buffer> {
  const half = (ink: string) => ['-size', `${W / 2}x${H - 2}`, `xc:cmyk(${ink})`];
  return convertTo(
    [
      ...['-size', `${W}x2`, 'xc:cmyk(0,0,0,128)'],
      ...['(', ...half('0,0,0,255'), ...half('255,0,0,0'), '+append', ')'],
      '-append',
      ...['-profile', profile, '-depth', String(depth), ...compress, 'psd:OUT'],
    ],
    'psd',
  );
}

const onlyLayer = (state: DocState): PixelLayer => {
  const layers = [...state.layers.values()].filter((l): l is PixelLayer => l.kind === 'pixel');
  expect(layers).toHaveLength(1);
  return layers[0]!;
};

/** The one layer's inks (C, M, Y, K per pixel) as psd-tools reads them from `file`. */
async function layerInks(file: Buffer): Promise<Uint8Array> {
  const read = await readWithPsdTools(file, { pixels: true });
  const layer = read.pixels!.find((p) => p.layer !== null)!;
  expect(layer.mode).toBe('CMYK');
  expect([layer.width, layer.height]).toEqual([W, H]);
  return layer.data;
}

/** The merged image's inks (C, M, Y, K per pixel), as ImageMagick reads them from `file`. */
function mergedInks(file: Buffer): Promise<Buffer> {
  return withTempFiles({ 'in.psd': file }, (f) =>
    convertTo([`${f['in.psd']}[0]`, '-depth', '8', 'cmyk:OUT'], 'cmyk'),
  );
}

const at = (inks: Uint8Array, x: number, y: number) => [
  ...inks.subarray((y * W + x) * 4, (y * W + x) * 4 + 4),
];

/** The ICC profile embedded in a PSD, as ImageMagick extracts it. */
function iccOf(file: Buffer): Promise<Buffer> {
  return withTempFiles({ 'in.psd': file }, (f) => convertTo([`${f['in.psd']}[0]`, 'icc:OUT'], 'icc'));
}

async function resave(state: DocState): Promise<Buffer> {
  const layer = onlyLayer(state);
  return (await encodePsd(state, layer.raster, { name: 'press' })).buffer;
}

describe.skipIf(!ready)('CMYK inks kept across open and save', () => {
  it('writes an unchanged layer with the inks it was read with, exactly (K-only black stays K-only)', async () => {
    const file = await pressFile(DEFAULT_PROFILE_PATH);
    const original = await layerInks(file);
    expect(at(original, 2, 0)).toEqual([0, 0, 0, 128]);
    expect(at(original, 2, 10)).toEqual([0, 0, 0, 255]);
    expect(at(original, W - 3, 10)).toEqual([255, 0, 0, 0]);

    const { state } = await decodePsd(file);
    expect(state.mode).toBe('cmyk');
    const again = await layerInks(await resave(state));
    expect(Buffer.from(again).equals(Buffer.from(original))).toBe(true);

    // The merged image (what flattening readers show) keeps them too: the composite is that one layer.
    expect((await mergedInks(await resave(state))).equals(await mergedInks(file))).toBe(true);

    // What a fresh separation of the same pixels gives instead: the profile's four-colour black.
    const fresh = await cmykaFromRgba(onlyLayer(state).raster.data, W, H, DEFAULT_PROFILE_PATH);
    const black = [...fresh.subarray((10 * W + 2) * 5, (10 * W + 2) * 5 + 4)];
    expect(black[0]).toBeGreaterThan(100);
  }, 60_000);

  it('a 16-bit CMYK file opens as 8-bit with its inks rounded, RLE or ZIP, and saves them', async () => {
    const eight = await layerInks(await pressFile(DEFAULT_PROFILE_PATH));
    for (const compress of [[], ['-compress', 'Zip']]) {
      const file = await pressFile(DEFAULT_PROFILE_PATH, 16, compress);
      expect(file.readUInt16BE(22)).toBe(16); // bits per channel in the header
      const { state, losses } = await decodePsd(file);
      expect(losses.map((l) => l.what).join()).toMatch(/16 位\/通道/);
      const layer = onlyLayer(state);
      expect(layer.raster.inks).toBeDefined();
      const saved = await resave(state);
      expect(Buffer.from(await layerInks(saved)).equals(Buffer.from(eight))).toBe(true);
      expect((await mergedInks(saved)).equals(await mergedInks(await pressFile(DEFAULT_PROFILE_PATH)))).toBe(
        true,
      );
    }
  }, 60_000);

  it('opened and saved as a user does (open_document, save_document_as): layer and merged image keep their inks', async () => {
    const session = newSession(tempDir('atelier-cmyk-inks-'));
    const file = await pressFile(DEFAULT_PROFILE_PATH);
    await session.workspace.writeAtomic('press.psd', file);
    await ok(session, 'open_document', { path: 'press.psd' });
    await ok(session, 'save_document_as', { path: 'again.psd' });
    const again = await session.workspace.read('again.psd');
    expect(Buffer.from(await layerInks(again)).equals(Buffer.from(await layerInks(file)))).toBe(true);
    expect((await mergedInks(again)).equals(await mergedInks(file))).toBe(true);
  }, 60_000);

  it('keeps the file’s inks for the pixels an edit left alone, and separates the pixel it changed', async () => {
    const file = await pressFile(DEFAULT_PROFILE_PATH);
    const original = await layerInks(file);
    const { state } = await decodePsd(file);
    const layer = onlyLayer(state);
    const data = copyPixels(layer.raster.data);
    data.set([255, 255, 255, 255], (10 * W + 2) * 4); // one pixel painted white
    const edited: Raster = { ...layer.raster, data };
    expect(edited.inks).toBeDefined(); // carried along, but no longer the layer's: its fingerprint differs
    const next: DocState = {
      ...state,
      layers: new Map(state.layers).set(layer.id, { ...layer, raster: edited }),
    };
    const inks = await layerInks(await resave(next));
    // The changed pixel: a colour the file does not hold, separated (white: no ink).
    expect(at(inks, 2, 10)).toEqual([0, 0, 0, 0]);
    // Every other pixel: its colour's inks in the file (the document's ink table), K-only black included.
    for (let i = 0; i < W * H; i++) {
      if (i === 10 * W + 2) continue;
      for (let c = 0; c < 4; c++) expect(inks[i * 4 + c]).toBe(original[i * 4 + c]);
    }
    expect(at(inks, 4, 10)).toEqual([0, 0, 0, 255]);
    // Without the table (a document that has none), the same edit separates the whole layer afresh.
    const bare: DocState = { ...next, inkTable: undefined };
    const fresh = await layerInks(await resave(bare));
    expect(at(fresh, 4, 10)[0]).toBeGreaterThan(100);
  }, 60_000);

  it('a file made with another CMYK profile keeps it: its inks unchanged, what is edited separated with it, and it is embedded', async () => {
    if (!existsSync(OTHER_PROFILE)) return;
    const file = await pressFile(OTHER_PROFILE);
    const original = await layerInks(file);
    const session = newSession(tempDir('atelier-cmyk-own-'));
    await session.workspace.writeAtomic('other.psd', file);
    const opened = await ok(session, 'open_document', { path: 'other.psd' });
    expect(JSON.stringify(opened.warnings)).toMatch(/保存时仍按它分色并嵌入/);
    // Unedited: every ink as the file had it (separating again with the press profile changed all of them).
    await ok(session, 'save_document_as', { path: 'same.psd' });
    const same = await session.workspace.read('same.psd');
    expect(Buffer.from(await layerInks(same)).equals(Buffer.from(original))).toBe(true);
    const own = new Uint8Array(readFileSync(OTHER_PROFILE));
    expect((await iccOf(same)).equals(Buffer.from(own))).toBe(true);
    // A colour painted in it is separated with the document's profile, not the press profile.
    await ok(session, 'create_layer', { name: '色块' });
    await ok(session, 'select_rect', { left: 10, top: 6, right: 30, bottom: 20 });
    await ok(session, 'fill_selection', { color: '#1ea05a' });
    const info = await ok(session, 'get_pixel_color', { x: 12, y: 8 });
    const want = await cmykaFromRgba(Uint8Array.of(30, 160, 90, 255), 1, 1, OTHER_PROFILE);
    const press = await cmykaFromRgba(Uint8Array.of(30, 160, 90, 255), 1, 1, DEFAULT_PROFILE_PATH);
    expect([...want.subarray(0, 4)]).not.toEqual([...press.subarray(0, 4)]);
    await ok(session, 'save_document_as', { path: 'drawn.psd' });
    const read = await readWithPsdTools(await session.workspace.read('drawn.psd'), { pixels: true });
    const patch = read.pixels!.find((p) => p.layer === '色块')!;
    expect([...patch.data.subarray(0, 4)]).toEqual([...want.subarray(0, 4)]);
    const pct = (v: number) => Math.round((v / 255) * 100);
    expect(info.cmyk).toEqual({ c: pct(want[0]!), m: pct(want[1]!), y: pct(want[2]!), k: pct(want[3]!) });
    // A CMYK JPEG of it embeds the same profile.
    await ok(session, 'save_document_as', { path: 'drawn.jpg' });
    const meta = await sharp(await session.workspace.read('drawn.jpg')).metadata();
    expect(meta.space).toBe('cmyk');
    expect(Buffer.from(meta.icc!).equals(Buffer.from(own))).toBe(true);
    // Through RGB and back, the document takes the press profile (Photoshop's working CMYK).
    await ok(session, 'convert_to_rgb', {});
    const back = await ok(session, 'convert_to_cmyk', {});
    expect(back.profile).toMatchObject({ source: 'default' });
    await ok(session, 'save_document_as', { path: 'press.psd' });
    const pressIcc = await iccOf(await session.workspace.read('press.psd'));
    expect(iccDescription(pressIcc)).toBe(iccDescription(new Uint8Array(readFileSync(DEFAULT_PROFILE_PATH))));
  }, 60_000);

  it("a CMYK JPEG opens as a CMYK document with its inks: saved as PSD they are the JPEG's, its profile kept", async () => {
    for (const profile of [DEFAULT_PROFILE_PATH, OTHER_PROFILE]) {
      if (!existsSync(profile)) continue;
      const session = newSession(tempDir('atelier-cmyk-jpeg-open-'));
      const half = (ink: string) => ['-size', `${W / 2}x${H}`, `xc:cmyk(${ink})`];
      const jpeg = await convertTo(
        [
          ...half('0,0,0,255'),
          ...half('255,0,0,0'),
          '+append',
          '-profile',
          profile,
          '-quality',
          '100',
          'jpg:OUT',
        ],
        'jpg',
      );
      await session.workspace.writeAtomic('press.jpg', jpeg);
      const opened = await ok(session, 'open_document', { path: 'press.jpg' });
      expect(opened.document).toMatchObject({ mode: 'CMYK' });
      const info = await ok(session, 'get_document_info');
      expect(info.cmyk_profile).toMatchObject({
        name: iccDescription(new Uint8Array(readFileSync(profile))),
        source: profile === DEFAULT_PROFILE_PATH ? 'default' : 'document',
      });
      // The inks as ImageMagick decodes the JPEG, and as the saved PSD's layer holds them: the same.
      const decoded = await withTempFiles({ 'in.jpg': jpeg }, (f) =>
        convertTo([f['in.jpg']!, '-depth', '8', 'cmyk:OUT'], 'cmyk'),
      );
      await ok(session, 'save_document_as', { path: 'press.psd' });
      const inks = await layerInks(await session.workspace.read('press.psd'));
      expect(Buffer.from(inks).equals(decoded)).toBe(true);
      expect(at(inks, 3, 5)).toEqual([...decoded.subarray((5 * W + 3) * 4, (5 * W + 3) * 4 + 4)]);
      expect(at(inks, 3, 5)[3]).toBeGreaterThanOrEqual(250); // K-only black stays K-only
      expect(Math.max(...at(inks, 3, 5).slice(0, 3))).toBeLessThanOrEqual(5);
    }
  }, 60_000);

  it('what is drawn in an opened press file takes the first separation of its colour', async () => {
    const session = newSession(tempDir('atelier-cmyk-drawn-'));
    await session.workspace.writeAtomic('press.psd', await pressFile(DEFAULT_PROFILE_PATH));
    await ok(session, 'open_document', { path: 'press.psd' });
    await ok(session, 'create_layer', { name: '色块' });
    await ok(session, 'select_rect', { left: 10, top: 6, right: 30, bottom: 20 });
    await ok(session, 'fill_selection', { color: '#1ea05a' });
    await ok(session, 'save_document_as', { path: 'drawn.psd' });
    const read = await readWithPsdTools(await session.workspace.read('drawn.psd'), { pixels: true });
    const patch = read.pixels!.find((p) => p.layer === '色块')!;
    const want = await cmykaFromRgba(Uint8Array.of(30, 160, 90, 255), 1, 1, DEFAULT_PROFILE_PATH);
    expect([...patch.data.subarray(0, 4)]).toEqual([...want.subarray(0, 4)]);
  }, 60_000);

  it('a JPEG saved from a press file keeps its K-only black (the pixels show the layer, so they take its inks)', async () => {
    const session = newSession(tempDir('atelier-cmyk-jpeg-'));
    await session.workspace.writeAtomic('press.psd', await pressFile(DEFAULT_PROFILE_PATH));
    await ok(session, 'open_document', { path: 'press.psd' });
    await ok(session, 'save_document_as', { path: 'press.jpg' });
    const jpeg = await session.workspace.read('press.jpg');
    const inks = await withTempFiles({ 'in.jpg': jpeg }, (f) =>
      convertTo([f['in.jpg']!, '-depth', '8', 'cmyk:OUT'], 'cmyk'),
    );
    const [c, m, y, k] = at(inks, 4, 12);
    expect(Math.max(c!, m!, y!)).toBeLessThanOrEqual(8); // JPEG's loss; a fresh separation puts C over 100
    expect(k).toBeGreaterThanOrEqual(247);
    expect(at(inks, W - 4, 12)[0]).toBeGreaterThanOrEqual(247);
  }, 60_000);
});

/**
 * Image › Mode › CMYK separates the RGB document once; the file holds those inks. Separating the round-tripped
 * pixels again at save time gave other inks (up to 32/255 on this gradient, the black generation drifting).
 */
describe.skipIf(!ready)('CMYK inks of convert_to_cmyk', () => {
  const G = 48;
  const gradient = (): Uint8Array => {
    const rgba = new Uint8Array(G * G * 4);
    for (let y = 0; y < G; y++) {
      for (let x = 0; x < G; x++) rgba.set([x * 5, y * 5, (x + y) * 2, 255], (y * G + x) * 4);
    }
    return rgba;
  };

  /** The gradient opened as a PNG in `session` and converted to CMYK; its RGB pixels. */
  const openConverted = async (session: ReturnType<typeof newSession>): Promise<Uint8Array> => {
    const rgba = gradient();
    const png = await sharp(Buffer.from(rgba), { raw: { width: G, height: G, channels: 4 } })
      .png()
      .toBuffer();
    await session.workspace.writeAtomic('in.png', png);
    await ok(session, 'open_document', { path: 'in.png' });
    await ok(session, 'convert_to_cmyk');
    return rgba;
  };

  it('are what save_document_as writes (layer and merged image) and what get_pixel_color reports', async () => {
    const session = newSession(tempDir('atelier-cmyk-convert-'));
    const rgba = await openConverted(session);
    const first = await cmykaFromRgba(rgba, G, G, DEFAULT_PROFILE_PATH);
    const doc = session.editor.snapshot.docs[0]!;
    const layer = onlyLayer(doc.history.states[doc.history.index]!);
    const second = await cmykaFromRgba(layer.raster.data, G, G, DEFAULT_PROFILE_PATH);
    let drift = 0;
    for (let i = 0; i < G * G * 5; i++)
      if (i % 5 !== 4) drift = Math.max(drift, Math.abs(first[i]! - second[i]!));
    expect(drift).toBeGreaterThan(8); // what a second separation would have written

    const px = await ok(session, 'get_pixel_color', { x: 10, y: 20 });
    const i = (20 * G + 10) * 5;
    const percent = (v: number) => Math.round((v / 255) * 100);
    expect(px.cmyk).toEqual({
      c: percent(first[i]!),
      m: percent(first[i + 1]!),
      y: percent(first[i + 2]!),
      k: percent(first[i + 3]!),
    });

    await ok(session, 'save_document_as', { path: 'out.psd' });
    const file = await session.workspace.read('out.psd');
    const read = await readWithPsdTools(file, { pixels: true });
    const layerData = read.pixels!.find((p) => p.layer !== null)!.data;
    const merged = await withTempFiles({ 'in.psd': file }, (f) =>
      convertTo([`${f['in.psd']}[0]`, '-depth', '8', 'cmyk:OUT'], 'cmyk'),
    );
    for (let p = 0; p < G * G; p++) {
      for (let c = 0; c < 4; c++) {
        expect(layerData[p * 4 + c]).toBe(first[p * 5 + c]);
        expect(merged[p * 4 + c]).toBe(first[p * 5 + c]);
      }
    }
  }, 60_000);

  it("keep a fill layer's colour: a flat press background stays K-only, a converted fill holds its first separation", async () => {
    const session = newSession(tempDir('atelier-cmyk-fill-'));
    const flat = await convertTo(
      [
        '-size',
        `${W}x${H}`,
        'xc:cmyk(0,0,0,255)',
        '-profile',
        DEFAULT_PROFILE_PATH,
        '-depth',
        '8',
        'psd:OUT',
      ],
      'psd',
    );
    await session.workspace.writeAtomic('flat.psd', flat);
    await ok(session, 'open_document', { path: 'flat.psd' });
    const opened = session.editor.snapshot.docs[0]!;
    const layers = [...opened.history.states[opened.history.index]!.layers.values()];
    expect(layers.map((l) => l.kind)).toEqual(['fill']); // read as a flat background, not pixels
    await ok(session, 'save_document_as', { path: 'flat-again.psd' });
    const saved = await readWithPsdTools(await session.workspace.read('flat-again.psd'), { pixels: true });
    const inks = saved.pixels!.find((p) => p.layer !== null)!.data;
    expect(at(inks, 3, 3)).toEqual([0, 0, 0, 255]);
    expect([...(await mergedInks(await session.workspace.read('flat-again.psd'))).subarray(0, 4)]).toEqual([
      0, 0, 0, 255,
    ]);

    const red = { r: 200, g: 30, b: 60 };
    await session.workspace.writeAtomic(
      'red.png',
      await sharp({ create: { width: G, height: G, channels: 4, background: { ...red, alpha: 1 } } })
        .png()
        .toBuffer(),
    );
    await ok(session, 'open_document', { path: 'red.png' });
    await ok(session, 'convert_to_cmyk');
    await ok(session, 'save_document_as', { path: 'red.psd' });
    const first = await cmykaFromRgba(Uint8Array.of(red.r, red.g, red.b, 255), 1, 1, DEFAULT_PROFILE_PATH);
    const file = await session.workspace.read('red.psd');
    const layer = (await readWithPsdTools(file, { pixels: true })).pixels!.find((p) => p.layer !== null)!;
    expect([...layer.data.subarray(0, 4)]).toEqual([...first.subarray(0, 4)]);
    expect([...(await mergedInks(file)).subarray(0, 4)]).toEqual([...first.subarray(0, 4)]);
  }, 60_000);

  it('are kept for what is drawn after the conversion, and for the pixels an edit leaves alone', async () => {
    const session = newSession(tempDir('atelier-cmyk-after-'));
    const rgba = await openConverted(session);
    // Paint a colour into the converted layer itself, and put text of another colour on a layer of its own.
    const paint = { r: 30, g: 160, b: 90 };
    const ink = { r: 200, g: 40, b: 150 };
    await ok(session, 'select_rect', { left: 4, top: 4, right: 20, bottom: 14 });
    await ok(session, 'fill_selection', { color: '#1ea05a' });
    await ok(session, 'deselect');
    await ok(session, 'create_text_layer', { text: '印', x: 24, y: 20, font_size: 22, color: '#c82896' });
    const sep = async (c: { r: number; g: number; b: number }) => [
      ...(await cmykaFromRgba(Uint8Array.of(c.r, c.g, c.b, 255), 1, 1, DEFAULT_PROFILE_PATH)).subarray(0, 4),
    ];
    const first = await cmykaFromRgba(rgba, G, G, DEFAULT_PROFILE_PATH);
    const percent = (v: number) => Math.round((v / 255) * 100);
    const asPercent = ([c, m, y, k]: number[]) => ({
      c: percent(c!),
      m: percent(m!),
      y: percent(y!),
      k: percent(k!),
    });
    expect((await ok(session, 'get_pixel_color', { x: 8, y: 8 })).cmyk).toEqual(asPercent(await sep(paint)));

    await ok(session, 'save_document_as', { path: 'after.psd' });
    const file = await session.workspace.read('after.psd');
    const read = await readWithPsdTools(file, { pixels: true });
    const background = read.pixels!.find((p) => p.layer !== null && p.width === G && p.height === G)!;
    const at4 = (data: Uint8Array, w: number, x: number, y: number) => [
      ...data.subarray((y * w + x) * 4, (y * w + x) * 4 + 4),
    ];
    // The painted pixels: the first separation of the colour asked for; the rest of the layer: the conversion's.
    expect(at4(background.data, G, 8, 8)).toEqual(await sep(paint));
    for (const [x, y] of [
      [30, 5],
      [2, 40],
      [45, 45],
    ] as const) {
      expect(at4(background.data, G, x, y)).toEqual([
        ...first.subarray((y * G + x) * 5, (y * G + x) * 5 + 4),
      ]);
    }
    // The text: every fully covered glyph pixel holds the first separation of its colour.
    const text = read.pixels!.find((p) => p.layer !== null && p !== background)!;
    const want = await sep(ink);
    let glyph = 0;
    expect(text.srgbMode).toBe('RGBA');
    for (let i = 0; i < text.width * text.height; i++) {
      if (text.srgb![i * 4 + 3] !== 255) continue;
      expect([...text.data.subarray(i * 4, i * 4 + 4)]).toEqual(want);
      glyph++;
    }
    expect(glyph).toBeGreaterThan(20);
  }, 60_000);
});
