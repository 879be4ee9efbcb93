/** Adjustments of a layer's pixels: tone curves, Hue/Saturation, Desaturate, Auto Levels/Contrast, Gaussian Blur. */
export { AUTO_CLIP, autoContrast, autoLevels, clippedRange, histograms } from './auto.js';
export { BLUR_MIN_AMPLITUDE, type BlurOptions, blurIsIdentity, blurReach, gaussianBlur } from './blur.js';
export { desaturateKernel, hueSaturationKernel } from './hsl.js';
export {
  brightnessContrastLut,
  type ColorKernel,
  identityLut,
  invertLut,
  isIdentity,
  type Lut,
  levelsLut,
  lutKernel,
  rgbLutKernel,
  stretchLut,
  type WordKernel,
  wordKernel,
} from './lut.js';
export {
  applyColorKernel,
  blendBySelection,
  forEachSelectedRun,
  hasSelectedPixels,
  opaqueBounds,
  selectionTouches,
  trimmed,
} from './region.js';
