/**
 * CMYK files streamed (psd-stream.ts, psd-cmyk.ts): the merged image separated band by band holds exactly the
 * inks a separation of the whole composite gives (matted over white, stored as 255 − ink), across several bands;
 * group and divider records carry five channels, as every CMYK record.
 */
import { existsSync } from 'node:fs';
import { readPsd } from 'ag-psd';
import { createReader, readDataRLE } from 'ag-psd/dist/psdReader.js';
import { describe, expect, it } from 'vitest';
import { cmykaFromRgba } from '../../../src/engine/cmyk-pixels.js';
import { encodePsd } from '../../../src/engine/io/psd.js';
import { DEFAULT_PROFILE_PATH, pressProfile } from '../../../src/engine/press-profile.js';
import { doc, group, pixel, rasterOf } from '../composite/support.js';

describe.skipIf(!existsSync(DEFAULT_PROFILE_PATH))('a streamed CMYK PSD', () => {
  it('holds the whole-composite separation in its merged image, over several bands, and five channels per record', async () => {
    const [W, H] = [37, 700];
    const composite = rasterOf({ x: 0, y: 0, w: W, h: H }, (x, y) => [
      (x * 7 + y) % 256,
      (y * 3) % 256,
      (x * y) % 256,
      y < 100 ? 0 : y < 300 ? 60 + (x % 150) : 255,
    ]);
    const inner = pixel(
      2,
      rasterOf({ x: 1, y: 2, w: 10, h: 600 }, (x) => [x * 20, 50, 90, 200]),
    );
    const state = { ...doc(W, H, [inner, group(3, [2], { name: '组' })], [3]), mode: 'cmyk' as const };
    const { buffer } = await encodePsd(state, composite);

    expect(buffer.readUInt16BE(24)).toBe(4);
    expect(buffer.readUInt16BE(12)).toBe(5);
    const psd = readPsd(buffer, { useRawData: true, skipThumbnail: true });
    const records = [psd.children![0]!, ...psd.children![0]!.children!];
    for (const r of records) expect(r.rawData?.channels.map((c) => c.id).sort()).toEqual([-1, 0, 1, 2, 3]);

    // The whole composite separated at once, matted and stored as the file stores it.
    const whole = await cmykaFromRgba(composite.data, W, H, pressProfile().path);
    for (let i = 0; i < whole.length; i += 5) {
      const a = whole[i + 4]!;
      for (let c = 0; c < 4; c++)
        whole[i + c] = 255 - (a === 255 ? whole[i + c]! : Math.round((whole[i + c]! * a) / 255));
    }
    const bytes = psd.rawCompositeData!;
    expect((bytes[0]! << 8) | bytes[1]!).toBe(1);
    const body = bytes.subarray(2);
    const stored = new Uint8Array(W * H * 5);
    readDataRLE(
      createReader(body.buffer, body.byteOffset, body.byteLength),
      { width: W, height: H, data: stored },
      W,
      H,
      8,
      5,
      [0, 1, 2, 3, 4],
      false,
    );
    expect(Buffer.compare(Buffer.from(stored), Buffer.from(whole))).toBe(0);
  });
});
