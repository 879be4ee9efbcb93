/**
 * What a PSD holds that the engine neither shows nor edits, carried from the file read to the file written so
 * that open → edit → save does not drop it: layer properties (Blend If, knockout, advanced blending, colour
 * labels, link groups, layer comp settings, artboards), the whole layer style, mask density and feather, and
 * document resources (XMP, layer comps, copyright, global light, print settings).
 *
 * Everything is kept as ag-psd reads it and handed back to ag-psd as it is, so its own writer encodes it. What
 * an edit can make wrong is decided here: a mask property goes with the mask, a layer style read from the
 * file is written as read only while the engine's effects are the ones read from it.
 */
import type { LayerEffectsInfo as AgEffects, Layer as AgLayer, Psd as AgPsd } from 'ag-psd';
import type { DocState, Effects, Layer, LayerMask, PsdLayerData } from '../model.js';
import type { CarriedResource } from './psd-channels.js';

/** ag-psd layer fields written back unchanged: none changes with the edits the engine makes. */
const CARRIED_LAYER_FIELDS = [
  'blendingRanges',
  'knockout',
  'blendClippendElements',
  'blendInteriorElements',
  'transparencyShapesLayer',
  'layerMaskAsGlobalMask',
  'channelBlendingRestrictions',
  'layerColor',
  'linkGroup',
  'linkGroupEnabled',
  'comps',
  'artboard',
] as const satisfies readonly (keyof AgLayer)[];

/** The values that mean "not set", which ag-psd writes the same (or Photoshop assumes) when left out. */
const LAYER_DEFAULTS: Partial<Record<(typeof CARRIED_LAYER_FIELDS)[number], unknown>> = {
  knockout: false,
  blendClippendElements: true,
  blendInteriorElements: false,
  transparencyShapesLayer: true,
  layerMaskAsGlobalMask: false,
  layerColor: 'none',
  linkGroup: 0,
  linkGroupEnabled: true,
};

/**
 * Image resources written back unchanged. Left out: what ag-psd or the writer derive (resolution, guides,
 * layer state and selection, link groups, version, thumbnail, ICC flags), and what names layers by index or
 * id or holds alpha channels the document does not keep (slices, alpha names, timeline, count notes, paths).
 */
const CARRIED_RESOURCES = [
  'xmpMetadata',
  'layerComps',
  'copyrighted',
  'url',
  'urlsList',
  'globalAngle',
  'globalAltitude',
  'printInformation',
  'printScale',
  'printFlags',
  'pixelAspectRatio',
  'backgroundColor',
  'captionDigest',
  'onionSkins',
] as const satisfies readonly (keyof NonNullable<AgPsd['imageResources']>)[];

type Resources = NonNullable<AgPsd['imageResources']>;

/** The `psdDocument` of a state read from `psd`, or nothing when it holds none of it. */
export function psdDocumentOf(
  psd: AgPsd,
  channelResources: readonly CarriedResource[] = [],
): Pick<DocState, 'psdDocument'> {
  const res = psd.imageResources ?? {};
  const imageResources: Record<string, unknown> = {};
  for (const key of CARRIED_RESOURCES) if (res[key] !== undefined) imageResources[key] = res[key];
  // The display units of the resolution (the numbers are the document's dpi) and the grid spacing.
  if (res.resolutionInfo) imageResources.resolutionInfo = res.resolutionInfo;
  const grid = res.gridAndGuidesInformation?.grid;
  if (grid) imageResources.gridAndGuidesInformation = { grid };
  const out: Record<string, unknown> = {};
  if (Object.keys(imageResources).length > 0) out.imageResources = imageResources;
  if (psd.artboards) out.artboards = psd.artboards;
  // The patterns the file's pattern overlays, strokes and fill layers name: written back, or they would name
  // patterns the file no longer holds.
  if (psd.patterns?.length) out.patterns = psd.patterns;
  // The resources that name the spot and alpha channels by identifier (psd-channels.ts): written back with them.
  if (channelResources.length > 0) out.channelResources = channelResources;
  return Object.keys(out).length > 0 ? { psdDocument: out } : {};
}

/** The carried image resources, under what the writer sets itself. */
export function carriedResources(state: DocState): Resources {
  const out = { ...((state.psdDocument?.imageResources as Resources | undefined) ?? {}) };
  if (typeof out.xmpMetadata === 'string') out.xmpMetadata = xmpOfState(out.xmpMetadata, state);
  return out;
}

/**
 * The file's XMP with what it says of the image brought up to date — pixel size, resolution and colour mode —, as
 * Photoshop rewrites them at every save: a crop, a new image size or a conversion to CMYK would otherwise leave
 * the file describing the picture it was opened as. Everything else in the packet is kept as read.
 */
export function xmpOfState(xmp: string, state: DocState): string {
  const dpi = `${Math.round(state.dpi * 10000)}/10000`;
  const values: Record<string, string> = {
    'tiff:ImageWidth': String(state.width),
    'tiff:ImageLength': String(state.height),
    'exif:PixelXDimension': String(state.width),
    'exif:PixelYDimension': String(state.height),
    'tiff:XResolution': dpi,
    'tiff:YResolution': dpi,
    'tiff:ResolutionUnit': '2',
    'photoshop:ColorMode': state.mode === 'cmyk' ? '4' : '3',
  };
  let out = xmp;
  for (const [key, value] of Object.entries(values)) {
    // As an attribute (tiff:ImageWidth="4961") or as an element (<tiff:ImageWidth>4961</tiff:ImageWidth>).
    out = out
      .replace(new RegExp(`(\\s${key}=")[^"]*(")`, 'g'), `$1${value}$2`)
      .replace(new RegExp(`(<${key}>)[^<]*(</${key}>)`, 'g'), `$1${value}$2`);
  }
  return out;
}

/** The carried resources that name the document's spot and alpha channels (psd-channels.ts). */
export function channelResourcesOf(state: DocState): readonly CarriedResource[] {
  return (state.psdDocument?.channelResources as CarriedResource[] | undefined) ?? [];
}

/** The carried document fields other than image resources (artboards), for the ag-psd document. */
export function carriedDocumentFields(state: DocState): Partial<AgPsd> {
  const artboards = state.psdDocument?.artboards as AgPsd['artboards'];
  const patterns = state.psdDocument?.patterns as AgPsd['patterns'];
  return { ...(artboards ? { artboards } : {}), ...(patterns ? { patterns } : {}) };
}

/** The document's global light angle, as the file stated it (drop shadows that "use global light" follow it). */
export function globalAngleOf(state: DocState): number | undefined {
  return carriedResources(state).globalAngle;
}

const FULL_RANGE = [0, 0, 255, 255];

/** Whether Blend If restricts anything (ag-psd reads the full ranges for every Photoshop layer). */
function blendIfActive(b: NonNullable<AgLayer['blendingRanges']>): boolean {
  const same = (r: readonly number[] | undefined) => !r || r.every((v, i) => v === FULL_RANGE[i]);
  return !(
    same(b.compositeGrayBlendSource) &&
    same(b.compositeGraphBlendDestinationRange) &&
    b.ranges.every((r) => same(r.sourceRange) && same(r.destRange))
  );
}

/**
 * The layer fields of `l` to carry, and warnings for those that change how the layer looks, which the preview
 * does not show.
 */
export function carriedLayerData(
  l: AgLayer,
  effects: Effects | undefined,
  warnings: string[],
): PsdLayerData | undefined {
  const props: Record<string, unknown> = {};
  for (const key of CARRIED_LAYER_FIELDS) {
    const value = l[key];
    // What every layer has (ag-psd reads Photoshop's defaults for each) is written the same without it.
    if (value !== undefined && value !== LAYER_DEFAULTS[key]) props[key] = value;
  }
  if (l.blendingRanges && !blendIfActive(l.blendingRanges)) delete props.blendingRanges;
  if (l.channelBlendingRestrictions?.length === 0) delete props.channelBlendingRestrictions;
  // The one lock bit the engine's Locks do not hold: "prevent auto-nesting" into artboards.
  if (l.protected?.artboards) props.protected = { artboards: true };
  const name = l.name ?? '';
  const unseen: string[] = [];
  if (l.blendingRanges && blendIfActive(l.blendingRanges)) unseen.push('混合颜色带（Blend If）');
  if (l.knockout) unseen.push('挖空');
  const channels = l.channelBlendingRestrictions;
  if (channels && channels.length > 0) unseen.push('高级混合的通道限制');
  if (unseen.length > 0) {
    warnings.push(`图层“${name}”的${unseen.join('、')}预览中不显示，保存时原样保留`);
  }
  const out: { props?: Record<string, unknown>; style?: PsdLayerData['style'] } = {};
  if (Object.keys(props).length > 0) out.props = props;
  if (l.effects) out.style = { of: effects, fx: l.effects as Record<string, unknown> };
  return out.props || out.style ? out : undefined;
}

/** The mask's density and feather (drawn by composite/mask-shown.ts) and its "relative to layer" flag (kept). */
export function maskExtras(l: AgLayer): Pick<LayerMask, 'density' | 'feather' | 'relative'> {
  const m = l.mask;
  if (!m) return {};
  const out: { density?: number; feather?: number; relative?: boolean } = {};
  if (m.userMaskDensity !== undefined && m.userMaskDensity < 1) out.density = m.userMaskDensity;
  if (m.userMaskFeather !== undefined && m.userMaskFeather > 0) out.feather = m.userMaskFeather;
  if (m.positionRelativeToLayer) out.relative = true;
  return out;
}

/** The carried fields of `layer` for its ag-psd record, leaving out what its current state makes wrong. */
export function carriedLayerFields(layer: Layer): Partial<AgLayer> {
  const props = layer.psd?.props as Partial<AgLayer> | undefined;
  if (!props) return {};
  const out: Partial<AgLayer> = { ...props };
  // "Layer mask hides effects" is about a mask: one deleted since takes its flag with it.
  if (!layer.mask) delete out.layerMaskAsGlobalMask;
  // An artboard is a group; a layer that is no longer one is no longer an artboard.
  if (layer.kind !== 'group') delete out.artboard;
  return out;
}

/**
 * The layer style to write: the file's, with the engine's stroke and drop shadow in place of the ones it showed
 * (the first enabled of each) and the file's other effects kept. Effects removed with nothing left in their
 * place (clear_layer_effects) take the file's style with them.
 */
export function styleToWrite(
  layer: Layer,
  ours: AgEffects | undefined,
  globalAngle: number | undefined,
): AgEffects | undefined {
  const style = layer.psd?.style;
  if (!style) return ours;
  const read = style.fx as AgEffects;
  // Even unedited, the effects the engine shows are written from its own: their colours are the document's
  // (8-bit sRGB or press inks), which a 32-bit, grayscale or Adobe RGB file's style did not hold as such.
  if (style.of === layer.effects && (read.disabled === true || !layer.effects)) return read;
  if (!layer.effects) return undefined;
  const out: AgEffects = { ...read };
  // A style switched off as a whole showed nothing: what the engine added now shows, the rest stays off.
  const off = read.disabled === true;
  delete out.disabled;
  // `shown`: the engine read the file's first enabled one (a gradient or pattern stroke it did not: that one is
  // kept when the engine has none, not taken for one removed).
  const merge = <T extends { enabled?: boolean }>(
    list: readonly T[] | undefined,
    mine: T | undefined,
    shown: boolean,
    keep: (file: T, mine: T) => Partial<T>,
  ): T[] | undefined => {
    const next = (list ?? []).map((e) => (off ? { ...e, enabled: false } : e));
    const at = off ? -1 : next.findIndex((e) => e.enabled !== false);
    if (at >= 0) {
      if (mine) next[at] = { ...next[at]!, ...mine, ...keep(next[at]!, mine) };
      else if (shown) next.splice(at, 1);
    } else if (mine) {
      next.unshift(mine);
    }
    return next.length > 0 ? next : undefined;
  };
  const stroke = merge(read.stroke, ours?.stroke?.[0], !!style.of?.stroke, () => ({}));
  const dropShadow = merge(read.dropShadow, ours?.dropShadow?.[0], !!style.of?.dropShadow, (file, mine) => ({
    // Not something the engine edits: the file's choice stands.
    ...(file.layerConceals !== undefined ? { layerConceals: file.layerConceals } : {}),
    // Still linked to the global light when the angle still is the global one.
    useGlobalLight: !!file.useGlobalLight && globalAngle !== undefined && mine.angle === globalAngle,
  }));
  if (stroke) out.stroke = stroke;
  else delete out.stroke;
  if (dropShadow) out.dropShadow = dropShadow;
  else delete out.dropShadow;
  if (off) {
    for (const key of ['outerGlow', 'innerGlow', 'bevel', 'satin', 'patternOverlay'] as const) {
      const e = out[key];
      if (e) out[key] = { ...e, enabled: false } as never;
    }
    for (const key of ['innerShadow', 'solidFill', 'gradientOverlay'] as const) {
      const list = out[key];
      if (list) out[key] = list.map((e) => ({ ...e, enabled: false })) as never;
    }
  }
  return out;
}

/**
 * `fx` as ag-psd can write it. ag-psd 31 reads a pattern stroke's "Link with Layer" flag (the descriptor's Lnkd, a
 * boolean) but knows no type for that key when writing, takes it for an integer and refuses the boolean: every
 * save of such a file failed. The flag is left out (Photoshop then applies its default) and the save says so.
 */
export function writableStyle(fx: AgEffects, name: string, warnings: string[]): AgEffects {
  const linked = fx.stroke?.some((s) => s.pattern && 'linked' in s.pattern);
  if (!linked) return fx;
  warnings.push(`图层“${name}”的图案描边的“与图层链接”设置无法写入 PSD：保存的文件按 Photoshop 的默认处理`);
  return {
    ...fx,
    stroke: fx.stroke!.map((s) => {
      if (!s.pattern || !('linked' in s.pattern)) return s;
      const { linked: _linked, ...pattern } = s.pattern as typeof s.pattern & { linked?: boolean };
      return { ...s, pattern };
    }),
  };
}
