/**
 * A CMYK PSD opened and saved again keeps its inks where its pixels did not change. The file is ImageMagick's
 * (an independent writer): a 100 % K black half and a 100 % C cyan half, the kind of separation a press file has
 * and a fresh separation of the same colours would not give back (the profile's black is four-colour). psd-tools
 * reads the inks we write.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cmykaFromRgba } from '../../../src/engine/cmyk-pixels.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import type { DocState, PixelLayer, Raster } from '../../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH } from '../../../src/engine/press-profile.js';
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
function pressFile(profile: string): Promise<Buffer> {
  const half = (ink: string) => ['-size', `${W / 2}x${H - 2}`, `xc:cmyk(${ink})`];
  return convertTo(
    [
      ...['-size', `${W}x2`, 'xc:cmyk(0,0,0,128)'],
      ...['(', ...half('0,0,0,255'), ...half('255,0,0,0'), '+append', ')'],
      '-append',
      ...['-profile', profile, '-depth', '8', 'psd:OUT'],
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

  it('separates afresh a layer whose pixels changed, even when the change kept the old inks along', async () => {
    const file = await pressFile(DEFAULT_PROFILE_PATH);
    const { state } = await decodePsd(file);
    const layer = onlyLayer(state);
    const data = copyPixels(layer.raster.data);
    data.set([255, 255, 255, 255], (10 * W + 2) * 4); // one pixel painted white
    const edited: Raster = { ...layer.raster, data };
    expect(edited.inks).toBeDefined();
    const next: DocState = {
      ...state,
      layers: new Map(state.layers).set(layer.id, { ...layer, raster: edited }),
    };
    const inks = await layerInks(await resave(next));
    const expected = await cmykaFromRgba(data, W, H, DEFAULT_PROFILE_PATH);
    for (let i = 0; i < W * H; i++) {
      for (let c = 0; c < 4; c++) expect(inks[i * 4 + c]).toBe(expected[i * 5 + c]);
    }
    expect(at(inks, 2, 10)).toEqual([0, 0, 0, 0]);
    expect(at(inks, 4, 10)[0]).toBeGreaterThan(100); // the black around it: a fresh four-colour separation
  }, 60_000);

  it('separates afresh when the file was made with another profile than the press profile', async () => {
    if (!existsSync(OTHER_PROFILE)) return;
    const file = await pressFile(OTHER_PROFILE);
    const { state, warnings } = await decodePsd(file);
    expect(warnings.join()).toMatch(/再次保存时将按/);
    const inks = await layerInks(await resave(state));
    const expected = await cmykaFromRgba(onlyLayer(state).raster.data, W, H, DEFAULT_PROFILE_PATH);
    for (let i = 0; i < W * H; i++) {
      for (let c = 0; c < 4; c++) expect(inks[i * 4 + c]).toBe(expected[i * 5 + c]);
    }
  }, 60_000);
});
