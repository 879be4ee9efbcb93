/**
 * The colours a grayscale PSD states besides its pixels: a type layer's text colour (text engine data) and
 * layer-style colours (descriptors), both gray ink amounts. ag-psd gives the text engine's on a 0–255 scale (its
 * 0–1 values × 255) and descriptors' in percent, as for CMYK (psd-cmyk-colours.test.ts): a 50 % gray text read
 * as percent was black.
 *
 * ag-psd writes RGB files only, so the file is written by it with the text layer and then made grayscale as
 * Photoshop lays one out (colour mode 1, one colour channel in the layer and the merged image); psd-tools, an
 * independent reader, states what the file says.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { decodePsd } from '../../../src/engine/io/psd.js';
import type { DocState, Layer } from '../../../src/engine/model.js';
import { psdToolsAvailable, SYSTEM_PYTHON } from '../../support/psd-tools.js';

const run = promisify(execFile);

const W = 8;
const H = 4;

/**
 * A grayscale PSD holding one empty type layer, its text in 50 % gray and a stroke in 50 % gray: ag-psd's RGB
 * file with the colour mode, the layer's channel table (alpha and gray kept) and the merged image (white) made
 * grayscale.
 */
function grayTextPsd(): Buffer {
  const rgb = writePsdBuffer({
    width: W,
    height: H,
    children: [
      {
        name: '灰字',
        text: { text: 'A', transform: [1, 0, 0, 1, 1, 3], style: { fontSize: 4, fillColor: { k: 127.5 } } },
        effects: { stroke: [{ enabled: true, size: { units: 'Pixels', value: 1 }, color: { k: 50 } }] },
      },
    ],
  });
  const head = Buffer.from(rgb.subarray(0, 26));
  head.writeUInt16BE(1, 12); // one channel
  head.writeUInt16BE(1, 24); // grayscale
  let at = 26;
  at += 4 + rgb.readUInt32BE(at); // colour mode data
  at += 4 + rgb.readUInt32BE(at); // image resources
  const between = rgb.subarray(26, at);
  const sectionLength = rgb.readUInt32BE(at);
  const section = rgb.subarray(at + 4, at + 4 + sectionLength);
  const infoLength = section.readUInt32BE(0);
  expect(section.readInt16BE(4)).toBe(1); // one layer
  // The layer record: its rectangle, then its channel table (id, length), alpha and R, G, B.
  const table = 4 + 2 + 16;
  expect(section.readUInt16BE(table)).toBe(4);
  const ids = [0, 1, 2, 3].map((i) => section.readInt16BE(table + 2 + i * 6));
  const lengths = [0, 1, 2, 3].map((i) => section.readUInt32BE(table + 4 + i * 6));
  expect(ids).toEqual([-1, 0, 1, 2]);
  const recordEnd = table + 2 + 24 + 16 + 4 + section.readUInt32BE(table + 2 + 24 + 12);
  const dataOf = (i: number) => {
    const start = recordEnd + lengths.slice(0, i).reduce((a, b) => a + b, 0);
    return section.subarray(start, start + lengths[i]!);
  };
  const count = Buffer.alloc(2);
  count.writeUInt16BE(2);
  const dropped = 12 + lengths[2]! + lengths[3]!;
  const newSection = Buffer.concat([
    section.subarray(0, table),
    count,
    section.subarray(table + 2, table + 2 + 12), // alpha and gray
    section.subarray(table + 2 + 24, recordEnd),
    dataOf(0),
    dataOf(1),
    section.subarray(recordEnd + lengths.reduce((a, b) => a + b, 0)),
  ]);
  newSection.writeUInt32BE(infoLength - dropped, 0);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(sectionLength - dropped);
  const merged = Buffer.concat([Buffer.from([0, 0]), Buffer.alloc(W * H, 255)]); // raw, white
  return Buffer.concat([head, between, length, newSection, merged]);
}

/** What psd-tools reads: the file's colour mode and each layer's text fill colour and stroke colour. */
const READ = `
import json, sys
from psd_tools import PSDImage
psd = PSDImage.open(sys.argv[1])
out = {'mode': int(psd.color_mode), 'channels': psd.channels, 'layers': []}
for layer in psd.descendants():
    item = {'name': layer.name, 'kind': layer.kind, 'channels': [int(c.id) for c in layer._record.channel_info]}
    style = layer.engine_dict['StyleRun']['RunArray'][0]['StyleSheet']['StyleSheetData']
    fill = style['FillColor']
    item['fill'] = {'type': int(fill['Type']), 'values': [float(v) for v in fill['Values']]}
    item['stroke'] = [{k.decode().strip(): float(v) for k, v in e.value[b'Clr '].items()} for e in layer.effects]
    out['layers'].append(item)
json.dump(out, sys.stdout)
`;

async function psdTools(file: Buffer): Promise<unknown> {
  const dir = await mkdtemp(path.join(tmpdir(), 'psd-gray-'));
  try {
    const psd = path.join(dir, 'gray.psd');
    await writeFile(psd, file);
    const { stdout } = await run(SYSTEM_PYTHON, ['-c', READ, psd], { encoding: 'utf8' });
    return JSON.parse(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function layerNamed(state: DocState, name: string): Layer {
  const l = [...state.layers.values()].find((x) => x.name === name);
  if (!l) throw new Error(`no layer ${name}`);
  return l;
}

describe.skipIf(!psdToolsAvailable())('grayscale PSD colours', () => {
  it('opens a 50 % gray text (and stroke) as 50 % gray, not black', async () => {
    const file = grayTextPsd();
    // The file as psd-tools reads it: grayscale, the text engine's gray 0.5, the stroke's descriptor gray 50 %.
    expect(await psdTools(file)).toEqual({
      mode: 1,
      channels: 1,
      layers: [
        {
          name: '灰字',
          kind: 'type',
          channels: [-1, 0],
          fill: { type: 0, values: [1, 0.5] },
          stroke: [{ Gry: 50 }],
        },
      ],
    });
    const { state, warnings } = await decodePsd(file);
    expect(warnings.join('\n')).toMatch(/灰度/);
    const text = layerNamed(state, '灰字');
    if (text.kind !== 'text') throw new Error(text.kind);
    expect(text.text.color).toEqual({ r: 128, g: 128, b: 128 });
    expect(text.effects?.stroke?.color).toEqual({ r: 128, g: 128, b: 128 });
  });
});
