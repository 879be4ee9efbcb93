/**
 * The gradient shapes fill_gradient draws (Photoshop's Gradient tool: linear, radial, reflected). The engine's
 * gradient type derives from this list.
 */
export const GRADIENT_TYPES = ['linear', 'radial', 'reflected'] as const;

/** The most points one brush stroke takes (a long drag on the canvas sends a few hundred). */
export const BRUSH_MAX_POINTS = 4000;

/** The largest brush, in pixels across (Photoshop's is 5000). */
export const BRUSH_MAX_SIZE = 5000;
