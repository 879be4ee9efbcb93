/**
 * Layer names in the PSDs we write, read by real readers: the legacy Pascal name (ImageMagick 6 reads only it)
 * holds what Chinese Photoshop writes there, GBK; the Unicode name (`luni`) stays exact for psd-tools, ag-psd
 * and Photoshop. Chinese, mixed, emoji, empty and 300-character names; RGB, PSB and CMYK files; groups.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { convertStateToCmyk } from '../../../src/engine/color-mode.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import { legacyLayerName } from '../../../src/engine/io/psd-legacy-name.js';
import type { DocState } from '../../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH } from '../../../src/engine/press-profile.js';
import { IDENTIFY, imageMagickAvailable } from '../../support/imagemagick.js';
import { psdToolsAvailable, SYSTEM_PYTHON } from '../../support/psd-tools.js';
import { withTempFiles } from '../press-profile-support.js';
import { DocBuilder, ramp, testComposite } from './psd-fixtures.js';

const run = promisify(execFile);

const LONG = '长'.repeat(300);
const NAMES = ['图层 1', 'Logo 标志', '😀 笑脸 emoji', '', LONG, 'Plain', '裁片 · 前片'];
const GROUP = '分组 衣身';

/** Every layer's name, the group's included. */
const ALL_NAMES = [...NAMES.slice(0, 5), 'Plain', '裁片 · 前片', GROUP];

function doc(): DocState {
  const b = new DocBuilder();
  const layers = NAMES.slice(0, 5).map((n, i) =>
    b.pixel(n, ramp(i * 3, i * 2, 12, 9, { r: 40 * i, g: 90, b: 200 }, 255)),
  );
  const group = b.group(GROUP, () => [
    b.pixel('Plain', ramp(30, 20, 10, 10, { r: 200, g: 20, b: 20 }, 255)),
    b.pixel('裁片 · 前片', ramp(50, 30, 10, 10, { r: 20, g: 200, b: 20 }, 255)),
  ]);
  return b.state([...layers, group]);
}

/** ImageMagick 6's `label` of each pixel layer (the Pascal name, its bytes as they are), bottom → top. */
async function imageMagickLabels(psd: Uint8Array): Promise<Buffer[]> {
  return withTempFiles({ 'in.psd': psd }, async (f) => {
    const { stdout } = await run(IDENTIFY, ['-format', '%[label]\n', f['in.psd']!], {
      encoding: 'buffer',
      maxBuffer: 16 * 1024 * 1024,
    });
    // One line per frame: the merged image first. A GBK byte is never 0x0a.
    const lines: Buffer[] = [];
    let from = 0;
    for (let i = 0; i < stdout.length; i++) {
      if (stdout[i] === 0x0a) {
        lines.push(stdout.subarray(from, i));
        from = i + 1;
      }
    }
    return lines.slice(1);
  });
}

/** psd-tools' names of every layer: the Unicode name and the Pascal name read as code page 936. */
async function psdToolsNames(psd: Uint8Array): Promise<{ name: string; legacy: string }[]> {
  const script = [
    'import json, sys',
    'from psd_tools import PSDImage',
    "p = PSDImage.open(sys.argv[1], encoding='cp936')",
    "print(json.dumps([{'name': l.name, 'legacy': l._record.name} for l in p.descendants()]))",
  ].join('\n');
  return withTempFiles({ 'in.psd': psd }, async (f) => {
    const { stdout } = await run(SYSTEM_PYTHON, ['-c', script, f['in.psd']!], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as { name: string; legacy: string }[];
  });
}

/** What Chinese Photoshop shows for a name from the legacy field: GBK, cut at 255 bytes. */
const gbkView = (name: string): string => new TextDecoder('gbk').decode(legacyLayerName(name));

async function checkNames(buffer: Buffer): Promise<void> {
  // ImageMagick 6 reads the Pascal name only: GBK bytes, what Chinese Photoshop writes (it lists pixel layers).
  const labels = await imageMagickLabels(buffer);
  const gbk = new TextDecoder('gbk');
  expect(labels.map((l) => gbk.decode(l))).toEqual([
    '图层 1',
    'Logo 标志',
    '? 笑脸 emoji',
    '',
    '长'.repeat(127),
    'Plain',
    '裁片 · 前片',
  ]);
  for (const l of labels) expect(l.length).toBeLessThanOrEqual(255);

  // psd-tools: the Unicode name exactly; the Pascal name (groups' too), read as code page 936, is the GBK form.
  const tools = await psdToolsNames(buffer);
  expect(tools.map((t) => t.name).sort()).toEqual([...ALL_NAMES].sort());
  for (const t of tools) expect(t.legacy).toBe(gbkView(t.name));

  // ag-psd (our reader): every name exactly, the empty one and the 300 characters included.
  const back = await decodePsd(buffer);
  expect([...back.state.layers.values()].map((l) => l.name).sort()).toEqual([...ALL_NAMES].sort());
}

describe.skipIf(!imageMagickAvailable() || !psdToolsAvailable())(
  'layer names for old and new readers',
  () => {
    it('an RGB PSD: GBK legacy names for ImageMagick 6, exact Unicode names for psd-tools and ag-psd', async () => {
      const { buffer } = await encodePsd(doc(), testComposite());
      await checkNames(buffer);
    });

    it('a PSB (64-bit section lengths) has the same names', async () => {
      const { buffer } = await encodePsd(doc(), testComposite(), { psb: true });
      expect(buffer.readUInt16BE(4)).toBe(2);
      await checkNames(buffer);
    });

    it.skipIf(!existsSync(DEFAULT_PROFILE_PATH))('a CMYK PSD has the same names', async () => {
      const { buffer } = await encodePsd(await convertStateToCmyk(doc()), testComposite());
      expect(buffer.readUInt16BE(24)).toBe(4);
      await checkNames(buffer);
    });

    it('the legacy name: GBK bytes, ? for what GBK lacks, cut between characters at 255 bytes', () => {
      expect([...legacyLayerName('圆角矩形 1')]).toEqual([
        0xd4, 0xb2, 0xbd, 0xc7, 0xbe, 0xd8, 0xd0, 0xce, 0x20, 0x31,
      ]);
      expect([...legacyLayerName('a😀b')]).toEqual([0x61, 0x3f, 0x62]);
      expect([...legacyLayerName('€')]).toEqual([0x80]);
      expect(legacyLayerName('')).toHaveLength(0);
      const cut = legacyLayerName(`a${'长'.repeat(200)}`);
      expect(cut).toHaveLength(255);
      expect(new TextDecoder('gbk').decode(cut)).toBe(`a${'长'.repeat(127)}`);
    });
  },
);
