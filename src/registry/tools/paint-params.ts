/**
 * The gradient shapes fill_gradient draws (Photoshop's Gradient tool: linear, radial, reflected). The engine's
 * gradient type derives from this list.
 */
export const GRADIENT_TYPES = ['linear', 'radial', 'reflected'] as const;

/** The most colour stops fill_gradient takes between its two ends. */
/** What a pen's pressure sets in paint_stroke: the brush's size, its opacity, or both (Photoshop's two switches). */
export const PRESSURE_SETS = ['size', 'opacity', 'both'] as const;

export const GRADIENT_MAX_STOPS = 30;

/** The most points one brush stroke takes (a long drag on the canvas sends a few hundred). */
export const BRUSH_MAX_POINTS = 4000;

/** The largest brush, in pixels across (Photoshop's is 5000). */
export const BRUSH_MAX_SIZE = 5000;

/** Where the painting tools (fill_gradient, paint_stroke) paint: the active layer's pixels or its layer mask. */
export const PAINT_TARGETS = ['layer', 'mask'] as const;

export const PAINT_TARGET_PROPERTY = {
  target: {
    type: 'string',
    description: '画在哪里：layer 图层像素（默认）；mask 图层蒙版（白色显示、黑色隐藏）',
    enum: PAINT_TARGETS,
  },
} as const;

export const PAINT_TARGET_LIMITS = { target: { default: 'layer' } } as const;

/** How `target` works, for the painting tools' descriptions. */
export const PAINT_TARGET_SENTENCE =
  'target 为 mask 时画在当前图层的图层蒙版上（如 Photoshop 选中蒙版后再画，常用于让图片渐隐）：白色显示、黑色隐藏，其他颜色按其灰度，图层须已有蒙版（先 add_layer_mask）；为 layer（默认）时当前图层须为像素图层。';
