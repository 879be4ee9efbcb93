/**
 * The colour profiles of PSD files: an RGB or grayscale file tagged with a profile other than sRGB is read through
 * it (ImageMagick, converting the same file to sRGB, is the reference), the colours of a CMYK file's fill layers
 * through its press profile, and the RGB files we write say they are sRGB.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Layer as AgLayer, Psd as AgPsd } from 'ag-psd';
import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../../src/engine/composite/compositor.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import { cmykLayerPlan, embedProfile } from '../../../src/engine/io/psd-cmyk.js';
import { MemorySink } from '../../../src/engine/io/psd-sink.js';
import { type ChannelPlans, streamPsd } from '../../../src/engine/io/psd-stream.js';
import type { DocState, Layer } from '../../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH, pressProfile } from '../../../src/engine/press-profile.js';
import { solidRaster } from '../../../src/engine/raster.js';
import { CONVERT, identify, imageMagickAvailable } from '../../support/imagemagick.js';
import { SYSTEM_PYTHON } from '../../support/psd-tools.js';
import { tempDir } from '../../support/session.js';
import { colorants, lutProfile } from './lut-profile.js';
import { buildRichDoc, testComposite } from './psd-fixtures.js';

const ICC_DIR = '/usr/share/color/icc/ghostscript';
const A98 = path.join(ICC_DIR, 'a98.icc');
const SRGB = path.join(ICC_DIR, 'srgb.icc');
const SGRAY = path.join(ICC_DIR, 'sgray.icc');
const ready = imageMagickAvailable() && [A98, SRGB, SGRAY, DEFAULT_PROFILE_PATH].every(existsSync);

function layerNamed(state: DocState, name: string): Layer {
  const l = [...state.layers.values()].find((x) => x.name === name);
  if (!l) throw new Error(`no layer ${name}`);
  return l;
}

/** ImageMagick's sRGB reading of the merged image of `file`, pixel (x, y). */
function imageMagickSrgb(file: string, x: number, y: number): number[] {
  const out = execFileSync(
    CONVERT,
    [`${file}[0]`, '-profile', SRGB, '-depth', '8', '-crop', `1x1+${x}+${y}`, 'rgb:-'],
    { encoding: 'buffer' },
  );
  return [...out.subarray(0, 3)];
}

const maxDiff = (a: readonly number[], b: readonly number[]) =>
  Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));

/** A flattened 8-bit grayscale PSD (raw merged image, as Photoshop writes one without layers), with `icc`. */
function grayPsd(w: number, h: number, gray: Uint8Array, icc?: Uint8Array): Buffer {
  const resource = icc ? Buffer.alloc(12 + icc.length + (icc.length % 2)) : Buffer.alloc(0);
  if (icc) {
    resource.write('8BIM', 0, 'latin1');
    resource.writeUInt16BE(1039, 4); // ICC profile; empty name (two bytes)
    resource.writeUInt32BE(icc.length, 8);
    resource.set(icc, 12);
  }
  const head = Buffer.alloc(26);
  head.write('8BPS', 0, 'latin1');
  head.writeUInt16BE(1, 4);
  head.writeUInt16BE(1, 12); // one channel
  head.writeUInt32BE(h, 14);
  head.writeUInt32BE(w, 18);
  head.writeUInt16BE(8, 22);
  head.writeUInt16BE(1, 24); // grayscale
  const u32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
  return Buffer.concat([head, u32(0), u32(resource.length), resource, u32(0), Buffer.from([0, 0]), gray]);
}

describe.skipIf(!ready)('PSD colour profiles', () => {
  it('reads an Adobe RGB PSD through its profile, as ImageMagick converts it to sRGB', async () => {
    const dir = tempDir('atelier-a98-psd-');
    const file = path.join(dir, 'adobe.psd');
    // sRGB (200,120,60) converted to and tagged Adobe RGB (1998), whose numbers are about (180,120,69).
    execFileSync(CONVERT, ['-size', '6x4', 'xc:rgb(200,120,60)', '-profile', SRGB, '-profile', A98, file]);
    const reference = imageMagickSrgb(file, 2, 2);
    expect(maxDiff(reference, [200, 120, 60])).toBeLessThanOrEqual(2);

    const { state, warnings } = await decodePsd(readFileSync(file));
    expect(warnings.some((w) => w.includes('不是 sRGB') && w.includes('A98'))).toBe(true);
    const px = renderDocument(state).data;
    expect(maxDiff([...px.subarray(0, 3)], reference), `${[...px.subarray(0, 3)]}`).toBeLessThanOrEqual(2);
  });

  it('reads a PSD tagged with a LUT-based profile (no colorants) through its table, as ImageMagick does', async () => {
    const dir = tempDir('atelier-lut-psd-');
    const icc = path.join(dir, 'lut.icc');
    writeFileSync(icc, lutProfile('LUT Adobe RGB', colorants(readFileSync(A98)), 563 / 256));
    const file = path.join(dir, 'lut.psd');
    // The numbers assigned the profile (not converted to it): a saturated green and a mid tone.
    execFileSync(CONVERT, ['-size', '6x4', 'xc:rgb(30,200,60)', '-profile', icc, file]);
    const reference = imageMagickSrgb(file, 2, 2);
    // Read as sRGB numbers they would stay 30 200 60.
    expect(maxDiff(reference, [30, 200, 60])).toBeGreaterThan(10);
    const { state, warnings } = await decodePsd(readFileSync(file));
    expect(warnings.some((w) => w.includes('不是 sRGB') && w.includes('LUT Adobe RGB'))).toBe(true);
    const px = renderDocument(state).data;
    expect(maxDiff([...px.subarray(0, 3)], reference), `${[...px.subarray(0, 3)]}`).toBeLessThanOrEqual(1);
  });

  it("converts a tagged file's fill, text and effect colours too, not only its pixels", async () => {
    const a98 = readFileSync(A98);
    // Adobe RGB numbers of sRGB (200,120,60), by ImageMagick.
    const numbers = [
      ...execFileSync(
        CONVERT,
        ['-size', '1x1', 'xc:rgb(200,120,60)', '-profile', SRGB, '-profile', A98, '-depth', '8', 'rgb:-'],
        { encoding: 'buffer' },
      ),
    ];
    const [r, g, b] = numbers as [number, number, number];
    const data = new Uint8ClampedArray(4 * 4 * 4);
    for (let i = 0; i < 16; i++) data.set([r, g, b, 255], i * 4);
    const psd: AgPsd = {
      width: 4,
      height: 4,
      children: [
        { name: '像素', left: 0, top: 0, imageData: { width: 4, height: 4, data } },
        { name: '填充', vectorFill: { type: 'color', color: { r, g, b } } },
        {
          name: '描边',
          left: 0,
          top: 0,
          imageData: { width: 4, height: 4, data },
          effects: {
            stroke: [{ enabled: true, size: { units: 'Pixels', value: 2 }, color: { r, g, b } }],
          },
        },
      ],
    };
    embedProfile(psd, a98);
    const { state } = await decodePsd(writePsdBuffer(psd));
    const near = (c: { r: number; g: number; b: number }) => maxDiff([c.r, c.g, c.b], [200, 120, 60]);
    const pixel = layerNamed(state, '像素');
    expect(pixel.kind).toBe('fill'); // the flat bottom layer
    if (pixel.kind === 'fill') expect(near(pixel.color)).toBeLessThanOrEqual(2);
    const fill = layerNamed(state, '填充');
    if (fill.kind !== 'fill') throw new Error(fill.kind);
    expect(near(fill.color)).toBeLessThanOrEqual(2);
    expect(near(layerNamed(state, '描边').effects!.stroke!.color)).toBeLessThanOrEqual(2);
  });

  it('reads a grayscale PSD through its gray profile', async () => {
    const dir = tempDir('atelier-gray-psd-');
    const file = path.join(dir, 'gray.psd');
    const levels = new Uint8Array(16 * 16).map((_, i) => i);
    writeFileSync(file, grayPsd(16, 16, levels, readFileSync(SGRAY)));
    const { state, warnings } = await decodePsd(readFileSync(file));
    expect(warnings.some((w) => w.includes('不是 sRGB'))).toBe(true);
    const px = renderDocument(state).data;
    for (const level of [64, 128, 192]) {
      const reference = imageMagickSrgb(file, level % 16, Math.floor(level / 16));
      const ours = [...px.subarray(level * 4, level * 4 + 3)];
      expect(maxDiff(ours, reference), `${level}: ${ours} vs ${reference}`).toBeLessThanOrEqual(1);
      expect(maxDiff(ours, [level, level, level])).toBeGreaterThan(8); // not read as sRGB gray
    }
  });

  it('says that a grayscale PSD becomes RGB, which is how it will be saved', async () => {
    const levels = new Uint8Array(4 * 4).fill(90);
    const { state, warnings } = await decodePsd(grayPsd(4, 4, levels));
    expect(state.mode).toBe('rgb');
    expect(warnings.some((w) => w.includes('灰度') && w.includes('RGB'))).toBe(true);
    expect([...renderDocument(state).data.subarray(0, 4)]).toEqual([90, 90, 90, 255]); // untagged: as it is
  });

  it('writes RGB PSDs tagged sRGB, which read back unchanged and without a warning', async () => {
    const state = buildRichDoc();
    const { buffer } = await encodePsd(state, testComposite());
    const file = path.join(tempDir('atelier-srgb-psd-'), 'rich.psd');
    writeFileSync(file, buffer);
    expect(await identify(buffer, 'psd', '%[icc:description]')).toBe('sRGB');
    // psd-tools, a second reader, finds the profile in image resource 1039.
    const size = execFileSync(SYSTEM_PYTHON, [
      '-c',
      'import sys\nfrom psd_tools import PSDImage\nfrom psd_tools.constants import Resource\n' +
        'print(len(PSDImage.open(sys.argv[1]).image_resources.get_data(Resource.ICC_PROFILE)))',
      file,
    ]);
    expect(Number(String(size).trim())).toBeGreaterThan(0);
    const back = await decodePsd(buffer);
    expect(back.warnings.filter((w) => w.includes('配置文件'))).toEqual([]);
    expect(renderDocument(back.state).data).toEqual(renderDocument(state).data);
  });

  it("reads a CMYK file's fill layer colour through the profile and saves it with the same inks", async () => {
    await decodePsd(Buffer.from('8BPS')).catch(() => undefined); // sets ag-psd up for CMYK
    const profile = pressProfile();
    const w = 6;
    const h = 4;
    const white = solidRaster({ x: 0, y: 0, w, h }, { r: 255, g: 255, b: 255 });
    // A Photoshop CMYK file with a solid colour fill layer of 100 % cyan (its colour in CMYK, as Photoshop
    // stores it) over a white background.
    const bg: AgLayer = { name: '背景', left: 0, top: 0, right: w, bottom: h };
    const cyan: AgLayer = {
      name: '青',
      left: 0,
      top: 0,
      right: w,
      bottom: h,
      vectorFill: { type: 'color', color: { c: 100, m: 0, y: 0, k: 0 } },
    };
    const plans: ChannelPlans = new WeakMap();
    plans.set(bg, cmykLayerPlan(white, profile, true, []));
    plans.set(cyan, cmykLayerPlan(white, profile, true, []));
    const psd: AgPsd = { width: w, height: h, children: [bg, cyan] };
    embedProfile(psd, profile.bytes);
    const sink = new MemorySink();
    await streamPsd(sink, psd, plans, white, {
      psb: false,
      background: false,
      cmyk: { profile, inkSources: [] },
    });
    const { state } = await decodePsd(await sink.finish());

    // ImageMagick's sRGB for 100 % cyan through the same profile.
    const reference = [
      ...execFileSync(
        CONVERT,
        [
          '-size',
          '1x1',
          'xc:cmyk(255,0,0,0)',
          '-profile',
          profile.path,
          '-profile',
          SRGB,
          '-depth',
          '8',
          'rgb:-',
        ],
        { encoding: 'buffer' },
      ),
    ];
    const fill = layerNamed(state, '青');
    if (fill.kind !== 'fill') throw new Error(fill.kind);
    const ours = [fill.color.r, fill.color.g, fill.color.b];
    expect(maxDiff(ours, reference), `${ours} vs ${reference}`).toBeLessThanOrEqual(3);

    // Saved again, the fill is 100 % cyan and no other ink (a second separation would add magenta and more).
    const again = await encodePsd(state, renderDocument(state));
    const file = path.join(tempDir('atelier-cmyk-fill-'), 'fill.psd');
    writeFileSync(file, again.buffer);
    const inks = execFileSync(
      CONVERT,
      [`${file}[2]`, '-alpha', 'off', '-depth', '8', '-crop', '1x1+1+1', 'cmyk:-'],
      { encoding: 'buffer' },
    );
    expect([...inks.subarray(0, 4)]).toEqual([255, 0, 0, 0]);
  });
});
