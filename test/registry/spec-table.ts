/**
 * The registry as SPEC.md states it, transcribed by hand from SPEC.md §4 (tools, parameters, labels) and §8
 * (ranges and defaults). It is written independently of src/registry on purpose: it is the check on the
 * registry, so nothing here is derived from the registry's own data.
 *
 * Order is the spec's: group A (10), B (4), C (49), D (12) = 75. `trim_document` appears once, in its
 * first position in §4.4 (the spec's duplicate definition is folded, as DESIGN.md §2 decides).
 */

export type SpecParamType = 'string' | 'number' | 'boolean' | 'array' | 'object';

export interface SpecParam {
  readonly name: string;
  readonly type: SpecParamType;
  readonly required: boolean;
  /** Allowed values, in the spec's order. */
  readonly enum?: readonly string[];
  /** For arrays: `string` = array of strings; `piece` = array of piece entries (SPEC §2.3). */
  readonly items?: 'string' | 'piece';
}

export interface SpecTool {
  readonly name: string;
  readonly group: 'A' | 'B' | 'C' | 'D';
  /** The Chinese display label, exactly as §4 gives it. */
  readonly label: string;
  readonly params: readonly SpecParam[];
}

const req = (name: string, type: SpecParamType): SpecParam => ({ name, type, required: true });
const opt = (name: string, type: SpecParamType): SpecParam => ({ name, type, required: false });
const reqEnum = (name: string, values: readonly string[]): SpecParam => ({
  name,
  type: 'string',
  required: true,
  enum: values,
});
const optEnum = (name: string, values: readonly string[]): SpecParam => ({
  name,
  type: 'string',
  required: false,
  enum: values,
});
const reqStrings = (name: string): SpecParam => ({ name, type: 'array', required: true, items: 'string' });

/** `name: string`, required: the layer a group C tool acts on. */
const layer = req('name', 'string');
const HV = ['horizontal', 'vertical'] as const;

/** SPEC §2.3: fields of a piece entry, and the allowed piece types in the spec's order. */
export const PIECE_FIELDS = ['name', 'type', 'color', 'description'] as const;
export const PIECE_REQUIRED = ['name', 'type'] as const;
export const PIECE_TYPES = ['solid', 'fill_pattern', 'theme_pattern', 'mixed_pattern'] as const;

export const BLEND_MODES = [
  'normal',
  'multiply',
  'screen',
  'overlay',
  'darken',
  'lighten',
  'color_dodge',
  'color_burn',
  'soft_light',
  'hard_light',
  'difference',
  'exclusion',
  'hue',
  'saturation',
  'color',
  'luminosity',
] as const;

export const ANCHORS = [
  'top-left',
  'top',
  'top-right',
  'left',
  'center',
  'right',
  'bottom-left',
  'bottom',
  'bottom-right',
] as const;

export const SPEC_TOOLS: readonly SpecTool[] = [
  // §4.1 Group A: document and layer basics (10)
  { name: 'get_document_info', group: 'A', label: '查看文档信息', params: [] },
  { name: 'get_layer_structure', group: 'A', label: '查看图层结构', params: [] },
  { name: 'create_layer', group: 'A', label: '新建图层', params: [req('name', 'string')] },
  { name: 'rename_layer', group: 'A', label: '重命名图层', params: [req('new_name', 'string')] },
  { name: 'delete_layer', group: 'A', label: '删除图层', params: [] },
  { name: 'duplicate_layer', group: 'A', label: '复制图层', params: [] },
  {
    name: 'align_layers',
    group: 'A',
    label: '对齐图层',
    params: [reqEnum('type', ['left', 'right', 'centerH', 'top', 'bottom', 'centerV'])],
  },
  { name: 'merge_layers', group: 'A', label: '合并图层', params: [] },
  { name: 'create_layer_group', group: 'A', label: '创建图层组', params: [req('name', 'string')] },
  { name: 'move_layer_to_group', group: 'A', label: '移入图层组', params: [req('group_name', 'string')] },

  // §4.2 Group B: garment pattern tools (4)
  { name: 'identify_pieces', group: 'B', label: '识别裁片部位', params: [] },
  { name: 'generate_garment_preview', group: 'B', label: '生成花样预览', params: [] },
  {
    name: 'extract_and_apply_all_pieces',
    group: 'B',
    label: '提取并套图',
    params: [{ name: 'pieces', type: 'array', required: true, items: 'piece' }],
  },
  { name: 'verify_pattern_result', group: 'B', label: '验证套图效果', params: [] },

  // §4.3 Group C: general editing tools (49)
  // Layer transforms and properties (15)
  {
    name: 'move_layer',
    group: 'C',
    label: '移动图层',
    params: [layer, req('dx', 'number'), req('dy', 'number')],
  },
  {
    name: 'resize_layer',
    group: 'C',
    label: '缩放图层',
    params: [layer, req('scale_x', 'number'), opt('scale_y', 'number')],
  },
  { name: 'rotate_layer', group: 'C', label: '旋转图层', params: [layer, req('angle', 'number')] },
  { name: 'flip_layer', group: 'C', label: '翻转图层', params: [layer, reqEnum('direction', HV)] },
  { name: 'set_layer_opacity', group: 'C', label: '设置透明度', params: [layer, req('opacity', 'number')] },
  {
    name: 'set_layer_blend_mode',
    group: 'C',
    label: '设置混合模式',
    params: [layer, reqEnum('mode', BLEND_MODES)],
  },
  {
    name: 'set_layer_visible',
    group: 'C',
    label: '显示/隐藏图层',
    params: [layer, req('visible', 'boolean')],
  },
  { name: 'lock_layer', group: 'C', label: '锁定图层', params: [layer, req('locked', 'boolean')] },
  { name: 'bring_to_front', group: 'C', label: '置顶图层', params: [layer] },
  { name: 'send_to_back', group: 'C', label: '置底图层', params: [layer] },
  { name: 'rasterize_layer', group: 'C', label: '栅格化', params: [layer] },
  { name: 'convert_to_smart_object', group: 'C', label: '转智能对象', params: [layer] },
  { name: 'get_layer_bounds', group: 'C', label: '获取图层位置', params: [layer] },
  { name: 'get_active_layer_info', group: 'C', label: '查看当前图层', params: [] },
  { name: 'list_all_layer_names', group: 'C', label: '列出所有图层', params: [] },
  // Text (4)
  { name: 'set_text_content', group: 'C', label: '修改文字', params: [layer, req('text', 'string')] },
  { name: 'set_text_color', group: 'C', label: '修改文字颜色', params: [layer, req('color', 'string')] },
  { name: 'set_text_size', group: 'C', label: '修改字号', params: [layer, req('size', 'number')] },
  {
    name: 'create_text_layer',
    group: 'C',
    label: '创建文字',
    params: [
      req('text', 'string'),
      req('x', 'number'),
      req('y', 'number'),
      req('font_size', 'number'),
      opt('color', 'string'),
      opt('font_name', 'string'),
    ],
  },
  // Grouping, alignment, merging (6)
  {
    name: 'group_layers',
    group: 'C',
    label: '编组图层',
    params: [reqStrings('layer_names'), req('group_name', 'string')],
  },
  {
    name: 'align_layers_tool',
    group: 'C',
    label: '对齐图层',
    params: [
      reqStrings('layer_names'),
      reqEnum('alignment', ['left', 'center_h', 'right', 'top', 'center_v', 'bottom']),
    ],
  },
  {
    name: 'distribute_layers',
    group: 'C',
    label: '分布图层',
    params: [reqStrings('layer_names'), reqEnum('direction', HV)],
  },
  { name: 'merge_visible', group: 'C', label: '合并可见', params: [] },
  { name: 'flatten_image', group: 'C', label: '拼合图像', params: [] },
  { name: 'copy_merged_to_new_layer', group: 'C', label: '复制合并', params: [] },
  // Effects, masks, adjustments (17)
  {
    name: 'add_stroke',
    group: 'C',
    label: '添加描边',
    params: [
      layer,
      req('size', 'number'),
      req('color', 'string'),
      optEnum('position', ['outside', 'inside', 'center']),
    ],
  },
  {
    name: 'add_drop_shadow',
    group: 'C',
    label: '添加投影',
    params: [
      layer,
      req('distance', 'number'),
      req('size', 'number'),
      opt('opacity', 'number'),
      opt('angle', 'number'),
    ],
  },
  { name: 'clear_layer_effects', group: 'C', label: '清除图层样式', params: [layer] },
  { name: 'create_clipping_mask', group: 'C', label: '创建剪贴蒙版', params: [layer] },
  { name: 'release_clipping_mask', group: 'C', label: '释放剪贴蒙版', params: [layer] },
  { name: 'add_layer_mask', group: 'C', label: '添加蒙版', params: [layer, opt('hide_all', 'boolean')] },
  { name: 'delete_layer_mask', group: 'C', label: '删除蒙版', params: [layer, opt('apply', 'boolean')] },
  {
    name: 'adjust_brightness_contrast',
    group: 'C',
    label: '亮度/对比度',
    params: [req('brightness', 'number'), req('contrast', 'number')],
  },
  { name: 'desaturate', group: 'C', label: '去色', params: [] },
  { name: 'gaussian_blur', group: 'C', label: '高斯模糊', params: [req('radius', 'number')] },
  { name: 'auto_levels', group: 'C', label: '自动色阶', params: [] },
  { name: 'auto_contrast', group: 'C', label: '自动对比度', params: [] },
  { name: 'invert_colors', group: 'C', label: '反相', params: [] },
  {
    name: 'adjust_levels',
    group: 'C',
    label: '色阶',
    params: [req('black', 'number'), req('gamma', 'number'), req('white', 'number')],
  },
  {
    name: 'adjust_hsl',
    group: 'C',
    label: '色相/饱和度',
    params: [req('hue', 'number'), req('saturation', 'number'), req('lightness', 'number')],
  },
  { name: 'convert_to_rgb', group: 'C', label: '转RGB', params: [] },
  { name: 'convert_to_cmyk', group: 'C', label: '转CMYK', params: [] },
  // Selection, colour, guides (7)
  {
    name: 'fill_selection',
    group: 'C',
    label: '填充选区',
    params: [req('color', 'string'), opt('opacity', 'number')],
  },
  { name: 'inverse_selection', group: 'C', label: '反选', params: [] },
  { name: 'feather_selection', group: 'C', label: '羽化选区', params: [req('radius', 'number')] },
  { name: 'set_foreground_color', group: 'C', label: '设置前景色', params: [req('color', 'string')] },
  { name: 'get_pixel_color', group: 'C', label: '取色', params: [req('x', 'number'), req('y', 'number')] },
  {
    name: 'add_guide',
    group: 'C',
    label: '添加参考线',
    params: [req('position', 'number'), reqEnum('direction', HV)],
  },
  { name: 'clear_guides', group: 'C', label: '清除参考线', params: [] },

  // §4.4 Group D: document operations (12)
  {
    name: 'create_document',
    group: 'D',
    label: '新建文档',
    params: [
      req('width', 'number'),
      req('height', 'number'),
      opt('resolution', 'number'),
      opt('name', 'string'),
    ],
  },
  { name: 'save_document', group: 'D', label: '保存文档', params: [] },
  {
    name: 'save_document_as',
    group: 'D',
    label: '另存为',
    params: [req('path', 'string'), optEnum('format', ['psd', 'png', 'jpg'])],
  },
  { name: 'close_document', group: 'D', label: '关闭文档', params: [opt('save', 'boolean')] },
  { name: 'list_documents', group: 'D', label: '列出文档', params: [] },
  { name: 'switch_document', group: 'D', label: '切换文档', params: [req('doc_name', 'string')] },
  {
    name: 'duplicate_layer_to_document',
    group: 'D',
    label: '复制到文档',
    params: [req('name', 'string'), req('target_doc', 'string')],
  },
  {
    name: 'resize_canvas',
    group: 'D',
    label: '调整画布',
    params: [req('width', 'number'), req('height', 'number'), optEnum('anchor', ANCHORS)],
  },
  {
    name: 'resize_image',
    group: 'D',
    label: '调整图像大小',
    params: [req('width', 'number'), req('height', 'number'), opt('resolution', 'number')],
  },
  {
    name: 'crop_document',
    group: 'D',
    label: '裁切画布',
    params: [req('left', 'number'), req('top', 'number'), req('right', 'number'), req('bottom', 'number')],
  },
  {
    name: 'trim_document',
    group: 'D',
    label: '自动裁切',
    params: [optEnum('type', ['transparent', 'topleft'])],
  },
  { name: 'undo', group: 'D', label: '撤销', params: [opt('steps', 'number')] },
];

/** How many tools each group holds in the spec. */
export const GROUP_COUNTS = { A: 10, B: 4, C: 49, D: 12 } as const;

/** The reduced variant: groups A and B, the first 14 tools. */
export const REDUCED_COUNT = 14;

/** DESIGN.md §2, group E: the extensions of the `extended` variant. */
export const DESIGN_GROUP_E = [
  'select_layers',
  'select_all',
  'select_rect',
  'select_layer_pixels',
  'load_channel_selection',
  'save_selection_as_channel',
  'delete_channel',
  'deselect',
  'get_canvas_image',
  'open_document',
  'place_image',
  'set_garment_photo',
  'confirm_piece_parts',
  'set_layer_fill_opacity',
  'split_pieces',
  'arrange_layer',
  'move_layers',
  'redo',
  'clear_selection',
  'scale_layer_from',
  'arrange_layers',
  'select_ellipse',
  'select_polygon',
  'select_color_region',
  'transform_layers',
  'modify_selection',
  'set_text_font',
  'set_text_spacing',
  'set_text_alignment',
  'create_paragraph_text',
  'set_text_box',
  'fill_gradient',
  'paint_stroke',
  'export_image',
  'style_text_range',
  'set_text_orientation',
  'set_text_warp',
] as const;

/**
 * A number or word the descriptions must contain. A string must appear as written; an array lists
 * alternatives of which one must appear (e.g. gamma's default may be written `1.0` or `1`).
 */
export type Mention = string | readonly string[];

/**
 * Ranges and defaults stated by SPEC §8 and §4. `mentions` must appear in the tool's description or its
 * parameters' descriptions. `min`/`max`/`default` are what the registry's `limits` must carry for the
 * parameter. `param: null` means the numbers describe the tool's result, not a parameter.
 */
export interface RangeRow {
  readonly tool: string;
  readonly param: string | null;
  readonly mentions: readonly Mention[];
  readonly min?: number;
  readonly max?: number;
  readonly default?: string | number | boolean;
}

export const SPEC_RANGES: readonly RangeRow[] = [
  // §8
  { tool: 'set_layer_opacity', param: 'opacity', mentions: ['0', '100'], min: 0, max: 100 },
  { tool: 'add_drop_shadow', param: 'opacity', mentions: ['0', '100', '75'], min: 0, max: 100, default: 75 },
  { tool: 'add_drop_shadow', param: 'angle', mentions: ['120'], default: 120 },
  { tool: 'fill_selection', param: 'opacity', mentions: ['0', '100'], min: 0, max: 100, default: 100 },
  { tool: 'adjust_brightness_contrast', param: 'brightness', mentions: ['-150', '150'], min: -150, max: 150 },
  { tool: 'adjust_brightness_contrast', param: 'contrast', mentions: ['-50', '100'], min: -50, max: 100 },
  { tool: 'adjust_levels', param: 'black', mentions: ['0', '253'], min: 0, max: 253, default: 0 },
  {
    tool: 'adjust_levels',
    param: 'gamma',
    mentions: ['0.1', '9.99', ['1.0', '1']],
    min: 0.1,
    max: 9.99,
    default: 1,
  },
  { tool: 'adjust_levels', param: 'white', mentions: ['2', '255'], min: 2, max: 255, default: 255 },
  { tool: 'adjust_hsl', param: 'hue', mentions: ['-180', '180'], min: -180, max: 180 },
  { tool: 'adjust_hsl', param: 'saturation', mentions: ['-100', '100'], min: -100, max: 100 },
  { tool: 'adjust_hsl', param: 'lightness', mentions: ['-100', '100'], min: -100, max: 100 },
  { tool: 'create_document', param: 'resolution', mentions: ['150'], default: 150 },
  { tool: 'undo', param: 'steps', mentions: ['1'], default: 1 },
  { tool: 'verify_pattern_result', param: null, mentions: ['1', '10'] },
  // §4 defaults not repeated in §8
  { tool: 'add_stroke', param: 'position', mentions: ['outside'], default: 'outside' },
  { tool: 'resize_canvas', param: 'anchor', mentions: ['center'], default: 'center' },
  { tool: 'trim_document', param: 'type', mentions: ['topleft'], default: 'topleft' },
  { tool: 'add_layer_mask', param: 'hide_all', mentions: [], default: false },
  { tool: 'delete_layer_mask', param: 'apply', mentions: [], default: false },
  { tool: 'close_document', param: 'save', mentions: [], default: false },
  { tool: 'create_text_layer', param: 'color', mentions: [['黑', 'black', '#000000', '000000']] },
];
