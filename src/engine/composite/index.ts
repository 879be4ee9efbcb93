/** The compositor: blend modes, document flattening, the dirty-rectangle cache and layer footprints. */
export { canvasRect, contentExtent, layerBounds, layerExtent } from './bounds.js';
export { type CacheStats, CompositeCache, dirtyRect } from './cache.js';
export { renderDocument, renderInto } from './compositor.js';
export { type EffectPaint, type EffectPaints, effectPaints, effectsExtent, NO_EFFECTS } from './effects.js';
