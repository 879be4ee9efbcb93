/**
 * The gradient shapes fill_gradient draws (Photoshop's Gradient tool: linear, radial, reflected). The engine's
 * gradient type derives from this list.
 */
export const GRADIENT_TYPES = ['linear', 'radial', 'reflected'] as const;
