/**
 * Parameters the marquee, lasso and magic wand tools share (extensions, group E): the edges of a rectangle and how
 * a new selection meets the one there is, as Photoshop's selection tools do with Shift and Alt.
 */
export const SELECTION_MODES = ['replace', 'add', 'subtract', 'intersect'] as const;

export const MODE_PROPERTY = {
  mode: {
    type: 'string',
    description: '与原有选区的组合方式：replace 替换（默认）、add 添加、subtract 减去、intersect 交叉',
    enum: SELECTION_MODES,
  },
} as const;

export const MODE_LIMITS = { mode: { default: 'replace' } } as const;

/** How `mode` works, for the tools' descriptions. */
export const MODE_SENTENCE =
  'mode 为与原有选区的组合方式（如 Photoshop 选区工具按住 Shift、Alt）：replace 替换原有选区（默认）、add 添加到选区、subtract 从选区中减去、intersect 与选区交叉；没有原有选区时 add 即新建，subtract 和 intersect 得到空选区（即取消选择）。';

export const EDGE_PROPERTIES = {
  left: { type: 'number', description: '左边 x 坐标（像素）' },
  top: { type: 'number', description: '上边 y 坐标（像素）' },
  right: { type: 'number', description: '右边 x 坐标（像素），须大于 left' },
  bottom: { type: 'number', description: '下边 y 坐标（像素），须大于 top' },
} as const;

/** The most corners a polygonal lasso may have: a freehand lasso dragged across a poster stays well within it. */
export const POLYGON_MAX_POINTS = 4000;

/**
 * How far from the canvas's origin an ellipse's or a polygon's coordinates may lie (3× the largest canvas side):
 * beyond it nothing more is selected and an ellipse only costs more (its corners grow with its size).
 */
export const SHAPE_REACH = 1_000_000;
export const REACH_LIMITS = { min: -SHAPE_REACH, max: SHAPE_REACH } as const;
