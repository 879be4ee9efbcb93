/**
 * Print exports at production size: an A4 page at 300 dpi (2480 × 3508, a photo-like picture), through
 * Session.call as a model calls export_image — TIFF and PDF, in RGB and after convert_to_cmyk — against a baseline
 * measured in the same run: sharp writing the same pixels, already flattened, as an LZW TIFF (the encode no export
 * can avoid). The CMYK figures include separating the picture into the document's inks.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { Session } from '../src/calls/session.js';
import { pixelLayer } from '../src/engine/factory.js';
import type { Raster } from '../src/engine/model.js';
import { allocateId, insertLayer, setActive } from '../src/engine/tree.js';
import { photo } from './adjust.js';
import { median, ratio, scratchDir } from './util.js';

const [W, H] = [2480, 3508];
const RUNS = 3;

/** `photo`'s picture cropped to the page. */
function page(): Raster {
  const square = photo(H);
  const data = new Uint8ClampedArray(W * H * 4);
  for (let y = 0; y < H; y++) data.set(square.data.subarray(y * H * 4, (y * H + W) * 4), y * W * 4);
  return { x: 0, y: 0, w: W, h: H, data };
}

async function timeExport(session: Session, path: string): Promise<number> {
  return median(RUNS, async () => {
    const r = await session.call({ name: 'export_image', arguments: { path } });
    if (!r.ok) throw new Error(`export_image ${path}: ${JSON.stringify(r.error)}`);
  });
}

export async function benchExport(): Promise<string[]> {
  sharp.concurrency(2);
  const raster = page();
  const session = new Session({ workspace: scratchDir('export') });
  await session.call({ name: 'create_document', arguments: { width: W, height: H, resolution: 300 } });
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  const [id, state] = allocateId(doc.state);
  tx.update(doc.id, setActive(insertLayer(state, pixelLayer(id, '照片', raster), null, 1), id));
  session.editor.commit(tx, 'bench', true);

  const baseline = await median(RUNS, () =>
    sharp(Buffer.from(raster.data.buffer), { raw: { width: W, height: H, channels: 4 } })
      .flatten({ background: '#ffffff' })
      .tiff({ compression: 'lzw', predictor: 'horizontal' })
      .toBuffer(),
  );
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const lines = [`export: baseline sharp LZW TIFF of the same ${W} × ${H} pixels ${ms(baseline)}`];
  for (const mode of ['RGB', 'CMYK'] as const) {
    if (mode === 'CMYK') {
      const t = performance.now();
      const r = await session.call({ name: 'convert_to_cmyk', arguments: {} });
      if (!r.ok) throw new Error(`convert_to_cmyk: ${JSON.stringify(r.error)}`);
      lines.push(`export: convert_to_cmyk ${ms(performance.now() - t)} (once, untimed below)`);
    }
    for (const ext of ['tif', 'pdf'] as const) {
      const took = await timeExport(session, `page.${ext}`);
      lines.push(
        `export: ${mode} ${ext.toUpperCase()} via Session ${ms(took)}; ${ratio(took, baseline)} the baseline`,
      );
    }
  }
  return lines;
}
