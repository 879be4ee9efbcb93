/**
 * The effects of a PSD layer style painted inside a layer's shape — colour and gradient overlays, inner glow and
 * inner shadows — and its outer glow, as the engine draws them (composite/effects.ts), and the ones it does not
 * draw, named for the open call's warning. A group's are not drawn (its composite would have to be made first),
 * nor a fill layer's glows and inner shadows; the file's style is carried whole on save either way (psd-carry.ts).
 */
import type {
  Color as AgColor,
  Layer as AgLayer,
  EffectContour,
  LayerEffectGradientOverlay,
  LayerEffectInnerGlow,
  LayerEffectShadow,
  UnitsValue,
} from 'ag-psd';
import {
  type BlendMode,
  type ColorOverlayEffect,
  type DropShadowEffect,
  type GlowEffect,
  type GradientOverlayEffect,
  type InnerShadowEffect,
  isBlendMode,
  type RGB,
  type StyleGradientStop,
} from '../model.js';

type Colour = (c: AgColor | undefined, what: string) => Promise<RGB>;

export interface StyleEffects {
  readonly colorOverlays?: ColorOverlayEffect[];
  readonly gradientOverlays?: GradientOverlayEffect[];
  readonly innerGlow?: GlowEffect;
  readonly innerShadows?: InnerShadowEffect[];
  readonly outerGlow?: GlowEffect;
  /** What is switched on and not drawn, for the warning: 颜色叠加, 渐变叠加（径向）… */
  readonly undrawn: string[];
}

/** The effects (ag-psd's keys) this module reads, and names when it does not draw them. */
export const STYLE_EFFECT_KEYS: ReadonlySet<string> = new Set([
  'solidFill',
  'gradientOverlay',
  'innerGlow',
  'outerGlow',
  'innerShadow',
]);

const STYLE_NAMES: Record<string, string> = {
  radial: '径向',
  angle: '角度',
  diamond: '菱形',
};

const METHOD_NAMES: Record<string, string> = {
  perceptual: '可感知',
  linear: '线性',
  stripes: '条纹',
};

/** What the reading needs of the file: its colours, lengths in pixels, and the global light's angle. */
export interface StyleReading {
  readonly colour: Colour;
  readonly px: (u: UnitsValue | undefined) => number;
  readonly globalAngle: number | undefined;
}

/**
 * The style effects of layer `l` that are switched on. `canDraw` is false for a layer whose style effects are not
 * drawn at all (a group, or a fill layer on a canvas too large to hold their pixels); `shaped` is false for one
 * whose shape is not its own pixels (a fill layer: its glows and inner shadows are not drawn).
 */
export async function styleEffectsOf(
  l: AgLayer,
  canDraw: boolean,
  shaped: boolean,
  name: string,
  read: StyleReading,
): Promise<StyleEffects> {
  const { colour } = read;
  const fx = l.effects ?? {};
  const undrawn: string[] = [];
  const on = <T extends { enabled?: boolean }>(v: T | T[] | undefined): T[] =>
    (Array.isArray(v) ? v : v ? [v] : []).filter((e) => e.enabled !== false);
  const solids = on(fx.solidFill);
  const gradients = on(fx.gradientOverlay);
  let colorOverlays: ColorOverlayEffect[] | undefined;
  let gradientOverlays: GradientOverlayEffect[] | undefined;
  if (solids.length > 0) {
    if (canDraw && solids.every((o) => blendOf(o.blendMode))) {
      colorOverlays = [];
      // The file lists the top one first.
      for (const o of [...solids].reverse()) {
        const blend = blendOf(o.blendMode)!;
        colorOverlays.push({
          color: await colour(o.color, `图层“${name}”颜色叠加`),
          opacity: o.opacity ?? 1,
          ...(blend !== 'normal' ? { blend } : {}),
        });
      }
    } else undrawn.push('颜色叠加');
  }
  if (gradients.length > 0) {
    // All or none: the colour overlays above them are drawn either way, as they cover whatever is below.
    const why = canDraw ? (gradients.map(notDrawn).find((w) => w !== null) ?? null) : '';
    if (why === null) {
      gradientOverlays = [];
      for (const o of [...gradients].reverse()) gradientOverlays.push(await gradientOverlay(o, name, colour));
    } else undrawn.push(why ? `渐变叠加（${why}）` : '渐变叠加');
  }
  const glowOf = async (
    g: LayerEffectInnerGlow | undefined,
    what: string,
  ): Promise<GlowEffect | undefined> => {
    if (!g) return undefined;
    const why = canDraw && shaped ? glowNotDrawn(g) : '';
    if (why !== null) {
      undrawn.push(why ? `${what}（${why}）` : what);
      return undefined;
    }
    return {
      size: read.px(g.size),
      spread: g.choke?.value ?? 0,
      opacity: g.opacity ?? 1,
      color: await colour(g.color, `图层“${name}”${what}`),
      blend: blendOf(g.blendMode)!,
      range: g.range ?? 0.5,
      ...(g.source === 'center' ? { source: 'center' as const } : {}),
    };
  };
  const innerGlow = await glowOf(on(fx.innerGlow)[0], '内发光');
  const outerGlow = await glowOf(on(fx.outerGlow as LayerEffectInnerGlow | undefined)[0], '外发光');
  let innerShadows: InnerShadowEffect[] | undefined;
  const shadows = on(fx.innerShadow);
  if (shadows.length > 0) {
    const why = canDraw && shaped ? (shadows.map(shadowNotDrawn).find((w) => w !== null) ?? null) : '';
    if (why === null) {
      innerShadows = [];
      for (const d of [...shadows].reverse()) {
        innerShadows.push(await shadowOf(d, blendOf(d.blendMode)!, `图层“${name}”内阴影`, read));
      }
    } else undrawn.push(why ? `内阴影（${why}）` : '内阴影');
  }
  return {
    ...(colorOverlays ? { colorOverlays } : {}),
    ...(gradientOverlays ? { gradientOverlays } : {}),
    ...(innerGlow ? { innerGlow } : {}),
    ...(innerShadows ? { innerShadows } : {}),
    ...(outerGlow ? { outerGlow } : {}),
    undrawn,
  };
}

/** A drop or inner shadow of the file, its blend mode given (`what` names it where its colour is read). */
export async function shadowOf(
  d: LayerEffectShadow,
  blend: BlendMode,
  what: string,
  read: StyleReading,
): Promise<DropShadowEffect> {
  return {
    distance: read.px(d.distance),
    // "Use Global Light": the document's angle applies, not the effect's own.
    angle: d.useGlobalLight && read.globalAngle !== undefined ? read.globalAngle : (d.angle ?? 120),
    size: read.px(d.size),
    spread: d.choke?.value ?? 0,
    opacity: d.opacity ?? 1,
    color: await read.colour(d.color, what),
    blend,
  };
}

/** Whether a contour is Photoshop's Linear one (the only one drawn). */
function linear(c: EffectContour | undefined): boolean {
  return (
    !c ||
    (c.curve.length === 2 &&
      c.curve.every((p) => p.x === p.y) &&
      c.curve[0]!.x === 0 &&
      c.curve[1]!.x === 255)
  );
}

/** Why a glow is not drawn (a few words), or null when it is. */
function glowNotDrawn(g: LayerEffectInnerGlow & { gradient?: unknown }): string | null {
  if (g.gradient) return '渐变';
  if (g.technique && g.technique !== 'softer') return '精确方法';
  if (!linear(g.contour)) return '等高线';
  if ((g.noise ?? 0) > 0 || (g.jitter ?? 0) > 0) return '杂色';
  if (!blendOf(g.blendMode)) return `混合模式“${g.blendMode}”`;
  return null;
}

function shadowNotDrawn(d: LayerEffectShadow & { noise?: number }): string | null {
  if (!linear(d.contour)) return '等高线';
  if ((d.noise ?? 0) > 0) return '杂色';
  if (!blendOf(d.blendMode)) return `混合模式“${d.blendMode}”`;
  return null;
}

function blendOf(m: string | undefined): BlendMode | null {
  if (m === undefined) return 'normal';
  return isBlendMode(m) && m !== 'pass through' ? m : null;
}

/** Why the engine does not draw this gradient overlay (a few words), or null when it does. */
function notDrawn(o: LayerEffectGradientOverlay): string | null {
  if (o.gradient?.type !== 'solid') return '杂色渐变';
  if (o.type && o.type !== 'linear' && o.type !== 'reflected') return `${STYLE_NAMES[o.type] ?? o.type}渐变`;
  const method = o.interpolationMethod;
  if (method && method !== 'classic' && method !== 'smooth') return `${METHOD_NAMES[method] ?? method}插值`;
  if (!blendOf(o.blendMode)) return `混合模式“${o.blendMode}”`;
  if (!o.gradient.colorStops.length || !o.gradient.opacityStops.length) return '没有色标';
  return null;
}

async function gradientOverlay(
  o: LayerEffectGradientOverlay,
  name: string,
  colour: Colour,
): Promise<GradientOverlayEffect> {
  const g = o.gradient as Extract<LayerEffectGradientOverlay['gradient'], { type: 'solid' }>;
  const colors: StyleGradientStop<RGB>[] = [];
  for (const s of sorted(g.colorStops)) {
    colors.push({ at: s.location, mid: s.midpoint, value: await colour(s.color, `图层“${name}”渐变叠加`) });
  }
  return {
    blend: blendOf(o.blendMode)!,
    opacity: o.opacity ?? 1,
    colors,
    opacities: sorted(g.opacityStops).map((s) => ({ at: s.location, mid: s.midpoint, value: s.opacity })),
    smoothness: g.smoothness ?? 1,
    ...(o.interpolationMethod === 'smooth' ? { method: 'smooth' as const } : {}),
    style: o.type === 'reflected' ? 'reflected' : 'linear',
    angle: o.angle ?? 90,
    scale: o.scale ?? 1,
    reverse: !!o.reverse,
    alignWithLayer: o.align !== false,
    offset: { x: o.offset?.x ?? 0, y: o.offset?.y ?? 0 },
    dither: !!o.dither,
  };
}

/** Stops by location, those at one location in the file's order (the colour jumps there). */
function sorted<T extends { location: number }>(stops: readonly T[]): T[] {
  return stops
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.location - b.s.location || a.i - b.i)
    .map(({ s }) => s);
}
