/** The percent scale parameters resize_layer (spec) and scale_layer_from (extension) share, with their limits. */
export const SCALE_PROPERTIES = {
  scale_x: {
    type: 'number',
    description: '水平缩放百分比：100 = 不变，200 = 两倍，50 = 一半；大于 0，最大 10000',
  },
  scale_y: {
    type: 'number',
    description: '垂直缩放百分比：100 = 不变；大于 0，最大 10000；省略时默认等于 scale_x',
  },
} as const;

export const SCALE_LIMITS = { scale_x: { above: 0, max: 10000 }, scale_y: { above: 0, max: 10000 } } as const;

/** The nine reference points of a box a scale may keep fixed, as Photoshop's reference point locator. */
export const ANCHORS = [
  'top_left',
  'top',
  'top_right',
  'left',
  'center',
  'right',
  'bottom_left',
  'bottom',
  'bottom_right',
] as const;
