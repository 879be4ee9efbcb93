/**
 * A 9000 × 18000 px garment marker (a 60 × 120 in sheet at 150 DPI) with 30 piece layers of about
 * 2000 × 3000 px, built through tool calls; prints peak RSS against the layers' own pixel bytes plus one
 * composite. Runs in its own process so the peak is this document's alone.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Session } from '../src/calls/session.js';
import { mib, ratio } from './util.js';

const ws = mkdtempSync(join(tmpdir(), 'atelier-bench-marker-'));
const session = new Session({ workspace: ws });
const must = async (name: string, args: Record<string, unknown>) => {
  const r = await session.call({ name, arguments: args });
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r;
};

// A piece: an opaque ellipse-ish shape on transparency.
const [pw, ph] = [2000, 3000];
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}"><ellipse cx="${pw / 2}" cy="${ph / 2}" rx="${pw / 2}" ry="${ph / 2}" fill="#c8503c"/></svg>`;
await sharp(Buffer.from(svg)).png().toFile(join(ws, 'piece.png'));

await must('create_document', { width: 9000, height: 18000, name: 'marker' });
for (let i = 0; i < 30; i++) {
  await must('place_image', { path: 'piece.png', name: `piece-${i}` });
  await must('rasterize_layer', { name: `piece-${i}` });
  await must('move_layer', {
    name: `piece-${i}`,
    dx: -3500 + (i % 4) * 2200,
    dy: -7500 + Math.floor(i / 4) * 1900,
  });
  if (i % 3 === 0) await must('set_layer_blend_mode', { name: `piece-${i}`, mode: 'multiply' });
}
await must('get_canvas_image', { max_size: 1024 });
await must('set_layer_opacity', { name: 'piece-7', opacity: 50 });
await must('get_canvas_image', { max_size: 1024 });

const layersBytes = 30 * pw * ph * 4;
const compositeBytes = 9000 * 18000 * 4;
const budget = layersBytes + compositeBytes;
const peak = process.resourceUsage().maxRSS * 1024;
console.log(
  `marker 9000×18000, 30 pieces 2000×3000: peak RSS ${mib(peak)}; layers ${mib(layersBytes)} + composite ${mib(compositeBytes)} = ${mib(budget)}; ratio ${ratio(peak, budget)} (target ≤ 1.5×)`,
);
