/** Group C: general editing tools (SPEC.md §4.3), in the spec's order. */
import { LAYER_NAMES, NAME, TEXT } from '../bounds.js';
import { defineTool } from '../types.js';

export const groupC = [
  // Layer transforms and properties.
  defineTool({
    name: 'move_layer',
    group: 'C',
    label: '移动图层',
    labelEn: 'Move Layer',
    effect: 'write',
    description:
      '按像素平移 name 指定的图层（并将其设为当前图层）。dx 为水平位移（像素），dx 正为向右、负为向左；dy 为垂直位移（像素），dy 正为向下、负为向上。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '要移动的图层名称' },
        dx: { type: 'number', description: '水平位移（像素），正为向右，负为向左' },
        dy: { type: 'number', description: '垂直位移（像素），正为向下，负为向上' },
      },
      required: ['name', 'dx', 'dy'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'resize_layer',
    group: 'C',
    label: '缩放图层',
    labelEn: 'Scale Layer',
    effect: 'write',
    description:
      '按百分比缩放 name 指定的图层（并将其设为当前图层），以图层中心为基准。100 = 不变，200 = 放大一倍，50 = 缩小一半；数值须大于 0，最大 10000。省略 scale_y 时默认等于 scale_x（等比缩放）。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '要缩放的图层名称' },
        scale_x: {
          type: 'number',
          description: '水平缩放百分比：100 = 不变，200 = 两倍，50 = 一半；大于 0，最大 10000',
        },
        scale_y: {
          type: 'number',
          description: '垂直缩放百分比：100 = 不变；大于 0，最大 10000；省略时默认等于 scale_x',
        },
      },
      required: ['name', 'scale_x'],
    },
    limits: { name: NAME, scale_x: { above: 0, max: 10000 }, scale_y: { above: 0, max: 10000 } },
  }),
  defineTool({
    name: 'rotate_layer',
    group: 'C',
    label: '旋转图层',
    labelEn: 'Rotate Layer',
    effect: 'write',
    description:
      '以图层中心为基准旋转 name 指定的图层（并将其设为当前图层）。angle 单位为度，正数为顺时针，负数为逆时针。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '要旋转的图层名称' },
        angle: { type: 'number', description: '旋转角度（度），正数为顺时针，负数为逆时针' },
      },
      required: ['name', 'angle'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'flip_layer',
    group: 'C',
    label: '翻转图层',
    labelEn: 'Flip Layer',
    effect: 'write',
    description:
      '翻转 name 指定的图层（并将其设为当前图层）：horizontal 水平翻转（左右镜像），vertical 垂直翻转（上下镜像）。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '要翻转的图层名称' },
        direction: {
          type: 'string',
          description: '翻转方向：horizontal 水平（左右镜像）、vertical 垂直（上下镜像）',
          enum: ['horizontal', 'vertical'],
        },
      },
      required: ['name', 'direction'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'set_layer_opacity',
    group: 'C',
    label: '设置透明度',
    labelEn: 'Layer Opacity',
    effect: 'write',
    idempotent: true,
    description:
      '设置 name 指定图层的不透明度（并将其设为当前图层）。opacity 为百分比，范围 0-100：0 为完全透明，100 为完全不透明。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        opacity: { type: 'number', description: '不透明度百分比，0-100：0 完全透明，100 完全不透明' },
      },
      required: ['name', 'opacity'],
    },
    limits: { name: NAME, opacity: { min: 0, max: 100 } },
  }),
  defineTool({
    name: 'set_layer_blend_mode',
    group: 'C',
    label: '设置混合模式',
    labelEn: 'Blend Mode',
    effect: 'write',
    idempotent: true,
    description:
      '设置 name 指定图层的混合模式（并将其设为当前图层）。共 16 种可选：正常、正片叠底、滤色、叠加、变暗、变亮、颜色减淡、颜色加深、柔光、强光、差值、排除、色相、饱和度、颜色、明度；对应的英文取值见 mode 参数。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        mode: {
          type: 'string',
          description:
            '混合模式：normal 正常、multiply 正片叠底、screen 滤色、overlay 叠加、darken 变暗、lighten 变亮、color_dodge 颜色减淡、color_burn 颜色加深、soft_light 柔光、hard_light 强光、difference 差值、exclusion 排除、hue 色相、saturation 饱和度、color 颜色、luminosity 明度',
          enum: [
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
          ],
        },
      },
      required: ['name', 'mode'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'set_layer_visible',
    group: 'C',
    label: '显示/隐藏图层',
    labelEn: 'Show/Hide Layer',
    effect: 'write',
    idempotent: true,
    description: '显示或隐藏 name 指定的图层（并将其设为当前图层）：visible 为 true 显示，false 隐藏。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        visible: { type: 'boolean', description: 'true 显示，false 隐藏' },
      },
      required: ['name', 'visible'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'lock_layer',
    group: 'C',
    label: '锁定图层',
    labelEn: 'Lock Layer',
    effect: 'write',
    idempotent: true,
    description:
      '锁定或解锁 name 指定的图层（并将其设为当前图层）：locked 为 true 锁定，false 解锁。锁定的图层拒绝像素、位置和属性修改；解锁总是允许。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        locked: { type: 'boolean', description: 'true 锁定，false 解锁' },
      },
      required: ['name', 'locked'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'bring_to_front',
    group: 'C',
    label: '置顶图层',
    labelEn: 'Bring to Front',
    effect: 'write',
    idempotent: true,
    description: '把 name 指定的图层移到图层堆栈的最上方（在其所在图层组内置顶），并将其设为当前图层。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '要置顶的图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'send_to_back',
    group: 'C',
    label: '置底图层',
    labelEn: 'Send to Back',
    effect: 'write',
    idempotent: true,
    description:
      '把 name 指定的图层移到图层堆栈的最下方（在其所在图层组内置底；背景图层始终在最底层），并将其设为当前图层。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '要置底的图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'rasterize_layer',
    group: 'C',
    label: '栅格化',
    labelEn: 'Rasterize Layer',
    effect: 'destructive',
    idempotent: true,
    description:
      '把 name 指定的智能对象、文字或形状图层转换为普通像素图层（并将其设为当前图层）。转换后文字不可再编辑，智能对象的原始内容被丢弃。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '要栅格化的图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'convert_to_smart_object',
    group: 'C',
    label: '转智能对象',
    labelEn: 'Convert to Smart Object',
    effect: 'write',
    idempotent: true,
    description: '把 name 指定的图层转换为智能对象（并将其设为当前图层），之后缩放、旋转不损失原始像素。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '要转换的图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'get_layer_bounds',
    group: 'C',
    label: '获取图层位置',
    labelEn: 'Layer Bounds',
    effect: 'read',
    changesContext: true,
    idempotent: true,
    description:
      '查询 name 指定图层的位置和尺寸（像素）：left 左边、top 上边、width 宽、height 高，以及中心点坐标。不修改图层内容。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '要查询的图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'get_active_layer_info',
    group: 'C',
    label: '查看当前图层',
    labelEn: 'Current Layer Info',
    effect: 'read',
    description:
      '查看当前选中（活动）图层的详细信息：名称、类型、尺寸和位置（像素）、不透明度（百分比）、混合模式、可见性、锁定状态等。不修改任何内容。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'list_all_layer_names',
    group: 'C',
    label: '列出所有图层',
    labelEn: 'List All Layers',
    effect: 'read',
    description:
      '列出当前文档中所有图层的名称（扁平列表，含图层组内的图层，从上到下），附每个图层的类型和可见性。不修改任何内容。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),

  // Text.
  defineTool({
    name: 'set_text_content',
    group: 'C',
    label: '修改文字',
    labelEn: 'Edit Text',
    effect: 'write',
    idempotent: true,
    description:
      '修改 name 指定的文字图层的文字内容（并将其设为当前图层），保留字体、字号和颜色。文字中的 \\n 表示换行。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '文字图层名称' },
        text: { type: 'string', description: '新的文字内容，\\n 表示换行' },
      },
      required: ['name', 'text'],
    },
    limits: { name: NAME, text: TEXT },
  }),
  defineTool({
    name: 'set_text_color',
    group: 'C',
    label: '修改文字颜色',
    labelEn: 'Text Color',
    effect: 'write',
    idempotent: true,
    description:
      '修改 name 指定的文字图层的文字颜色（并将其设为当前图层）。color 为十六进制颜色，如 #ff0000。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '文字图层名称' },
        color: { type: 'string', description: '文字颜色，十六进制颜色，如 #ff0000' },
      },
      required: ['name', 'color'],
    },
    limits: { name: NAME, color: { format: 'color' } },
  }),
  defineTool({
    name: 'set_text_size',
    group: 'C',
    label: '修改字号',
    labelEn: 'Font Size',
    effect: 'write',
    idempotent: true,
    description:
      '修改 name 指定的文字图层的字号（并将其设为当前图层）。size 单位为像素，须大于 0，最大 5000。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '文字图层名称' },
        size: { type: 'number', description: '字号（像素），大于 0，最大 5000' },
      },
      required: ['name', 'size'],
    },
    limits: { name: NAME, size: { above: 0, max: 5000 } },
  }),
  defineTool({
    name: 'create_text_layer',
    group: 'C',
    label: '创建文字',
    labelEn: 'New Text Layer',
    effect: 'write',
    description:
      '在当前文档中创建文字图层，放在当前选中图层的上方并设为当前图层。x、y 为文本框左上角的像素坐标（原点为画布左上角，x 向右、y 向下）；text 中的 \\n 表示换行；font_size 为字号（像素），大于 0，最大 5000；color 为十六进制颜色，默认黑色 #000000；font_name 为字体名称，省略或找不到该字体时使用内置中文字体。',
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', description: '文字内容，\\n 表示换行' },
        x: { type: 'number', description: '文本框左上角的 x 坐标（像素）' },
        y: { type: 'number', description: '文本框左上角的 y 坐标（像素）' },
        font_size: { type: 'number', description: '字号（像素），大于 0，最大 5000' },
        color: { type: 'string', description: '文字颜色，十六进制颜色，默认黑色 #000000' },
        font_name: { type: 'string', description: '字体名称；省略或找不到时使用内置中文字体' },
      },
      required: ['text', 'x', 'y', 'font_size'],
    },
    limits: {
      text: TEXT,
      font_name: NAME,
      font_size: { above: 0, max: 5000 },
      color: { format: 'color', default: '#000000' },
    },
  }),

  // Grouping, alignment, merging.
  defineTool({
    name: 'group_layers',
    group: 'C',
    label: '编组图层',
    labelEn: 'Group Layers',
    effect: 'write',
    description:
      '把 layer_names 指定的图层编入一个新建的图层组 group_name（保持它们原有的上下顺序），新图层组设为当前图层。',
    parameters: {
      type: 'object',
      properties: {
        layer_names: { type: 'array', description: '要编组的图层名称列表', items: { type: 'string' } },
        group_name: { type: 'string', description: '新图层组的名称' },
      },
      required: ['layer_names', 'group_name'],
    },
    limits: { layer_names: LAYER_NAMES, group_name: NAME },
  }),
  defineTool({
    name: 'align_layers_tool',
    group: 'C',
    label: '对齐图层',
    labelEn: 'Align Named Layers',
    effect: 'write',
    idempotent: true,
    description:
      '对齐 layer_names 指定的图层：left 左对齐、center_h 水平居中、right 右对齐、top 顶对齐、center_v 垂直居中、bottom 底对齐。指定两个及以上图层时按它们的整体外框对齐；只指定一个图层时对齐到画布。',
    parameters: {
      type: 'object',
      properties: {
        layer_names: { type: 'array', description: '要对齐的图层名称列表', items: { type: 'string' } },
        alignment: {
          type: 'string',
          description: '对齐方式：left 左、center_h 水平居中、right 右、top 顶、center_v 垂直居中、bottom 底',
          enum: ['left', 'center_h', 'right', 'top', 'center_v', 'bottom'],
        },
      },
      required: ['layer_names', 'alignment'],
    },
    limits: { layer_names: LAYER_NAMES },
  }),
  defineTool({
    name: 'distribute_layers',
    group: 'C',
    label: '分布图层',
    labelEn: 'Distribute Layers',
    effect: 'write',
    idempotent: true,
    description:
      '让 layer_names 指定的图层（至少 3 个）沿 direction 方向等间距分布：horizontal 水平分布，vertical 垂直分布。最外侧的两个图层保持不动，其余图层移动到使相邻图层之间的空隙相等。',
    parameters: {
      type: 'object',
      properties: {
        layer_names: { type: 'array', description: '要分布的图层名称列表', items: { type: 'string' } },
        direction: {
          type: 'string',
          description: '分布方向：horizontal 水平、vertical 垂直',
          enum: ['horizontal', 'vertical'],
        },
      },
      required: ['layer_names', 'direction'],
    },
    limits: { layer_names: LAYER_NAMES },
  }),
  defineTool({
    name: 'merge_visible',
    group: 'C',
    label: '合并可见',
    labelEn: 'Merge Visible',
    effect: 'destructive',
    description: '把当前文档中所有可见图层合并为一个像素图层；隐藏图层保持不变。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'flatten_image',
    group: 'C',
    label: '拼合图像',
    labelEn: 'Flatten Image',
    effect: 'destructive',
    description: '把当前文档的所有图层拼合到背景图层中，结果只剩一个背景图层；隐藏图层会被丢弃。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'copy_merged_to_new_layer',
    group: 'C',
    label: '复制合并',
    labelEn: 'Copy Merged',
    effect: 'write',
    description:
      '把当前文档所有可见内容合并复制到一个新的像素图层（盖印可见图层），原图层保持不变；新图层放在当前选中图层上方并设为当前图层。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),

  // Effects, masks, adjustments.
  defineTool({
    name: 'add_stroke',
    group: 'C',
    label: '添加描边',
    labelEn: 'Stroke',
    effect: 'write',
    description:
      '为 name 指定的图层添加描边图层样式（并将其设为当前图层）。描边宽度 size 以像素为单位，须大于 0、不超过 250；描边颜色 color 为十六进制颜色；描边位置 position 可选外部（outside）、内部（inside）或居中（center），默认 outside（外部）。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        size: { type: 'number', description: '描边宽度（像素），大于 0，最大 250' },
        color: { type: 'string', description: '描边颜色，十六进制颜色，如 #000000' },
        position: {
          type: 'string',
          description: '描边位置：outside 外部、inside 内部、center 居中；默认 outside',
          enum: ['outside', 'inside', 'center'],
        },
      },
      required: ['name', 'size', 'color'],
    },
    limits: {
      name: NAME,
      size: { above: 0, max: 250 },
      color: { format: 'color' },
      position: { default: 'outside' },
    },
  }),
  defineTool({
    name: 'add_drop_shadow',
    group: 'C',
    label: '添加投影',
    labelEn: 'Drop Shadow',
    effect: 'write',
    description:
      '为 name 指定的图层添加投影图层样式（并将其设为当前图层）。distance 为投影距离（像素，0-30000）；size 为模糊大小（像素，0-250）；opacity 为不透明度百分比，0-100，默认 75；angle 为光源角度（度），-360 到 360，默认 120（120 使投影投向右下方）。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        distance: { type: 'number', description: '投影距离（像素），0-30000' },
        size: { type: 'number', description: '模糊大小（像素），0-250' },
        opacity: { type: 'number', description: '投影不透明度百分比，0-100，默认 75' },
        angle: { type: 'number', description: '光源角度（度），-360 到 360，默认 120（投影投向右下方）' },
      },
      required: ['name', 'distance', 'size'],
    },
    limits: {
      name: NAME,
      distance: { min: 0, max: 30000 },
      size: { min: 0, max: 250 },
      opacity: { min: 0, max: 100, default: 75 },
      angle: { default: 120, min: -360, max: 360 },
    },
  }),
  defineTool({
    name: 'clear_layer_effects',
    group: 'C',
    label: '清除图层样式',
    labelEn: 'Clear Layer Style',
    effect: 'destructive',
    idempotent: true,
    description: '清除 name 指定图层的所有图层样式（投影、描边、发光等），图层像素不变，并将其设为当前图层。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'create_clipping_mask',
    group: 'C',
    label: '创建剪贴蒙版',
    labelEn: 'Create Clipping Mask',
    effect: 'write',
    idempotent: true,
    description:
      '为 name 指定的图层创建剪贴蒙版（并将其设为当前图层）：该图层只在其下方图层的形状（不透明区域）内显示。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '要剪贴到下方图层的图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'release_clipping_mask',
    group: 'C',
    label: '释放剪贴蒙版',
    labelEn: 'Release Clipping Mask',
    effect: 'write',
    idempotent: true,
    description:
      '释放 name 指定图层的剪贴蒙版（并将其设为当前图层），该图层恢复完整显示；与 Photoshop 相同，其上方同一剪贴组中的图层也一并释放。若该图层是剪贴组的基底，则释放剪贴到它的所有图层。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'add_layer_mask',
    group: 'C',
    label: '添加蒙版',
    labelEn: 'Add Layer Mask',
    effect: 'write',
    description:
      '为 name 指定的图层添加图层蒙版（并将其设为当前图层）。hide_all 默认 false：为 true 时添加全黑蒙版（隐藏全部）；为 false 时，若当前有选区，则按选区生成蒙版（选区内显示、选区外隐藏，选区随之取消），没有选区时添加全白蒙版（显示全部）。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        hide_all: {
          type: 'boolean',
          description:
            'true 添加全黑蒙版（隐藏全部）；false 按当前选区生成蒙版，无选区时为全白蒙版；默认 false',
        },
      },
      required: ['name'],
    },
    limits: { name: NAME, hide_all: { default: false } },
  }),
  defineTool({
    name: 'delete_layer_mask',
    group: 'C',
    label: '删除蒙版',
    labelEn: 'Delete Layer Mask',
    effect: 'destructive',
    description:
      '删除 name 指定图层的图层蒙版（并将其设为当前图层）。apply 默认 false：为 true 时先把蒙版应用到图层像素再删除；为 false 时直接丢弃蒙版，像素不变。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        apply: { type: 'boolean', description: 'true 先应用蒙版再删除；false 直接丢弃蒙版；默认 false' },
      },
      required: ['name'],
    },
    limits: { name: NAME, apply: { default: false } },
  }),
  defineTool({
    name: 'adjust_brightness_contrast',
    group: 'C',
    label: '亮度/对比度',
    labelEn: 'Brightness/Contrast',
    effect: 'write',
    description:
      '调整当前选中图层的亮度和对比度。brightness 亮度范围 -150 到 150，contrast 对比度范围 -50 到 100；0 表示不变，正数增加，负数降低。',
    parameters: {
      type: 'object',
      properties: {
        brightness: { type: 'number', description: '亮度，-150 到 150，0 为不变' },
        contrast: { type: 'number', description: '对比度，-50 到 100，0 为不变' },
      },
      required: ['brightness', 'contrast'],
    },
    limits: { brightness: { min: -150, max: 150 }, contrast: { min: -50, max: 100 } },
  }),
  defineTool({
    name: 'desaturate',
    group: 'C',
    label: '去色',
    labelEn: 'Desaturate',
    effect: 'write',
    idempotent: true,
    description: '去除当前选中图层的颜色，使其变为灰度（保留透明度）。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'gaussian_blur',
    group: 'C',
    label: '高斯模糊',
    labelEn: 'Gaussian Blur',
    effect: 'write',
    description: '对当前选中图层应用高斯模糊。radius 为模糊半径（像素），范围 0.1 到 1000。',
    parameters: {
      type: 'object',
      properties: { radius: { type: 'number', description: '模糊半径（像素），0.1 到 1000' } },
      required: ['radius'],
    },
    limits: { radius: { min: 0.1, max: 1000 } },
  }),
  defineTool({
    name: 'auto_levels',
    group: 'C',
    label: '自动色阶',
    labelEn: 'Auto Levels',
    effect: 'write',
    description: '对当前选中图层执行自动色阶：分别拉伸各颜色通道的色阶范围。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'auto_contrast',
    group: 'C',
    label: '自动对比度',
    labelEn: 'Auto Contrast',
    effect: 'write',
    description: '对当前选中图层执行自动对比度：整体拉伸明暗范围，不改变色相。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'invert_colors',
    group: 'C',
    label: '反相',
    labelEn: 'Invert',
    effect: 'write',
    description: '反转当前选中图层的颜色（负片效果，保留透明度）。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'adjust_levels',
    group: 'C',
    label: '色阶',
    labelEn: 'Levels',
    effect: 'write',
    description:
      '调整当前选中图层的输入色阶。black 黑场，范围 0-253，默认 0；gamma 中间调，范围 0.1-9.99，默认 1.0，小于 1 变暗、大于 1 变亮；white 白场，范围 2-255，默认 255，须大于 black。三个参数都必须提供，不需调整的参数请传默认值（0、1.0、255）。',
    parameters: {
      type: 'object',
      properties: {
        black: { type: 'number', description: '输入黑场，0-253，默认 0' },
        gamma: { type: 'number', description: '中间调 gamma，0.1-9.99，默认 1.0；小于 1 变暗，大于 1 变亮' },
        white: { type: 'number', description: '输入白场，2-255，默认 255，须大于 black' },
      },
      required: ['black', 'gamma', 'white'],
    },
    limits: {
      black: { min: 0, max: 253, default: 0 },
      gamma: { min: 0.1, max: 9.99, default: 1 },
      white: { min: 2, max: 255, default: 255 },
    },
  }),
  defineTool({
    name: 'adjust_hsl',
    group: 'C',
    label: '色相/饱和度',
    labelEn: 'Hue/Saturation',
    effect: 'write',
    description:
      '调整当前选中图层的色相、饱和度和明度。hue 色相偏移（度），-180 到 180；saturation 饱和度，-100 到 100；lightness 明度，-100 到 100；0 表示不变。',
    parameters: {
      type: 'object',
      properties: {
        hue: { type: 'number', description: '色相偏移（度），-180 到 180，0 为不变' },
        saturation: { type: 'number', description: '饱和度，-100 到 100，0 为不变' },
        lightness: { type: 'number', description: '明度，-100 到 100，0 为不变' },
      },
      required: ['hue', 'saturation', 'lightness'],
    },
    limits: {
      hue: { min: -180, max: 180 },
      saturation: { min: -100, max: 100 },
      lightness: { min: -100, max: 100 },
    },
  }),
  defineTool({
    name: 'convert_to_rgb',
    group: 'C',
    label: '转RGB',
    labelEn: 'RGB Color',
    effect: 'write',
    idempotent: true,
    description: '把当前文档转换为 RGB 颜色模式。已是 RGB 时不做改变。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'convert_to_cmyk',
    group: 'C',
    label: '转CMYK',
    labelEn: 'CMYK Color',
    effect: 'destructive',
    idempotent: true,
    description:
      '把当前文档转换为 CMYK 颜色模式（用于印刷）。颜色按 ICC 配置文件转换，超出 CMYK 色域的颜色会被裁剪。已是 CMYK 时不做改变。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),

  // Selection, colour, guides.
  defineTool({
    name: 'fill_selection',
    group: 'C',
    label: '填充选区',
    labelEn: 'Fill Selection',
    effect: 'write',
    description:
      '在当前选中的像素图层上，用 color（十六进制颜色）填充当前选区；没有选区时填充整个图层。opacity 为填充不透明度百分比，0-100，默认 100。',
    parameters: {
      type: 'object',
      properties: {
        color: { type: 'string', description: '填充颜色，十六进制颜色，如 #ff0000' },
        opacity: { type: 'number', description: '填充不透明度百分比，0-100，默认 100' },
      },
      required: ['color'],
    },
    limits: { color: { format: 'color' }, opacity: { min: 0, max: 100, default: 100 } },
  }),
  defineTool({
    name: 'inverse_selection',
    group: 'C',
    label: '反选',
    labelEn: 'Select Inverse',
    effect: 'write',
    description:
      '反转当前文档的选区：原来选中的区域变为未选中，未选中的区域变为选中；没有选区时选中整个画布。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'feather_selection',
    group: 'C',
    label: '羽化选区',
    labelEn: 'Feather Selection',
    effect: 'write',
    description:
      '羽化当前文档选区的边缘，使其柔和过渡。radius 为羽化半径（像素），范围 0.1 到 1000。需要已有选区。',
    parameters: {
      type: 'object',
      properties: { radius: { type: 'number', description: '羽化半径（像素），0.1 到 1000' } },
      required: ['radius'],
    },
    limits: { radius: { min: 0.1, max: 1000 } },
  }),
  defineTool({
    name: 'set_foreground_color',
    group: 'C',
    label: '设置前景色',
    labelEn: 'Set Foreground Color',
    effect: 'write',
    idempotent: true,
    description: '设置当前前景色。color 为十六进制颜色，如 #ff0000。',
    parameters: {
      type: 'object',
      properties: { color: { type: 'string', description: '前景色，十六进制颜色，如 #ff0000' } },
      required: ['color'],
    },
    limits: { color: { format: 'color' } },
  }),
  defineTool({
    name: 'get_pixel_color',
    group: 'C',
    label: '取色',
    labelEn: 'Eyedropper',
    effect: 'read',
    description:
      '读取当前文档画布（合成后的可见图像）在像素坐标 x、y 处的颜色，返回十六进制颜色。原点为画布左上角，x 向右、y 向下，坐标不小于 0。不修改任何内容。',
    parameters: {
      type: 'object',
      properties: {
        x: { type: 'number', description: 'x 坐标（像素），从画布左边起，不小于 0' },
        y: { type: 'number', description: 'y 坐标（像素），从画布上边起，不小于 0' },
      },
      required: ['x', 'y'],
    },
    limits: { x: { min: 0 }, y: { min: 0 } },
  }),
  defineTool({
    name: 'add_guide',
    group: 'C',
    label: '添加参考线',
    labelEn: 'New Guide',
    effect: 'write',
    description:
      '在当前文档中添加一条参考线。水平参考线（horizontal）的位置是它到画布上边的距离（纵坐标），垂直参考线（vertical）的位置是它到画布左边的距离（横坐标）；位置单位为像素，不小于 0。',
    parameters: {
      type: 'object',
      properties: {
        position: {
          type: 'number',
          description: '参考线位置（像素），不小于 0：水平参考线为 y，垂直参考线为 x',
        },
        direction: {
          type: 'string',
          description: '方向：horizontal 水平、vertical 垂直',
          enum: ['horizontal', 'vertical'],
        },
      },
      required: ['position', 'direction'],
    },
    limits: { position: { min: 0 } },
  }),
  defineTool({
    name: 'clear_guides',
    group: 'C',
    label: '清除参考线',
    labelEn: 'Clear Guides',
    effect: 'destructive',
    idempotent: true,
    description: '清除当前文档中的所有参考线，不影响图层内容。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
] as const;
