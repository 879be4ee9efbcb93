/**
 * The garment parts a cut piece can be, with their Chinese names: what identify_pieces reports and what
 * confirm_piece_parts accepts. The garment code, the studio's part picker and the tool's enum all read this list.
 */
export const GARMENT_PARTS = [
  ['front', '前片'],
  ['back', '后片'],
  ['left_sleeve', '左袖'],
  ['right_sleeve', '右袖'],
  ['collar', '领'],
  ['cuff', '袖口'],
  ['pocket', '口袋'],
  ['waistband', '腰头'],
  ['hood', '帽'],
  ['other', '其他'],
] as const;

export type GarmentPart = (typeof GARMENT_PARTS)[number][0];

/** The parts' English names, for the studio's English mode (every part has one: the type says so). */
export const GARMENT_PART_LABELS_EN: Readonly<Record<GarmentPart, string>> = {
  front: 'Front',
  back: 'Back',
  left_sleeve: 'Left sleeve',
  right_sleeve: 'Right sleeve',
  collar: 'Collar',
  cuff: 'Cuff',
  pocket: 'Pocket',
  waistband: 'Waistband',
  hood: 'Hood',
  other: 'Other',
};

/**
 * How a cut piece may lie on a marker: degrees clockwise from standing upright on the garment. confirm_piece_parts
 * takes one, the garment tools print along it, and the studio's turn picker offers these.
 */
export const GARMENT_TURNS = [0, 90, 180, 270] as const;

/**
 * How far a piece may be stated to lie askew on a marker (degrees either way, clockwise positive), beside its
 * quarter turn: confirm_piece_parts takes a tilt within it; more than this is a quarter turn and a tilt.
 */
export const GARMENT_TILT_MAX = 45;
