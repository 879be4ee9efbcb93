/**
 * Opening PSDs whose layer names are only in the legacy Pascal field (no `luni` block): ImageMagick writes its
 * labels there in UTF-8, an old Chinese Photoshop in GBK. Both read as the names the designer gave; a name that
 * also has a Unicode name is read from that one, however its Pascal bytes look.
 */
import { describe, expect, it } from 'vitest';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import { convertTo, imageMagickAvailable } from '../../support/imagemagick.js';
import { DocBuilder, ramp, testComposite } from './psd-fixtures.js';

const names = async (file: Uint8Array) =>
  [...(await decodePsd(file)).state.layers.values()].map((l) => l.name).sort();

/** Every occurrence of `needle` in `hay`. */
function positions(hay: Uint8Array, needle: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + needle.length <= hay.length; i++)
    if (needle.every((b, k) => hay[i + k] === b)) out.push(i);
  return out;
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

async function twoLayers(first: string, second: string): Promise<Buffer> {
  const b = new DocBuilder();
  const state = b.state([
    b.pixel(first, ramp(0, 0, 12, 9, { r: 200, g: 30, b: 30 }, 255)),
    b.pixel(second, ramp(14, 0, 12, 9, { r: 30, g: 30, b: 200 }, 255)),
  ]);
  return (await encodePsd(state, testComposite())).buffer;
}

describe('legacy layer names', () => {
  it.skipIf(!imageMagickAvailable())(
    'a PSD ImageMagick wrote: its UTF-8 labels are the layers’ names',
    async () => {
      const file = await convertTo(
        ['-size', '40x30', 'xc:white', '(', '-size', '20x10', 'xc:red', '-set', 'label', '前片', ')'].concat([
          '(',
          '-size',
          '10x10',
          'xc:blue',
          '-set',
          'label',
          '后片 图层',
          ')',
          'OUT',
        ]),
        'psd',
      );
      expect(positions(file, ascii('luni'))).toEqual([]);
      expect(await names(file)).toEqual(['前片', '后片 图层'].sort());
    },
  );

  it('GBK names without a Unicode name (an old Chinese Photoshop) read as Chinese', async () => {
    // Our own file holds GBK legacy names beside `luni`; with the `luni` keys renamed away, only GBK is left.
    const file = Buffer.from(await twoLayers('图层 1', '裁片 前片'));
    const keys = positions(file, ascii('8BIMluni'));
    expect(keys).toHaveLength(2);
    for (const at of keys) file.set(ascii('8BIMxxxx'), at);
    expect(await names(file)).toEqual(['图层 1', '裁片 前片'].sort());
  });

  it('a name with a Unicode name is read from it, not guessed from its Pascal bytes', async () => {
    // ag-psd writes `Ébauche` as `?bauche`; as a Latin-1 writer would, the byte becomes É (0xC9), which with
    // the `b` after it is also a GBK character: with `luni` present the name must stay `Ébauche`.
    const file = Buffer.from(await twoLayers('Ébauche', 'Plain'));
    const [at] = positions(file, ascii('?bauche'));
    expect(at).toBeDefined();
    file[at!] = 0xc9;
    expect(await names(file)).toEqual(['Plain', 'Ébauche'].sort());
    // Without `luni` the same bytes are GBK as an old Chinese Photoshop would write them, and read so: only the
    // Unicode name tells them apart.
    for (const k of positions(file, ascii('8BIMluni'))) file.set(ascii('8BIMxxxx'), k);
    expect(await names(file)).not.toContain('Ébauche');
  });
});
