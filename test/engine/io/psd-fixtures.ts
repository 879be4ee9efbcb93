/** Documents and helpers the PSD tests share: a rich document using every construct the codec maps. */
import type {
  BlendMode,
  DocState,
  GroupLayer,
  Layer,
  LayerMask,
  Locks,
  Raster,
  RGB,
} from '../../../src/engine/model.js';
import { BLEND_MODES } from '../../../src/engine/model.js';

export const W = 120;
export const H = 90;

export const NO_LOCKS: Locks = { all: false, pixels: false, position: false, transparency: false };

/** Every blend mode a pixel layer can have ('pass through' is for groups only). */
export const LAYER_BLENDS = BLEND_MODES.filter((m) => m !== 'pass through');

/** A w×h raster at x,y: a colour ramp with alpha `alpha` (varied a little per pixel so pixels are distinct). */
export function ramp(x: number, y: number, w: number, h: number, color: RGB, alpha = 160): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const k = (j * w + i) * 4;
      data[k] = (color.r + i * 7) % 256;
      data[k + 1] = (color.g + j * 11) % 256;
      data[k + 2] = color.b;
      data[k + 3] = Math.max(1, alpha - ((i + j) % 5) * 10);
    }
  }
  return { x, y, w, h, data };
}

export function gradientMask(
  x: number,
  y: number,
  w: number,
  h: number,
  outside: 0 | 255,
  enabled = true,
): LayerMask {
  const data = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) data[i] = Math.round(((i % w) * 255) / Math.max(1, w - 1));
  return { x, y, w, h, data, outside, enabled };
}

/** The opaque composite the tests pass in (the real compositor lives in src/engine/composite/). */
export function testComposite(w = W, h = H): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const k = (j * w + i) * 4;
      data[k] = (i * 2) % 256;
      data[k + 1] = (j * 3) % 256;
      data[k + 2] = (i + j) % 256;
      data[k + 3] = 255;
    }
  }
  return { x: 0, y: 0, w, h, data };
}

export class DocBuilder {
  readonly layers = new Map<number, Layer>();
  private next = 1;

  add<L extends Layer>(make: (id: number) => L): L {
    const layer = make(this.next++);
    this.layers.set(layer.id, layer);
    return layer;
  }

  pixel(name: string, raster: Raster, extra: Partial<Omit<Layer, 'kind' | 'id'>> = {}): Layer {
    return this.add((id) => ({
      id,
      kind: 'pixel' as const,
      name,
      visible: true,
      opacity: 1,
      blend: 'normal' as BlendMode,
      clipped: false,
      locks: NO_LOCKS,
      raster,
      ...(extra as object),
    }));
  }

  /** Children are created by `build` after the group's own id, so ids follow the file order (pre-order). */
  group(
    name: string,
    build: () => Layer[],
    extra: Partial<Omit<GroupLayer, 'kind' | 'id' | 'children'>> = {},
  ): Layer {
    const id = this.next++;
    const children = build().map((l) => l.id);
    const g: GroupLayer = {
      id,
      kind: 'group',
      name,
      visible: true,
      opacity: 1,
      blend: 'pass through',
      clipped: false,
      locks: NO_LOCKS,
      children,
      open: true,
      ...extra,
    };
    this.layers.set(id, g);
    return g;
  }

  state(root: Layer[], extra: Partial<DocState> = {}): DocState {
    const top = root[root.length - 1]?.id ?? null;
    return {
      width: W,
      height: H,
      dpi: 150,
      mode: 'rgb',
      layers: this.layers,
      root: root.map((l) => l.id),
      active: top,
      selected: top === null ? [] : [top],
      selection: null,
      guides: [],
      foreground: { r: 0, g: 0, b: 0 },
      nextId: this.next,
      ...extra,
    };
  }
}

/** The full test document: nested groups, Chinese names, every blend mode, masks, locks, text, smart object. */
export function buildRichDoc(): DocState {
  const b = new DocBuilder();
  const bg = b.add((id) => ({
    id,
    kind: 'fill' as const,
    name: '背景',
    visible: true,
    opacity: 1,
    blend: 'normal' as BlendMode,
    clipped: false,
    locks: NO_LOCKS,
    color: { r: 255, g: 255, b: 255 },
    background: true,
  }));
  const outer = b.group(
    '外层组',
    () => [
      b.group(
        '混合模式',
        () =>
          LAYER_BLENDS.map((mode, i) =>
            b.pixel(
              `模式 ${mode}`,
              ramp((i % 9) * 13, Math.floor(i / 9) * 13, 12, 12, { r: 40 * i, g: 200, b: 90 }),
              {
                blend: mode,
                opacity: 0.8,
              },
            ),
          ),
        { blend: 'normal', open: false },
      ),
      b.pixel('隐藏图层', ramp(5, 50, 20, 10, { r: 255, g: 0, b: 0 }), { visible: false }),
      b.pixel('半透明 37%', ramp(30, 50, 20, 10, { r: 0, g: 0, b: 255 }), { opacity: 0.37 }),
      b.pixel('剪贴基底', ramp(60, 45, 30, 20, { r: 10, g: 120, b: 10 }, 255)),
      b.pixel('剪贴内容', ramp(55, 40, 40, 30, { r: 200, g: 10, b: 200 }), {
        clipped: true,
        blend: 'multiply',
      }),
      b.pixel('有蒙版', ramp(5, 65, 30, 20, { r: 250, g: 200, b: 0 }, 255), {
        mask: gradientMask(8, 66, 20, 12, 0),
      }),
      b.pixel('全显蒙版(停用)', ramp(40, 70, 10, 10, { r: 1, g: 2, b: 3 }, 255), {
        mask: { x: 0, y: 0, w: 0, h: 0, data: new Uint8Array(0), outside: 255, enabled: false },
      }),
      b.pixel('全隐蒙版', ramp(52, 70, 10, 10, { r: 9, g: 8, b: 7 }, 255), {
        mask: { x: 0, y: 0, w: 0, h: 0, data: new Uint8Array(0), outside: 0, enabled: true },
      }),
      b.pixel('锁定全部', ramp(64, 70, 8, 8, { r: 90, g: 90, b: 90 }), {
        locks: { all: true, pixels: true, position: true, transparency: true },
      }),
      b.pixel('锁定位置', ramp(74, 70, 8, 8, { r: 90, g: 90, b: 90 }), {
        locks: { ...NO_LOCKS, position: true },
      }),
      b.pixel('锁定像素和透明', ramp(84, 70, 8, 8, { r: 90, g: 90, b: 90 }), {
        locks: { ...NO_LOCKS, pixels: true, transparency: true },
      }),
      b.group('空组', () => [], { visible: false, open: false }),
    ],
    {
      opacity: 0.9,
      mask: gradientMask(0, 0, W, H, 255),
      locks: { ...NO_LOCKS, position: true },
    },
  );
  const text = b.add((id) => ({
    id,
    kind: 'text' as const,
    name: '标题文字',
    visible: true,
    opacity: 1,
    blend: 'normal' as BlendMode,
    clipped: false,
    locks: NO_LOCKS,
    text: {
      content: '你好，世界\n第二行 Hello',
      x: 10,
      y: 4,
      size: 24,
      color: { r: 200, g: 30, b: 40 },
      // The bundled font by the PostScript name a PSD carries, so the round trip gives it back as it is.
      font: 'NotoSansHans-Regular',
      renderedFont: 'NotoSansHans-Regular',
    },
    raster: ramp(10, 6, 60, 28, { r: 200, g: 30, b: 40 }, 255),
  }));
  const source = ramp(0, 0, 16, 10, { r: 0, g: 100, b: 250 }, 255);
  const smart = b.add((id) => ({
    id,
    kind: 'smart' as const,
    name: '智能对象 印花',
    visible: true,
    opacity: 0.9,
    blend: 'normal' as BlendMode,
    clipped: false,
    locks: NO_LOCKS,
    source,
    transform: { cx: 90.5, cy: 20, scaleX: 1.5, scaleY: 0.5, angle: 30 },
    raster: ramp(76, 8, 30, 25, { r: 0, g: 100, b: 250 }),
  }));
  const styled = b.pixel('图层样式', ramp(95, 40, 20, 20, { r: 250, g: 250, b: 0 }, 255), {
    effects: {
      stroke: {
        size: 3,
        position: 'outside',
        color: { r: 0, g: 128, b: 255 },
        opacity: 0.75,
        blend: 'normal',
      },
      dropShadow: {
        distance: 6,
        angle: 120,
        size: 8,
        spread: 10,
        opacity: 0.6,
        color: { r: 0, g: 0, b: 0 },
        blend: 'multiply',
      },
    },
  });
  const empty = b.pixel('空图层', { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) });
  const outside = b.pixel('超出画布', ramp(-10, -5, 30, 20, { r: 100, g: 50, b: 25 }));
  return b.state([bg, outer, text, smart, styled, empty, outside], {
    guides: [
      { direction: 'horizontal', position: 10.5 },
      { direction: 'vertical', position: 60 },
    ],
  });
}

/**
 * A layer's own properties, without its id and what the file carries for the writer (psd-carry.ts, a smart
 * object's embedded file, a text layer's own record), which are not the document.
 */
export function documentFields(l: Layer): Record<string, unknown> {
  const {
    id: _id,
    psd: _psd,
    embedded: _embedded,
    psdText: _text,
    ...rest
  } = l as Layer & Record<string, unknown>;
  return { ...rest };
}

/** A comparable view of a state: the tree with every property, rasters as hex digests. */
export function treeOf(state: DocState): unknown {
  const hex = (d: ArrayLike<number>) =>
    Buffer.from(Uint8Array.from(d as ArrayLike<number>)).toString('base64');
  const node = (id: number): unknown => {
    const l = state.layers.get(id)!;
    const out = documentFields(l);
    for (const key of ['raster', 'source', 'mask'] as const) {
      const r = out[key] as (Raster & { data: ArrayLike<number> }) | undefined;
      if (r) {
        const empty = r.w === 0 || r.h === 0;
        out[key] = { ...r, ...(empty ? { x: 0, y: 0 } : {}), data: hex(r.data) };
      }
    }
    if (l.kind === 'group') out.children = l.children.map(node);
    return out;
  };
  return {
    width: state.width,
    height: state.height,
    dpi: state.dpi,
    mode: state.mode,
    guides: state.guides,
    root: state.root.map(node),
  };
}
