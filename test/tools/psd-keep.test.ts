/**
 * Open → edit → save of PSDs made elsewhere (ag-psd here, as the tester's files were): what Atelier does not
 * interpret is written back as it was, and what it cannot keep is said, at open and again at every save.
 * psd-tools (an independent reader) checks the files written; ag-psd's reader checks fields psd-tools does not
 * decode.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Layer as AgLayer, type Psd as AgPsd, readPsd, writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { decodePsd, encodePsd } from '../../src/engine/io/psd.js';
import { BufferNames, decodeState, encodeState } from '../../src/service/state-codec.js';
import { SYSTEM_PYTHON } from '../support/psd-tools.js';
import { call, newSession, ok, tempDir } from '../support/session.js';
import { vibranceLayer } from '../support/undrawn-adjustment.js';

const run = promisify(execFile);
const W = 60;
const H = 40;

function px(w: number, h: number, [r, g, b]: [number, number, number]) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([r, g, b, 255], i * 4);
  return { width: w, height: h, data };
}

function rect(name: string, l: number, t: number, c: [number, number, number], extra: Partial<AgLayer> = {}) {
  return { name, left: l, top: t, right: l + 10, bottom: t + 10, imageData: px(10, 10, c), ...extra };
}

const background = (): AgLayer => ({
  name: 'Background',
  left: 0,
  top: 0,
  right: W,
  bottom: H,
  imageData: px(W, H, [255, 255, 255]),
});

async function put(s: Session, rel: string, psd: Omit<AgPsd, 'width' | 'height'>): Promise<void> {
  const bytes = writePsdBuffer({ width: W, height: H, imageData: px(W, H, [255, 255, 255]), ...psd });
  await s.workspace.writeAtomic(rel, Buffer.from(bytes));
}

const warningsOf = (r: Record<string, unknown>): string[] => (r.warnings as string[] | undefined) ?? [];

/** What psd-tools sees of the fields this file is about, by layer name. */
const PROBE = `
import json, sys
from psd_tools import PSDImage
from psd_tools.constants import Resource, Tag
from psd_tools.psd.descriptor import Descriptor, List
from psd_tools.terminology import Key
psd = PSDImage.open(sys.argv[1])
out = {'resources': {}, 'layers': {}}
for name in ['XMP_METADATA', 'LAYER_COMPS', 'COPYRIGHT_FLAG', 'URL', 'GLOBAL_ANGLE', 'GLOBAL_ALTITUDE']:
    r = psd.image_resources.get_data(getattr(Resource, name))
    out['resources'][name] = None if r is None else (r.decode('utf-8') if isinstance(r, bytes) else str(r))
for layer in psd.descendants():
    rec = layer._record
    item = {'kind': layer.kind}
    br = rec.blending_ranges
    item['blendIf'] = [list(r) for r in br.composite_ranges] if br and br.composite_ranges else None
    for t in ['KNOCKOUT_SETTING', 'BLEND_CLIPPING_ELEMENTS', 'BLEND_INTERIOR_ELEMENTS',
              'TRANSPARENCY_SHAPES_LAYER', 'LAYER_MASK_AS_GLOBAL_MASK', 'SHEET_COLOR_SETTING']:
        v = layer.tagged_blocks.get_data(getattr(Tag, t)) if layer.tagged_blocks else None
        item[t] = None if v is None else int(v)
    m = rec.mask_data
    p = m.parameters if m is not None else None
    item['mask'] = None if p is None else {'density': p.user_mask_density, 'feather': p.user_mask_feather}
    # Every effect with its switch: psd-tools' own list leaves the switched-off ones out.
    fx = layer.effects._data if layer.tagged_blocks else None
    item['effects'] = []
    for key in (fx or []):
        for e in (fx[key] if isinstance(fx[key], List) else [fx[key]]):
            if isinstance(e, Descriptor):
                item['effects'].append([e.classID.decode('latin-1').strip(), bool(e.get(Key.Enabled))])
    if layer.kind == 'solidcolorfill':
        c = layer.tagged_blocks.get_data(Tag.SOLID_COLOR_SHEET_SETTING).get(b'Clr ')
        item['fill'] = [float(c[k]) for k in (b'Rd  ', b'Grn ', b'Bl  ')]
    if layer.kind == 'smartobject':
        item['smart'] = {'filetype': layer.smart_object.filetype.decode() if isinstance(layer.smart_object.filetype, bytes) else str(layer.smart_object.filetype), 'size': len(layer.smart_object.data)}
    out['layers'][layer.name] = item
print(json.dumps(out, ensure_ascii=False))
`;

interface Probe {
  resources: Record<string, string | null>;
  layers: Record<
    string,
    {
      kind: string;
      blendIf: number[][] | null;
      KNOCKOUT_SETTING: number | null;
      BLEND_CLIPPING_ELEMENTS: number | null;
      BLEND_INTERIOR_ELEMENTS: number | null;
      TRANSPARENCY_SHAPES_LAYER: number | null;
      LAYER_MASK_AS_GLOBAL_MASK: number | null;
      SHEET_COLOR_SETTING: number | null;
      mask: { density: number | null; feather: number | null } | null;
      effects: [string, boolean][];
      fill?: number[];
      smart?: { filetype: string; size: number };
    }
  >;
}

async function probe(s: Session, rel: string): Promise<Probe> {
  const script = path.join(tempDir('psd-keep-'), 'probe.py');
  await writeFile(script, PROBE);
  const { stdout } = await run(SYSTEM_PYTHON, [script, s.workspace.resolve(rel)], { encoding: 'utf8' });
  return JSON.parse(stdout) as Probe;
}

/** The data of the first additional layer information block `key` of a PSD ('8BIM', the key, its length, it). */
function layerInfoBlock(bytes: Uint8Array, key: string): Buffer {
  const b = Buffer.from(bytes);
  const at = b.indexOf(`8BIM${key}`, 0, 'latin1');
  expect(at).toBeGreaterThan(0);
  return b.subarray(at + 12, at + 12 + b.readUInt32BE(at + 8));
}

async function agRead(s: Session, rel: string): Promise<AgPsd> {
  return readPsd(await s.workspace.read(rel), { skipLayerImageData: true, skipCompositeImageData: true });
}

const agLayer = (psd: AgPsd, name: string): AgLayer => {
  const walk = (ls: AgLayer[] | undefined): AgLayer | undefined => {
    for (const l of ls ?? []) {
      if (l.name === name) return l;
      const found = walk(l.children);
      if (found) return found;
    }
    return undefined;
  };
  return walk(psd.children)!;
};

describe('what a PSD held that the document does not keep', () => {
  it('is said again by every save, above all one over the file it was opened from', async () => {
    const s = newSession();
    await put(s, 'adj.psd', {
      children: [
        background(),
        rect('照片', 5, 5, [200, 120, 80]),
        rect('标题', 20, 5, [40, 80, 200], {
          vectorMask: {
            paths: [
              {
                open: false,
                fillRule: 'even-odd',
                knots: [
                  { linked: true, points: [20, 5, 20, 5, 20, 5] },
                  { linked: true, points: [30, 5, 30, 5, 30, 5] },
                  { linked: true, points: [25, 15, 25, 15, 25, 15] },
                ],
              },
            ],
          },
        }),
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'adj.psd' });
    expect(warningsOf(opened)).toContainEqual(expect.stringContaining('图层“标题”的矢量蒙版'));
    await ok(s, 'set_layer_opacity', { name: '照片', opacity: 90 });
    const saved = await ok(s, 'save_document');
    expect(saved.path).toBe('adj.psd');
    expect(warningsOf(saved)).toContainEqual(
      expect.stringMatching(/已覆盖原文件“adj\.psd”.*图层“标题”的矢量蒙版/),
    );
    // A copy elsewhere, and a flattened export, lack it too.
    const copy = await ok(s, 'save_document_as', { path: 'out/adj.psd' });
    expect(warningsOf(copy)).toContainEqual(
      expect.stringMatching(/“out\/adj\.psd”不包含打开“adj\.psd”时未能保留.*图层“标题”的矢量蒙版/),
    );
    const png = await ok(s, 'save_document_as', { path: 'out/adj.png' });
    expect(warningsOf(png)).toContainEqual(expect.stringContaining('图层“标题”的矢量蒙版'));

    // Deleted, the layer's loss no longer matters; undone, it does again.
    await ok(s, 'select_layers', { names: ['标题'] });
    await ok(s, 'delete_layer', {});
    const without = await ok(s, 'save_document_as', { path: 'out/less.psd' });
    expect(warningsOf(without).join()).not.toContain('矢量蒙版');
    await ok(s, 'undo', {});
    const back = await ok(s, 'save_document_as', { path: 'out/again.psd' });
    expect(warningsOf(back)).toContainEqual(expect.stringContaining('图层“标题”的矢量蒙版'));

    // A document made in Atelier has nothing of the kind to say.
    await ok(s, 'create_document', { width: 20, height: 20 });
    const fresh = await ok(s, 'save_document');
    expect(warningsOf(fresh).filter((w) => w.includes('未能保留'))).toEqual([]);
  });

  it('keeps adjustment layers from Photoshop in place, with their settings and masks, and says which are not drawn', async () => {
    const s = newSession();
    const curve = [
      { input: 0, output: 0 },
      { input: 128, output: 160 },
      { input: 255, output: 255 },
    ];
    const maskData = px(20, 20, [255, 255, 255]);
    await put(s, 'adj.psd', {
      children: [
        background(),
        rect('照片', 5, 5, [200, 120, 80]),
        { name: '曲线 1', adjustment: { type: 'curves', rgb: curve } },
        {
          name: '色相 1',
          clipping: true,
          opacity: 0.5,
          mask: { left: 2, top: 2, right: 22, bottom: 22, defaultColor: 0, imageData: maskData },
          adjustment: {
            type: 'hue/saturation',
            master: { a: 0, b: 0, c: 0, d: 0, hue: 30, saturation: -20, lightness: 0 },
          },
        },
        { name: '反相 1', hidden: true, adjustment: { type: 'invert' } },
        vibranceLayer(),
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'adj.psd' });
    const said = warningsOf(opened);
    // Curves and Hue/Saturation are drawn; Vibrance is kept but not drawn, and that is said.
    expect(said).toContainEqual(expect.stringMatching(/调整图层“自然饱和度 1”（自然饱和度）已保留.*不绘制/));
    expect(said.join()).not.toMatch(/曲线 1|色相 1/);
    expect(said.join()).not.toContain('反相 1'); // hidden: it changes nothing shown
    expect(said.join()).not.toContain('已跳过');
    const structure = await ok(s, 'get_layer_structure');
    expect(JSON.stringify(structure)).toContain('"type":"adjustment"');

    // Painted on, it refuses and nothing changes; it can be renamed, moved in the stack and its mask moved.
    await ok(s, 'select_layers', { names: ['曲线 1'] });
    const before = s.editor.snapshot;
    const painted = await call(s, 'fill_selection', { color: '#ff0000' });
    expect(painted).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
    expect(JSON.stringify(painted)).toContain('调整图层');
    expect(s.editor.snapshot).toBe(before);
    for (const [tool, args] of [
      ['add_stroke', { name: '曲线 1', size: 3, color: '#000000' }],
      ['split_pieces', { name: '曲线 1' }],
      ['rasterize_layer', { name: '曲线 1' }],
    ] as const) {
      const r = await call(s, tool, args);
      expect(r, tool).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
      expect(s.editor.snapshot).toBe(before);
    }
    await ok(s, 'rename_layer', { new_name: '提亮' });
    expect(await ok(s, 'get_active_layer_info')).toMatchObject({
      layer: { adjustment: { type: 'curves', drawn: true } },
    });
    await ok(s, 'move_layer', { name: '色相 1', dx: 3, dy: 4 });

    const saved = await ok(s, 'save_document_as', { path: 'out.psd' });
    expect(warningsOf(saved)).toContainEqual(
      expect.stringMatching(/合并图像不含调整图层“自然饱和度 1”（Atelier 不绘制自然饱和度调整）的效果/),
    );
    expect(warningsOf(saved).join()).not.toContain('提亮');
    const png = await ok(s, 'save_document_as', { path: 'out.png' });
    expect(warningsOf(png)).toContainEqual(expect.stringMatching(/导出的 PNG“out\.png”不含调整图层/));

    // Read back by ag-psd and psd-tools: the same adjustments, order, clipping, opacity and mask (moved).
    const back = await agRead(s, 'out.psd');
    expect(agLayer(back, '提亮').adjustment).toEqual({ type: 'curves', rgb: curve });
    const hue = agLayer(back, '色相 1');
    expect(hue.adjustment).toMatchObject({ type: 'hue/saturation', master: { hue: 30, saturation: -20 } });
    expect(hue.clipping).toBe(true);
    expect(Math.round((hue.opacity ?? 1) * 255)).toBe(128);
    expect([hue.mask?.left, hue.mask?.top, hue.mask?.right, hue.mask?.bottom]).toEqual([5, 6, 25, 26]);
    expect(agLayer(back, '反相 1')).toMatchObject({ hidden: true, adjustment: { type: 'invert' } });
    const seen = await probe(s, 'out.psd');
    expect(Object.keys(seen.layers)).toEqual([
      'Background',
      '照片',
      '提亮',
      '色相 1',
      '反相 1',
      '自然饱和度 1',
    ]);
    expect(seen.layers.提亮!.kind).toBe('curves');
    expect(seen.layers['色相 1']!.kind).toBe('huesaturation');
    expect(seen.layers['反相 1']!.kind).toBe('invert');
    expect(seen.layers['自然饱和度 1']!.kind).toBe('vibrance');
  });

  it('keeps a text layer as Photoshop wrote it (style runs) while unedited or moved; an edit keeps its box and alignment and says what goes', async () => {
    const s = newSession();
    const style = { font: { name: 'ArialMT' }, fontSize: 12, fillColor: { r: 0, g: 0, b: 0 } };
    await put(s, 'text.psd', {
      children: [
        background(),
        {
          name: '段落',
          text: {
            text: 'Hello bold',
            transform: [1, 0, 0, 1, 5, 20],
            style,
            styleRuns: [
              { length: 6, style },
              {
                length: 4,
                style: { ...style, fauxBold: true, tracking: 200, strokeFlag: true, kerning: 50 },
              },
            ],
            paragraphStyle: { justification: 'center' },
            shapeType: 'box',
            boxBounds: [0, 0, 50, 20],
          },
        },
        {
          name: '大写',
          text: { text: 'caps', transform: [1, 0, 0, 1, 5, 35], style: { ...style, fontCaps: 2 } },
        },
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'text.psd' });
    const w = warningsOf(opened);
    expect(w).toContainEqual(
      expect.stringMatching(/文字图层“段落”的文字描边在文字未修改（可移动）时原样保存/),
    );
    // Manual kerning is a character setting the text keeps (text-character.ts), as all caps: nothing to say.
    expect(w.join()).not.toMatch(/字偶间距/);
    // All caps is a character setting the text keeps (text-character.ts): nothing to say.
    expect(w.join()).not.toMatch(/大写/);

    // Moved, and another layer edited: both text layers go back as they were, the moved one moved.
    await ok(s, 'move_layer', { name: '段落', dx: 7, dy: 3 });
    const saved = await ok(s, 'save_document');
    expect(warningsOf(saved).join()).not.toMatch(/段落|大写/);
    const back = await agRead(s, 'text.psd');
    const para = agLayer(back, '段落').text!;
    expect(para).toMatchObject({
      text: 'Hello bold',
      shapeType: 'box',
      paragraphStyle: { justification: 'center' },
    });
    expect(para.boxBounds).toEqual([0, 0, 50, 20]);
    expect(para.transform).toEqual([1, 0, 0, 1, 12, 23]);
    expect(para.styleRuns?.map((r) => [r.length, !!r.style.fauxBold, r.style.tracking ?? 0])).toEqual([
      [6, false, 0],
      [4, true, 200],
    ]);
    expect(agLayer(back, '大写').text?.style?.fontCaps).toBe(2);
    expect((await probe(s, 'text.psd')).layers.段落?.kind).toBe('type');

    // Its words changed: each character's style kept (the bold, tracked word replaced by a bold, tracked one),
    // still paragraph text in its box, centred, the kerning kept; the save says what was not kept (the stroke one run
    // had).
    await ok(s, 'set_text_content', { name: '段落', text: 'Hello again' });
    const edited = await ok(s, 'save_document');
    expect(warningsOf(edited)).toContainEqual(
      expect.stringMatching(/文字图层“段落”已修改，其文字描边不再保留/),
    );
    const again = agLayer(await agRead(s, 'text.psd'), '段落').text!;
    expect(again.text).toBe('Hello again');
    expect(
      again.styleRuns?.map((r) => [
        r.length,
        !!r.style.fauxBold,
        r.style.tracking,
        r.style.kerning,
        r.style.autoKerning,
      ]),
    ).toEqual([
      [6, false, 0, 0, true],
      [5, true, 200, 50, false],
    ]);
    expect(again).toMatchObject({
      shapeType: 'box',
      boxBounds: [0, 0, 50, 20],
      paragraphStyle: { justification: 'center' },
    });
    expect(again.transform).toEqual([1, 0, 0, 1, 12, 23]);
    expect(agLayer(await agRead(s, 'text.psd'), '大写').text?.style?.fontCaps).toBe(2);
  });
});

describe('what Atelier does not interpret survives open → edit → save', () => {
  it('keeps Blend If, knockout, advanced blending, colour labels, link groups and mask density/feather', async () => {
    const s = newSession();
    const full = [0, 0, 255, 255];
    await put(s, 'misc.psd', {
      children: [
        background(),
        rect('blendif', 2, 2, [255, 0, 0], {
          blendingRanges: {
            compositeGrayBlendSource: full,
            compositeGraphBlendDestinationRange: [60, 80, 255, 255],
            ranges: [0, 1, 2].map(() => ({ sourceRange: full, destRange: full })),
          },
        }),
        rect('knock', 14, 2, [0, 255, 0], { knockout: true, layerColor: 'red' }),
        rect('链接A', 26, 2, [255, 0, 255], { linkGroup: 1, linkGroupEnabled: true }),
        rect('链接B', 38, 2, [0, 255, 255], { linkGroup: 1, linkGroupEnabled: true }),
        rect('高级混合', 2, 20, [90, 10, 200], {
          blendClippendElements: false,
          blendInteriorElements: true,
          transparencyShapesLayer: false,
          layerMaskAsGlobalMask: true,
          mask: {
            left: 2,
            top: 20,
            right: 12,
            bottom: 30,
            defaultColor: 0,
            imageData: px(10, 10, [255, 255, 255]),
          },
        }),
        rect('蒙版参数', 20, 20, [20, 200, 90], {
          mask: {
            left: 20,
            top: 20,
            right: 25,
            bottom: 30,
            defaultColor: 0,
            imageData: px(5, 10, [255, 255, 255]),
            userMaskDensity: 0.6,
            userMaskFeather: 4,
          },
        }),
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'misc.psd' });
    const w = warningsOf(opened);
    expect(w).toContainEqual(expect.stringMatching(/“blendif”的混合颜色带.*预览中不显示，保存时原样保留/));
    expect(w).toContainEqual(expect.stringMatching(/“knock”的挖空/));
    // Density and feather are drawn (composite/mask-shown.ts): nothing to warn about.
    expect(w.join('\n')).not.toMatch(/蒙版参数/);
    await ok(s, 'set_layer_opacity', { name: 'knock', opacity: 90 });
    await ok(s, 'save_document');

    const p = await probe(s, 'misc.psd');
    // psd-tools reads each Blend If range as a pair of 16-bit words: [60, 80] is 60·256 + 80.
    expect(p.layers.blendif!.blendIf).toEqual([
      [0, 0xffff],
      [60 * 256 + 80, 0xffff],
    ]);
    expect(p.layers.knock).toMatchObject({ KNOCKOUT_SETTING: 1, SHEET_COLOR_SETTING: 1 });
    expect(p.layers.高级混合).toMatchObject({
      BLEND_CLIPPING_ELEMENTS: 0,
      BLEND_INTERIOR_ELEMENTS: 1,
      TRANSPARENCY_SHAPES_LAYER: 0,
      LAYER_MASK_AS_GLOBAL_MASK: 1,
    });
    expect(p.layers.蒙版参数!.mask!.density).toBe(Math.round(0.6 * 255));
    expect(p.layers.蒙版参数!.mask!.feather).toBe(4);
    const back = await agRead(s, 'misc.psd');
    expect(agLayer(back, '链接A')).toMatchObject({ linkGroup: 1, linkGroupEnabled: true });
    expect(agLayer(back, '链接B')).toMatchObject({ linkGroup: 1 });

    // A mask property goes with its mask.
    await ok(s, 'delete_layer_mask', { name: '高级混合' });
    await ok(s, 'save_document');
    const after = await probe(s, 'misc.psd');
    expect(after.layers.高级混合!.LAYER_MASK_AS_GLOBAL_MASK).toBeNull();
    expect(after.layers.高级混合!.BLEND_INTERIOR_ELEMENTS).toBe(1);
  });

  it('keeps XMP, layer comps, copyright, URL and the global light', async () => {
    const s = newSession();
    const xmp = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>';
    await put(s, 'res.psd', {
      imageResources: {
        xmpMetadata: xmp,
        layerComps: { list: [{ id: 1, name: '方案A', capturedInfo: 1 }], lastApplied: 1 },
        copyrighted: true,
        url: 'https://example.com/license',
        globalAngle: 30,
        globalAltitude: 45,
      },
      children: [background(), rect('a', 2, 2, [255, 0, 0])],
    });
    await ok(s, 'open_document', { path: 'res.psd' });
    await ok(s, 'set_layer_opacity', { name: 'a', opacity: 90 });
    await ok(s, 'save_document');
    const r = (await probe(s, 'res.psd')).resources;
    expect(r.XMP_METADATA).toBe(xmp);
    expect(r.LAYER_COMPS).toContain('方案A');
    expect(r.COPYRIGHT_FLAG).toBe('1');
    expect(r.URL).toBe('https://example.com/license');
    expect(r.GLOBAL_ANGLE).toBe('30');
    expect(r.GLOBAL_ALTITUDE).toBe('45');
  });

  it('brings the XMP’s pixel size, resolution and colour mode up to date after a crop and a conversion, as Photoshop', async () => {
    const s = newSession();
    const xmp = [
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description rdf:about=""',
      ` xmp:CreatorTool="Adobe Photoshop 25.0" tiff:ImageWidth="${W}" tiff:ImageLength="${H}"`,
      ' tiff:XResolution="720000/10000" photoshop:ColorMode="3">',
      `<exif:PixelXDimension>${W}</exif:PixelXDimension><exif:PixelYDimension>${H}</exif:PixelYDimension>`,
      '</rdf:Description></rdf:RDF></x:xmpmeta>',
    ].join('');
    await put(s, 'meta.psd', {
      imageResources: { xmpMetadata: xmp },
      children: [background(), rect('a', 2, 2, [255, 0, 0])],
    });
    await ok(s, 'open_document', { path: 'meta.psd' });
    await ok(s, 'crop_document', { left: 1, top: 1, right: 21, bottom: 11 });
    await ok(s, 'resize_image', { width: 20, height: 10, resolution: 300 });
    await ok(s, 'convert_to_cmyk');
    await ok(s, 'save_document');
    const r = (await probe(s, 'meta.psd')).resources;
    expect(r.XMP_METADATA).toContain('tiff:ImageWidth="20" tiff:ImageLength="10"');
    expect(r.XMP_METADATA).toContain('tiff:XResolution="3000000/10000"');
    expect(r.XMP_METADATA).toContain('photoshop:ColorMode="4"');
    expect(r.XMP_METADATA).toContain('<exif:PixelXDimension>20</exif:PixelXDimension>');
    expect(r.XMP_METADATA).toContain('<exif:PixelYDimension>10</exif:PixelYDimension>');
    // The rest of the packet as it was read.
    expect(r.XMP_METADATA).toContain('xmp:CreatorTool="Adobe Photoshop 25.0"');
  });

  it('keeps switched-off and unsupported effects, a shadow’s layer-knocks-out and its global light', async () => {
    const s = newSession();
    const shadow = {
      enabled: true,
      color: { r: 0, g: 0, b: 0 },
      opacity: 0.5,
      angle: 60,
      useGlobalLight: true,
      distance: { units: 'Pixels' as const, value: 3 },
      size: { units: 'Pixels' as const, value: 2 },
      blendMode: 'multiply' as const,
      layerConceals: false,
    };
    await put(s, 'fx.psd', {
      imageResources: { globalAngle: 90 },
      children: [
        background(),
        rect('关闭', 2, 2, [50, 50, 50], {
          effects: {
            dropShadow: [{ ...shadow, enabled: false }],
            innerShadow: [{ ...shadow, enabled: false }],
          },
        }),
        rect('投影', 20, 2, [200, 50, 50], {
          effects: {
            dropShadow: [shadow],
            bevel: { enabled: true, style: 'inner bevel', size: { units: 'Pixels', value: 3 } },
          },
        }),
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'fx.psd' });
    expect(warningsOf(opened)).toContainEqual(
      expect.stringMatching(/“投影”的图层样式（斜面和浮雕）预览不显示，保存时原样保留/),
    );
    await ok(s, 'set_layer_opacity', { name: '关闭', opacity: 90 });
    await ok(s, 'save_document');
    const p = await probe(s, 'fx.psd');
    // Photoshop's class ids: DrSh drop shadow, IrSh inner shadow, ebbl bevel and emboss.
    expect(p.layers.关闭!.effects).toEqual(
      expect.arrayContaining([
        ['DrSh', false],
        ['IrSh', false],
      ]),
    );
    expect(p.layers.投影!.effects).toEqual(
      expect.arrayContaining([
        ['DrSh', true],
        ['ebbl', true],
      ]),
    );
    let back = agLayer(await agRead(s, 'fx.psd'), '投影');
    expect(back.effects?.dropShadow?.[0]).toMatchObject({ layerConceals: false, useGlobalLight: true });

    // Edited, the shadow keeps the file's knock-out choice; its own angle unlinks it from the global light.
    await ok(s, 'add_drop_shadow', { name: '投影', distance: 4, size: 2, opacity: 50, angle: 45 });
    await ok(s, 'save_document');
    back = agLayer(await agRead(s, 'fx.psd'), '投影');
    expect(back.effects?.dropShadow?.[0]).toMatchObject({
      layerConceals: false,
      useGlobalLight: false,
      angle: 45,
    });
    expect(back.effects?.bevel?.enabled).toBe(true);
  });

  it('says once, when the file is placed, what its preview does not draw, and nothing of what an opening would not keep', async () => {
    const s = newSession();
    await put(s, 'fx.psd', {
      children: [
        background(),
        rect('浮雕', 20, 2, [200, 50, 50], {
          effects: { bevel: { enabled: true, style: 'inner bevel', size: { units: 'Pixels', value: 3 } } },
        }),
        // A shape layer written without its pixels: opened, it is drawn from its path and kept as pixels (a loss).
        {
          name: '形状',
          vectorFill: { type: 'color', color: { r: 0, g: 0, b: 255 } },
          vectorMask: {
            paths: [
              {
                open: false,
                fillRule: 'even-odd',
                knots: [
                  [2, 20],
                  [12, 20],
                  [12, 30],
                  [2, 30],
                ].map(([x, y]) => ({ linked: false, points: [x!, y!, x!, y!, x!, y!] })),
              },
            ],
          },
        },
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'fx.psd' });
    const onOpen = warningsOf(opened);
    expect(onOpen).toContainEqual(expect.stringMatching(/“浮雕”的图层样式（斜面和浮雕）预览不显示/));
    expect(onOpen).toContainEqual(expect.stringMatching(/形状图层“形状”已按其路径和颜色绘制为像素图层/));
    await ok(s, 'create_document', { width: 100, height: 100, name: '版面' });
    const placed = await ok(s, 'place_image', { path: 'fx.psd', size: 'pixels' });
    const said = warningsOf(placed);
    // One warning, about the smart object's preview: the effect not drawn, and no word of layers converted or kept.
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^置入的“fx\.psd”中有 Atelier 不能照 Photoshop 的样子绘制的内容.*原样嵌入/);
    expect(said[0]).toContain('“浮雕”的图层样式（斜面和浮雕）预览不显示');
    expect(said[0]).not.toMatch(/形状图层/);
    // A file with nothing the preview misses is placed without a word.
    await put(s, 'plain.psd', { children: [background(), rect('块', 2, 2, [0, 0, 255])] });
    expect(warningsOf(await ok(s, 'place_image', { path: 'plain.psd', size: 'pixels' }))).toEqual([]);
  });

  it('writes a solid colour fill layer as one, and an unedited smart object’s embedded PSD as it was', async () => {
    const s = newSession();
    const inner = writePsdBuffer({
      width: 10,
      height: 10,
      imageData: px(10, 10, [255, 0, 0]),
      children: [rect('inner', 0, 0, [255, 0, 0])],
    });
    const fileId = '20953ddb-9391-11ec-b4f1-c15674f50bc4';
    await put(s, 'mixed.psd', {
      linkedFiles: [
        { id: fileId, name: 'inner.psd', type: '8BPS', creator: '8BIM', data: new Uint8Array(inner) },
      ],
      children: [
        background(),
        {
          name: '纯色',
          opacity: 0.5,
          vectorFill: { type: 'color', color: { r: 0, g: 128, b: 255 } },
          left: 0,
          top: 0,
          right: W,
          bottom: H,
          imageData: px(W, H, [0, 128, 255]),
        },
        {
          name: '智能对象',
          left: 20,
          top: 10,
          right: 40,
          bottom: 30,
          imageData: px(20, 20, [255, 0, 0]),
          placedLayer: {
            id: fileId,
            placed: fileId,
            type: 'raster',
            transform: [20, 10, 40, 10, 40, 30, 20, 30],
            width: 10,
            height: 10,
          },
        },
      ],
    });
    await ok(s, 'open_document', { path: 'mixed.psd' });
    await ok(s, 'set_layer_opacity', { name: '纯色', opacity: 40 });
    await ok(s, 'move_layer', { name: '智能对象', dx: 5, dy: 0 });
    const saved = await ok(s, 'save_document');
    expect(warningsOf(saved)).toEqual([]);
    const p = await probe(s, 'mixed.psd');
    expect(p.layers.纯色!.kind).toBe('solidcolorfill');
    expect(p.layers.纯色!.fill).toEqual([0, 128, 255]);
    expect(p.layers.智能对象!.kind).toBe('smartobject');
    expect(p.layers.智能对象!.smart).toEqual({ filetype: '8bps', size: inner.byteLength });
    const back = await readPsd(await s.workspace.read('mixed.psd'), {
      skipLayerImageData: true,
      skipCompositeImageData: true,
    });
    expect(Buffer.from(back.linkedFiles![0]!.data!).equals(Buffer.from(inner))).toBe(true);
    expect(agLayer(back, '智能对象').placedLayer!.transform).toEqual([25, 10, 45, 10, 45, 30, 25, 30]);

    // What the session's journal snapshots and a recovery restores carries it all too: the embedded file's bytes
    // are the file's own (a copy, not a view into the whole PSD read), the fill layer stays one.
    const layers = [...s.editor.snapshot.docs[0]!.history.states.at(-1)!.layers.values()];
    const embedded = layers.find((l) => l.name === '智能对象') as unknown as {
      embedded: { file: { data: Uint8Array } };
    };
    expect(embedded.embedded.file.data.buffer.byteLength).toBe(inner.byteLength);
    const encoded = encodeState(s.state, new BufferNames('t'));
    const files = new Map(encoded.fresh.map((f) => [f.name, Uint8Array.from(f.bytes)]));
    const restored = newSession(s.workspace.root);
    restored.restore(decodeState(encoded.json, (ref) => files.get(ref.name)!) as Session['state']);
    await ok(restored, 'save_document_as', { path: 'again.psd' });
    const again = await probe(restored, 'again.psd');
    expect(again.layers.纯色!.kind).toBe('solidcolorfill');
    expect(again.layers.智能对象!.smart).toEqual({ filetype: '8bps', size: inner.byteLength });
  });
});

describe('a smart object whose content changed', () => {
  it('is embedded as PNG, with a warning that the original file is not kept', async () => {
    const inner = writePsdBuffer({ width: 10, height: 10, imageData: px(10, 10, [255, 0, 0]) });
    const fileId = 'b7b1c0de-0000-4000-8000-000000000001';
    const bytes = writePsdBuffer({
      width: W,
      height: H,
      imageData: px(W, H, [255, 255, 255]),
      linkedFiles: [{ id: fileId, name: 'inner.psd', type: '8BPS', data: new Uint8Array(inner) }],
      children: [
        background(),
        {
          name: '智能对象',
          left: 0,
          top: 0,
          right: 10,
          bottom: 10,
          imageData: px(10, 10, [255, 0, 0]),
          placedLayer: {
            id: fileId,
            placed: fileId,
            type: 'raster',
            transform: [0, 0, 10, 0, 10, 10, 0, 10],
            width: 10,
            height: 10,
          },
        },
      ],
    });
    const { state } = await decodePsd(Buffer.from(bytes));
    const smart = [...state.layers.values()].find((l) => l.kind === 'smart')!;
    if (smart.kind !== 'smart') throw new Error('not a smart object');
    // What an edit of the content does: a new source raster.
    const source = { ...smart.source, data: smart.source.data.slice() };
    const layers = new Map(state.layers).set(smart.id, { ...smart, source });
    const composite = { x: 0, y: 0, w: W, h: H, data: new Uint8ClampedArray(W * H * 4) };
    const { buffer, warnings } = await encodePsd({ ...state, layers }, composite);
    expect(warnings).toContainEqual(
      expect.stringMatching(/智能对象“智能对象”的内容已更改.*“inner\.psd”不再保留/),
    );
    const back = readPsd(buffer, { skipLayerImageData: true, skipCompositeImageData: true });
    expect(back.linkedFiles![0]!.name).toMatch(/\.png$/);
  });
});

describe('artboards', () => {
  it('says an artboard is drawn as a plain group, its layers not kept inside it, and saves it as an artboard', async () => {
    // Photoshop shows an artboard's layers inside its rectangle only: as a group they reach the whole canvas
    // (psd2svg's artboard fixture, saved by Photoshop, read 112 levels off with nothing said).
    const s = newSession();
    const rect = { top: 0, left: 0, bottom: H, right: W / 2 };
    await put(s, 'boards.psd', {
      children: [
        background(),
        {
          name: '画板 1',
          artboard: { rect },
          children: [{ name: '红', left: 0, top: 0, right: W, bottom: H, imageData: px(W, H, [255, 0, 0]) }],
        },
        {
          name: '组',
          children: [{ name: '蓝', left: 0, top: 0, right: 4, bottom: 4, imageData: px(4, 4, [0, 0, 255]) }],
        },
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'boards.psd' });
    expect(warningsOf(opened)).toContainEqual(
      expect.stringMatching(/画板“画板 1”按普通图层组显示：.*保存 PSD 时画板原样保留/),
    );
    expect(warningsOf(opened).join()).not.toMatch(/画板“组”/);
    await ok(s, 'save_document_as', { path: 'out.psd' });
    const back = await agRead(s, 'out.psd');
    expect(agLayer(back, '画板 1').artboard?.rect).toEqual(rect);
    expect(agLayer(back, '组').artboard).toBeUndefined();
  });
});

describe('effects the preview does not draw, beside ones it does', () => {
  it('keeps a gradient stroke beside a drop shadow through saves, unedited and edited', async () => {
    // The stroke is not drawn (said at open, "kept on save"), the shadow is: the save wrote the engine's shadow
    // and took the file's first enabled stroke for one the engine had removed, so the gradient stroke was lost.
    const s = newSession();
    const gradientStroke = {
      enabled: true,
      present: true,
      showInDialog: true,
      size: { units: 'Pixels' as const, value: 3 },
      position: 'outside' as const,
      fillType: 'gradient' as const,
      blendMode: 'normal' as const,
      opacity: 1,
      gradient: {
        name: '红到蓝',
        type: 'solid' as const,
        smoothness: 1,
        colorStops: [
          { color: { r: 255, g: 0, b: 0 }, location: 0, midpoint: 50 },
          { color: { r: 0, g: 0, b: 255 }, location: 1, midpoint: 50 },
        ],
        opacityStops: [
          { opacity: 1, location: 0, midpoint: 50 },
          { opacity: 1, location: 1, midpoint: 50 },
        ],
      },
      type: 'linear' as const,
      angle: 90,
      scale: 1,
      align: true,
      dither: false,
      reverse: false,
    };
    const shadow = {
      enabled: true,
      present: true,
      showInDialog: true,
      blendMode: 'multiply' as const,
      color: { r: 0, g: 0, b: 0 },
      opacity: 0.5,
      angle: 120,
      distance: { units: 'Pixels' as const, value: 3 },
      size: { units: 'Pixels' as const, value: 3 },
      choke: { units: 'Pixels' as const, value: 0 },
    };
    await put(s, 'styled.psd', {
      children: [
        background(),
        {
          name: '图标',
          left: 10,
          top: 10,
          right: 30,
          bottom: 30,
          imageData: px(20, 20, [0, 200, 0]),
          effects: { stroke: [gradientStroke], dropShadow: [shadow] },
        },
      ],
    });
    const opened = await ok(s, 'open_document', { path: 'styled.psd' });
    expect(warningsOf(opened)).toContainEqual(expect.stringMatching(/图层“图标”的描边使用渐变或图案填充/));
    const strokeOf = async (file: string) => agLayer(await agRead(s, file), '图标').effects;
    await ok(s, 'save_document_as', { path: 'unedited.psd' });
    expect((await strokeOf('unedited.psd'))?.stroke?.map((e) => e.fillType)).toEqual(['gradient']);
    expect((await strokeOf('unedited.psd'))?.dropShadow).toHaveLength(1);
    await ok(s, 'move_layer', { name: '图标', dx: 2, dy: 0 });
    await ok(s, 'save_document_as', { path: 'moved.psd' });
    expect((await strokeOf('moved.psd'))?.stroke?.map((e) => e.fillType)).toEqual(['gradient']);
  });

  it('keeps the patterns a pattern overlay names, through a save and the session kept on disk', async () => {
    // Saved without them, Photoshop would find the overlay naming a pattern the file no longer holds.
    const s = newSession();
    const file = readFileSync(
      new URL('../fixtures/photoshop-effects/pattern-overlay-1.psd', import.meta.url),
    );
    await s.workspace.writeAtomic('pattern.psd', file);
    const opened = await ok(s, 'open_document', { path: 'pattern.psd' });
    expect(warningsOf(opened)).toContainEqual(expect.stringMatching(/图案叠加.*保存时原样保留/));
    await ok(s, 'move_layer', { name: 'Star 1', dx: 3, dy: 0 });
    await ok(s, 'save_document_as', { path: 'saved.psd' });
    const patterns = (psd: AgPsd) =>
      (psd.patterns ?? []).map((p) => ({ id: p.id, name: p.name, w: p.bounds.w }));
    const original = readPsd(file, { skipLayerImageData: true, skipCompositeImageData: true });
    const saved = await agRead(s, 'saved.psd');
    expect(patterns(saved)).toEqual(patterns(original));
    expect(patterns(saved)).toHaveLength(1);
    expect(Buffer.from(saved.patterns![0]!.data).equals(Buffer.from(original.patterns![0]!.data))).toBe(true);
    expect(agLayer(saved, 'Star 1').effects?.patternOverlay?.pattern?.id).toBe(original.patterns![0]!.id);
    // What the session's journal snapshots and a recovery restores carries them too.
    const encoded = encodeState(s.state, new BufferNames('t'));
    const files = new Map(encoded.fresh.map((f) => [f.name, Uint8Array.from(f.bytes)]));
    const restored = newSession(s.workspace.root);
    restored.restore(decodeState(encoded.json, (ref) => files.get(ref.name)!) as Session['state']);
    await ok(restored, 'save_document_as', { path: 'again.psd' });
    expect(patterns(await agRead(restored, 'again.psd'))).toEqual(patterns(original));
  });

  it('saves a file whose pattern stroke is linked with its layer, which ag-psd could not write', async () => {
    // Photoshop's blend-mode file: its Background's style holds a switched-off pattern stroke with "Link with
    // Layer" on. Every save failed ("Invalid integer value: true, key: Lnkd").
    const s = newSession();
    const file = readFileSync(new URL('../fixtures/photoshop-effects/effect-multiply.psd', import.meta.url));
    await s.workspace.writeAtomic('linked.psd', file);
    await ok(s, 'open_document', { path: 'linked.psd' });
    const saved = await ok(s, 'save_document_as', { path: 'saved.psd' });
    expect(warningsOf(saved)).toContainEqual(expect.stringMatching(/图案描边的“与图层链接”设置无法写入/));
    const strokes = (psd: AgPsd) =>
      agLayer(psd, 'Background').effects?.stroke?.map((e) => [e.enabled, e.fillType, e.pattern?.id]);
    const original = readPsd(file, { skipLayerImageData: true, skipCompositeImageData: true });
    expect(strokes(await agRead(s, 'saved.psd'))).toEqual(strokes(original));
    expect(agLayer(await agRead(s, 'saved.psd'), 'Background').effects?.gradientOverlay).toHaveLength(1);
  });

  it('saves a Photoshop 2022+ gradient map with its interpolation method, byte for byte', async () => {
    // ag-psd read every method as Perceptual and could not write one: every save of such a file failed.
    const s = newSession();
    const file = readFileSync(new URL('../fixtures/psd-tools/gradient-map-v3-linear.psd', import.meta.url));
    await s.workspace.writeAtomic('map.psd', file);
    await ok(s, 'open_document', { path: 'map.psd' });
    await ok(s, 'save_document_as', { path: 'saved.psd' });
    const block = (bytes: Uint8Array) => layerInfoBlock(bytes, 'grdm');
    const saved = await s.workspace.read('saved.psd');
    // Version 3, then the reverse and dither bytes, then the method's four letters.
    expect(block(saved).subarray(4, 8).toString('latin1')).toBe('Lnr ');
    expect(block(saved).equals(block(file))).toBe(true);
    const map = (await agRead(s, 'saved.psd')).children!.find((l) => l.adjustment)!;
    expect(map.adjustment).toMatchObject({ type: 'gradient map', method: 'linear' });
  });

  it("writes adjustment layers back with the file's own blocks, which psd-tools reads", async () => {
    // ag-psd re-encoded them: Levels with 63 records and no 'Lvls' (psd-tools refused the file at the 30th),
    // Brightness/Contrast's legacy block filled where Photoshop leaves it empty.
    const dir = new URL('../fixtures/photoshop-adjustments/', import.meta.url);
    for (const [name, key] of [
      ['levels-rgb-1.psd', 'levl'],
      ['brightnesscontrast-b+150-c0.psd', 'brit'],
      ['curves-rgb-r.psd', 'curv'],
      ['colorbalance-s+50_0_-50-m0_0_0-h0_0_0.psd', 'blnc'],
      ['huesaturation-colorize.psd', 'hue2'],
    ] as const) {
      const s = newSession();
      const file = readFileSync(new URL(name, dir));
      await s.workspace.writeAtomic('in.psd', file);
      await ok(s, 'open_document', { path: 'in.psd' });
      await ok(s, 'move_layer', { name: 'Ellipse 1', dx: 1, dy: 0 });
      await ok(s, 'save_document_as', { path: 'saved.psd' });
      const saved = await s.workspace.read('saved.psd');
      expect(layerInfoBlock(saved, key).equals(layerInfoBlock(file, key)), name).toBe(true);
      expect(Object.keys((await probe(s, 'saved.psd')).layers), name).toHaveLength(3);
    }
  });
});
