/**
 * How large a garment photo must be. Below the minimum (shorter side) there is no print to read: a repeat
 * needs a few tiles, a palette more than a handful of pixels. Below the good size the print is read, with a
 * warning that its scale and details may be off.
 */
export const MIN_PHOTO_SIDE = 64;
export const GOOD_PHOTO_SIDE = 256;

/** Why a photo of this size cannot be used, or null when it can. */
export function photoTooSmall(name: string, w: number, h: number): { message: string; hint: string } | null {
  if (Math.min(w, h) >= MIN_PHOTO_SIDE) return null;
  return {
    message: `“${name}”只有 ${w}×${h} 像素，太小，读不出花样`,
    hint: `请使用短边至少 ${MIN_PHOTO_SIDE} 像素（最好 ${GOOD_PHOTO_SIDE} 像素以上）的服装照片`,
  };
}

/** A warning for a photo that is usable but small, or null. */
export function photoSmallWarning(w: number, h: number): string | null {
  return Math.min(w, h) < GOOD_PHOTO_SIDE
    ? `照片只有 ${w}×${h} 像素：花样的比例和细节可能读不准，最好用短边 ${GOOD_PHOTO_SIDE} 像素以上的照片`
    : null;
}
