/**
 * Feather radius → Gaussian σ. Photoshop's mapping is undocumented; σ = r/2 puts ≈95 % of the ramp within ±r
 * (engine.md §1.9, risk 2). The only place the mapping is written down: a selection's feather and a layer
 * mask's feather (its Properties panel) use it alike.
 */
export const FEATHER_SIGMA_PER_RADIUS = 0.5;
