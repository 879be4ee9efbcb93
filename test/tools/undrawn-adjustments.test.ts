/**
 * Adjustment layers Atelier keeps but does not draw (an Exposure layer; every adjustment of a CMYK document):
 * a merge that would delete one without its effect is refused and changes nothing; what does not merge it
 * (copy merged, showing or hiding it, a save) says the picture lacks it, and why.
 */
import { type Layer as AgLayer, type Psd as AgPsd, writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { newSession, ok, refused } from '../support/session.js';
import { vibranceLayer } from '../support/undrawn-adjustment.js';

const W = 40;
const H = 30;

function px(w: number, h: number, [r, g, b]: [number, number, number]) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([r, g, b, 255], i * 4);
  return { width: w, height: h, data };
}

const photo = (name = '照片'): AgLayer => ({
  name,
  left: 5,
  top: 5,
  right: 15,
  bottom: 15,
  imageData: px(10, 10, [200, 120, 80]),
});
const vibrance = vibranceLayer;
const invert: AgLayer = { name: '反相 1', adjustment: { type: 'invert' } };

async function open(children: AgLayer[]): Promise<Session> {
  const s = newSession();
  const psd: AgPsd = {
    width: W,
    height: H,
    imageData: px(W, H, [255, 255, 255]),
    children: [
      { name: 'Background', left: 0, top: 0, right: W, bottom: H, imageData: px(W, H, [255, 255, 255]) },
      ...children,
    ],
  };
  await s.workspace.writeAtomic('adj.psd', Buffer.from(writePsdBuffer(psd)));
  await ok(s, 'open_document', { path: 'adj.psd' });
  return s;
}

const warnings = (r: Record<string, unknown>): string =>
  ((r.warnings as string[] | undefined) ?? []).join('\n');

async function pixel(s: Session, x: number, y: number): Promise<string> {
  return (await ok(s, 'get_pixel_color', { x, y })).hex as string;
}

describe('merging an adjustment layer that is not drawn', () => {
  it('is refused by merge_visible, flatten_image and merge_layers, naming the layer and why; nothing changes', async () => {
    const s = await open([photo(), vibrance()]);
    for (const tool of ['merge_visible', 'flatten_image']) {
      const e = await refused(s, tool, {}, 'unsupported');
      expect(e.message).toMatch(/调整图层“自然饱和度 1”（Atelier 不绘制自然饱和度调整）/);
      expect(e.hint).toMatch(/set_layer_visible|delete_layer/);
      expect(e.details).toEqual({ adjustments: ['自然饱和度 1'] });
    }
    await ok(s, 'select_layers', { names: ['照片', '自然饱和度 1'] });
    expect((await refused(s, 'merge_layers', {}, 'unsupported')).hint).toMatch(/select_layers/);
    // Merge Down of the adjustment alone.
    await ok(s, 'select_layers', { names: ['自然饱和度 1'] });
    expect((await refused(s, 'merge_layers', {}, 'unsupported')).message).toMatch(/向下合并/);
  });

  it('is refused inside a merged group, and for a group merged whole', async () => {
    const s = await open([{ name: '组 1', opened: true, children: [photo(), vibrance()] }, photo('上层')]);
    await ok(s, 'select_layers', { names: ['组 1'] });
    await refused(s, 'merge_layers', {}, 'unsupported');
    await ok(s, 'select_layers', { names: ['组 1', '上层'] });
    await refused(s, 'merge_layers', {}, 'unsupported');
  });

  it('goes ahead once the layer is hidden: merge_visible keeps it, flatten_image discards it', async () => {
    const s = await open([photo(), vibrance()]);
    await ok(s, 'set_layer_visible', { name: '自然饱和度 1', visible: false });
    const merged = await ok(s, 'merge_visible');
    expect(merged.kept_hidden).toEqual(['自然饱和度 1']);
    const structure = JSON.stringify(await ok(s, 'get_layer_structure'));
    expect(structure).toContain('自然饱和度 1');
    const flat = await ok(s, 'flatten_image');
    expect(flat).toMatchObject({ hidden_discarded: 1, discarded: ['自然饱和度 1'], layer_count: 1 });
  });

  it('does not stop a drawn adjustment from merging with its effect', async () => {
    const s = await open([photo(), invert]);
    expect(await pixel(s, 8, 8)).toBe('#3787af'); // 255 − (200, 120, 80)
    await ok(s, 'merge_visible');
    const structure = JSON.stringify(await ok(s, 'get_layer_structure'));
    expect(structure).not.toContain('反相 1');
    await ok(s, 'set_layer_visible', { name: '背景', visible: true });
    expect(await pixel(s, 8, 8)).toBe('#3787af');
    expect(await pixel(s, 30, 25)).toBe('#000000');
  });
});

describe('what does not merge it says the picture lacks it', () => {
  it('copy_merged_to_new_layer and set_layer_visible warn; a drawn layer gives no such warning', async () => {
    const s = await open([photo(), vibrance(), invert]);
    const copied = await ok(s, 'copy_merged_to_new_layer');
    expect(warnings(copied)).toMatch(
      /新图层不含调整图层“自然饱和度 1”（Atelier 不绘制自然饱和度调整）的效果/,
    );
    expect(warnings(copied)).not.toContain('反相 1');

    const hidden = await ok(s, 'set_layer_visible', { name: '自然饱和度 1', visible: false });
    expect(warnings(hidden)).toMatch(
      /“自然饱和度 1”已隐藏，但预览和导出的图像不变：Atelier 不绘制自然饱和度调整/,
    );
    const shown = await ok(s, 'set_layer_visible', { name: '自然饱和度 1', visible: true });
    expect(warnings(shown)).toMatch(/已显示.*Photoshop 中会应用它/);
    const drawn = await ok(s, 'set_layer_visible', { name: '反相 1', visible: false });
    expect(warnings(drawn)).toBe('');
  });

  it('in a CMYK document every adjustment is undrawn, and the messages say it is the inks', async () => {
    const s = await open([photo(), vibrance(), invert]);
    const converted = await ok(s, 'convert_to_cmyk');
    const said = warnings(converted);
    expect(said).toMatch(/调整图层“自然饱和度 1”、“反相 1”已保留/);
    // Merging before the conversion keeps Invert's effect, never Exposure's: only Invert is offered.
    expect(said).toMatch(/需要“反相 1”的效果时/);
    expect(said).not.toMatch(/需要“自然饱和度 1”/);

    const e = await refused(s, 'merge_visible', {}, 'unsupported');
    expect(e.message).toMatch(/“反相 1”（CMYK 文档中的调整作用于油墨通道，Atelier 不绘制）/);
    const saved = await ok(s, 'save_document_as', { path: 'out.psd' });
    expect(warnings(saved)).toMatch(/合并图像不含调整图层.*“反相 1”（CMYK 文档中的调整作用于油墨通道/);
  });

  it('offers merging before the conversion by layer, not by name: of two layers named alike, the one drawn in RGB', async () => {
    const s = await open([photo(), vibrance({ name: '调整' }), { ...invert, name: '调整' }]);
    const said = warnings(await ok(s, 'convert_to_cmyk'));
    expect(said).toMatch(/调整图层“调整”、“调整”已保留/);
    expect(said).toMatch(/需要“调整”的效果时/);
  });
});

describe('merge_visible lists what it keeps', () => {
  it('a visible group holding only hidden layers is kept as a group, not as hidden', async () => {
    const s = await open([photo(), { name: '组 1', children: [{ ...photo('藏'), hidden: true }] }]);
    const merged = await ok(s, 'merge_visible');
    expect(merged.kept_hidden).toEqual(['藏']);
    expect(merged.kept_groups).toEqual(['组 1']);
  });
});
