/** Group E: extensions (DESIGN.md §2), published only in the `extended` variant. */
import { HISTORY_MAX_STEPS, LAYER_NAMES, NAME, NEW_NAME, PATH, PIECES_MAX_ITEMS } from '../bounds.js';
import { formatNames, IMAGE_FORMATS, READ_FORMATS } from '../file-formats.js';
import { GARMENT_PARTS, GARMENT_TILT_MAX, GARMENT_TURNS } from '../garment-parts.js';
import { defineTool } from '../types.js';
import { ANCHORS, SCALE_LIMITS, SCALE_PROPERTIES } from './scale-params.js';
import {
  EDGE_PROPERTIES,
  MODE_LIMITS,
  MODE_PROPERTY,
  MODE_SENTENCE,
  POLYGON_MAX_POINTS,
  REACH_LIMITS,
  SHAPE_REACH,
} from './selection-params.js';
import {
  JUSTIFICATIONS,
  MAX_INDENT,
  MAX_LEADING,
  POINT_JUSTIFICATIONS,
  TRACKING_MAX,
  TRACKING_MIN,
} from './text-params.js';

const PART_NAMES = GARMENT_PARTS.map(([part, zh]) => `${part} ${zh}`).join('、');

export const groupE = [
  defineTool({
    name: 'select_layers',
    group: 'E',
    toolset: 'arrange',
    label: '选择图层',
    labelEn: 'Select Layers',
    effect: 'write',
    idempotent: true,
    description:
      '在当前文档中选中 names 指定的图层（供 align_layers、merge_layers 等作用于“选中图层”的工具使用），第一个图层设为当前图层。add 默认 false：为 false 时替换当前的图层选择；为 true 时加入到当前的图层选择中。',
    parameters: {
      type: 'object',
      properties: {
        names: { type: 'array', description: '要选中的图层名称列表', items: { type: 'string' } },
        add: { type: 'boolean', description: 'true 加入当前图层选择；false 替换当前图层选择；默认 false' },
      },
      required: ['names'],
    },
    limits: { names: LAYER_NAMES, add: { default: false } },
  }),
  defineTool({
    name: 'select_all',
    group: 'E',
    toolset: 'selection',
    label: '全选',
    labelEn: 'Select All',
    effect: 'write',
    idempotent: true,
    description: '选中当前文档的整个画布作为选区，替换原有选区。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'select_rect',
    group: 'E',
    toolset: 'selection',
    label: '矩形选区',
    labelEn: 'Rectangular Marquee',
    effect: 'write',
    idempotent: true,
    description: `在当前文档中建立矩形选区。四个参数是矩形四条边的坐标（像素，原点为画布左上角）：left 左边、top 上边、right 右边、bottom 下边；须 right > left、bottom > top。${MODE_SENTENCE}`,
    parameters: {
      type: 'object',
      properties: { ...EDGE_PROPERTIES, ...MODE_PROPERTY },
      required: ['left', 'top', 'right', 'bottom'],
    },
    limits: MODE_LIMITS,
  }),
  defineTool({
    name: 'select_layer_pixels',
    group: 'E',
    toolset: 'selection',
    label: '载入图层选区',
    labelEn: 'Load Layer Selection',
    effect: 'write',
    idempotent: true,
    description:
      '以 name 指定图层的非透明像素建立选区（如同按住 Ctrl 单击图层缩览图），替换原有选区，并将该图层设为当前图层。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '图层名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'deselect',
    group: 'E',
    toolset: 'selection',
    label: '取消选择',
    labelEn: 'Deselect',
    effect: 'write',
    idempotent: true,
    description: '取消当前文档的选区（之后没有选区）。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'get_canvas_image',
    group: 'E',
    toolset: 'core',
    label: '查看画布',
    labelEn: 'View Canvas',
    effect: 'read',
    description:
      '查看当前文档的画布：返回当前合成图像的 PNG 图片，按比例缩放到长边不超过 max_size（像素，整数，16-4096，默认 1024），不放大。不修改任何内容。',
    parameters: {
      type: 'object',
      properties: {
        max_size: { type: 'number', description: '图片长边的最大像素数，整数，16-4096，默认 1024' },
      },
      required: [],
    },
    limits: { max_size: { default: 1024, min: 16, max: 4096, integer: true } },
  }),
  defineTool({
    name: 'open_document',
    group: 'E',
    toolset: 'core',
    label: '打开文档',
    labelEn: 'Open',
    effect: 'write',
    description: `打开工作区中的 ${formatNames(READ_FORMATS)} 文件，并设为当前（活动）文档。path 为相对于工作区的文件路径。`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: '文件路径，相对于工作区，如 input/shirt.psd' } },
      required: ['path'],
    },
    limits: { path: PATH },
  }),
  defineTool({
    name: 'place_image',
    group: 'E',
    toolset: 'layers',
    label: '置入图像',
    labelEn: 'Place Image',
    effect: 'write',
    description: `把工作区中的 ${formatNames(READ_FORMATS)} 文件作为智能对象图层置入当前文档，放在当前选中图层的上方、在画布中居中，并设为当前图层。path 为相对于工作区的文件路径；name 为新图层名称，省略时使用文件名。size 为置入大小：auto（默认，同 Photoshop 的置入）按文件记录的分辨率保持实际尺寸（文件未记录分辨率时一个像素对一个像素），比画布大时等比缩小到画布内；pixels 一个像素对一个像素，不缩放；fit 等比缩放到恰好放进画布（放大或缩小）。智能对象保留原图像素，之后缩放不损失画质。结果给出缩放比例 scale（百分比）和置入后的宽高。`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: '图像文件路径，相对于工作区' },
        name: { type: 'string', description: '新图层名称；省略时使用文件名' },
        size: {
          type: 'string',
          description:
            '置入大小：auto 按分辨率保持实际尺寸、大于画布时缩小到画布内，pixels 原像素大小，fit 缩放到画布内；默认 auto',
          enum: ['auto', 'pixels', 'fit'],
        },
      },
      required: ['path'],
    },
    limits: { name: NEW_NAME, path: PATH, size: { default: 'auto' } },
  }),
  defineTool({
    name: 'set_garment_photo',
    group: 'E',
    toolset: 'garment',
    label: '设置服装照片',
    labelEn: 'Set Garment Photo',
    effect: 'read',
    changesContext: true,
    idempotent: true,
    description: `把工作区中的一个图像文件（${formatNames(IMAGE_FORMATS)}）标记为用户上传的服装照片，供 identify_pieces、generate_garment_preview、extract_and_apply_all_pieces 和 verify_pattern_result 使用；用于没有上传接口的场合（MCP、命令行）。path 为相对于工作区的文件路径。不修改任何文档；换一张照片后，需要重新调用 identify_pieces 和 generate_garment_preview。`,
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: `服装照片的文件路径（${formatNames(IMAGE_FORMATS)}），相对于工作区`,
        },
      },
      required: ['path'],
    },
    limits: { path: PATH },
  }),
  defineTool({
    name: 'confirm_piece_parts',
    group: 'E',
    toolset: 'garment',
    label: '确认裁片部位',
    labelEn: 'Confirm Piece Parts',
    effect: 'read',
    changesContext: true,
    idempotent: true,
    openWorld: true,
    description: `记录用户确认或更正的裁片部位（identify_pieces 的结果 needs_confirmation 为 true、用户回答之后调用）：pieces 中每项把一个裁片图层定为指定部位，其余裁片围绕它们按整件服装的搭配重新判断（例如确认一片为后片，与它同形的另一片就是前片）。确认按文档保存在会话中，之后再调用 identify_pieces 也保持（中间识别过其他文档也不丢失）；pieces 为空数组时清除当前文档的所有确认。不修改文档。返回与 identify_pieces 相同的结果（含新的裁片总览图）；部位变了时，下一步调用 generate_garment_preview 重新生成预览。部位可选：${PART_NAMES}。识别结果中裁片的 turn（在版图上转过的角度）不对时，在该项加 turn 更正；裁片在版图上斜放、识别结果没有读出或读错了 tilt（左右不对称的裁片如半片、两片袖读不出）时，在该项加 tilt。`,
    parameters: {
      type: 'object',
      properties: {
        pieces: {
          type: 'array',
          description: '用户确认的裁片，每项一个裁片图层；空数组清除当前文档的所有确认',
          items: {
            type: 'object',
            properties: {
              name: {
                type: 'string',
                description:
                  '裁片图层名称（图层名，不是部位名；几个裁片图层同名时用 identify_pieces 结果中的名称，如“图层 1#2”）',
              },
              part: {
                type: 'string',
                description: `部位：${PART_NAMES}`,
                enum: GARMENT_PARTS.map(([part]) => part),
              },
              turn: {
                type: 'number',
                description: `可选：裁片在版图上相对于它在服装上正放（领口或腰口朝上、布纹竖直）顺时针转过的角度：${GARMENT_TURNS.join('、')}；花样按服装上的方向印在裁片上。省略时保留已确认的方向，没有确认过则按识别结果`,
              },
              tilt: {
                type: 'number',
                description: `可选：裁片在版图上斜放的角度（度，顺时针为正，-${GARMENT_TILT_MAX} 到 ${GARMENT_TILT_MAX}），在 turn 之外再转的角度；花样顺着裁片印。0 表示没有斜放。省略时保留已确认的角度，没有确认过则按识别结果（结果中的 tilt）`,
              },
            },
            required: ['name', 'part'],
          },
        },
      },
      required: ['pieces'],
    },
    limits: {
      pieces: {
        maxItems: PIECES_MAX_ITEMS,
        items: {
          name: NAME,
          turn: { min: 0, max: 270, integer: true },
          tilt: { min: -GARMENT_TILT_MAX, max: GARMENT_TILT_MAX },
        },
      },
    },
  }),
  defineTool({
    name: 'set_layer_fill_opacity',
    group: 'E',
    toolset: 'layers',
    label: '设置填充不透明度',
    labelEn: 'Fill Opacity',
    effect: 'write',
    idempotent: true,
    description:
      '设置 name 指定图层的填充不透明度（Photoshop 的“填充”，并将其设为当前图层）。与 set_layer_opacity 不同，它只淡化图层自身的像素，不淡化图层样式（描边、投影）：填充为 0、保留描边，得到只有轮廓的文字或形状。fill_opacity 为百分比，范围 0-100。图层组没有填充不透明度。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '图层名称' },
        fill_opacity: {
          type: 'number',
          description: '填充不透明度百分比，0-100：0 图层自身像素完全透明（图层样式仍显示），100 完全不透明',
        },
      },
      required: ['name', 'fill_opacity'],
    },
    limits: { name: NAME, fill_opacity: { min: 0, max: 100 } },
  }),
  defineTool({
    name: 'split_pieces',
    group: 'E',
    toolset: 'garment',
    label: '拆分裁片',
    labelEn: 'Split Into Pieces',
    effect: 'write',
    description:
      '把一个图层上的多个裁片拆成每片一个图层（裁片工具要求每个裁片一个图层）：用于排料图的所有裁片都在同一个图层上（CAD 导出的单张 PNG、合并过的 PSD），或排料图是一张平面图像（白底或纯色底的 JPG/PNG，裁片填色或只画轮廓线）。透明图层按不透明区域（不透明度 ≥ 50%）找裁片；不透明图层（背景、JPG）按边缘的底色找出与底色不同的区域。每个区域连同其中封闭的部分（轮廓线内部、裁片上的文字和布纹线）成为一个新的像素图层，从上到下、从左到右依次命名为“裁片 1”“裁片 2”…，放在原图层上方；原图层被隐藏（不删除）。太小的区域（小于最大区域面积的 0.2%，如杂点、剪口标记、文字）不算裁片，在结果的 ignored 中计数。name 省略时拆分当前图层（或文档中唯一的像素图层）。相互接触的裁片会被当作一片。拆分后调用 identify_pieces 识别各裁片的部位。',
    parameters: {
      type: 'object',
      properties: {
        name: {
          type: 'string',
          description: '要拆分的图层名称；省略时为当前图层，或文档中唯一的像素图层',
        },
      },
      required: [],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'arrange_layer',
    group: 'E',
    toolset: 'layers',
    label: '排列图层',
    labelEn: 'Arrange Layer',
    effect: 'write',
    description:
      '调整 name 指定图层在图层堆栈中的位置（如 Photoshop 的“排列”和在图层面板中拖动），并将其设为当前图层。position：forward 前移一层、backward 后移一层（都在所在图层组内）；above 移到 reference 图层之上、below 移到 reference 图层之下（与 reference 同属一个图层组，可借此移入或移出图层组）；inside 移入图层组 reference（组内最上方）。above、below、inside 须给出 reference。背景图层始终在最底层，不能移动，其他图层也不能移到它下面；锁定的图层可以调整顺序。移入剪贴蒙版中间（上方的图层是剪贴图层）的图层也成为剪贴图层。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '要移动的图层名称' },
        position: {
          type: 'string',
          description:
            '目标位置：above 参照图层之上、below 参照图层之下、inside 参照图层组内最上方、forward 前移一层、backward 后移一层',
          enum: ['above', 'below', 'inside', 'forward', 'backward'],
        },
        reference: {
          type: 'string',
          description: '参照图层（或图层组）名称；position 为 above、below、inside 时必填',
        },
      },
      required: ['name', 'position'],
    },
    limits: { name: NAME, reference: NAME },
  }),
  defineTool({
    name: 'move_layers',
    group: 'E',
    toolset: 'layers',
    label: '移动多个图层',
    labelEn: 'Move Layers',
    effect: 'write',
    description:
      '把 layer_names 指定的图层一起按像素平移（如 Photoshop 中选中多个图层后用移动工具拖动或用方向键微移），作为一个历史步骤，一次撤销即可全部复原；这些图层成为选中的图层，第一个为当前图层。dx 为水平位移（像素），正为向右、负为向左；dy 为垂直位移（像素），正为向下、负为向上。图层组连同其中的图层一起移动；同时列出的组内图层不会被重复移动。任何一个图层不能移动（背景、位置被锁定）时，所有图层都不移动。',
    parameters: {
      type: 'object',
      properties: {
        layer_names: { type: 'array', description: '要一起移动的图层名称列表', items: { type: 'string' } },
        dx: { type: 'number', description: '水平位移（像素），正为向右，负为向左' },
        dy: { type: 'number', description: '垂直位移（像素），正为向下，负为向上' },
      },
      required: ['layer_names', 'dx', 'dy'],
    },
    limits: { layer_names: LAYER_NAMES },
  }),
  defineTool({
    name: 'redo',
    group: 'E',
    toolset: 'core',
    label: '重做',
    labelEn: 'Redo',
    effect: 'destructive',
    description: `重做当前文档中被撤销的操作。steps 为重做步数，整数，不小于 1，默认 1；不需要任何参数。每个文档最多保留 ${HISTORY_MAX_STEPS} 个历史记录状态（同 Photoshop 的默认设置）。`,
    parameters: {
      type: 'object',
      properties: { steps: { type: 'number', description: '重做步数，整数，不小于 1，默认 1' } },
      required: [],
    },
    limits: { steps: { default: 1, min: 1, integer: true } },
  }),
  defineTool({
    name: 'clear_selection',
    group: 'E',
    toolset: 'selection',
    label: '清除选区内容',
    labelEn: 'Clear',
    effect: 'write',
    description:
      '删除当前选中的像素图层在选区内的像素，使其变为透明（如 Photoshop 的“编辑 > 清除”，在有选区时按 Delete 键）；羽化的选区边缘按选中程度部分透明。需要已有选区；选区外的像素不变，选区保留。背景图层和锁定透明像素的图层没有可清除的透明度，请改用 fill_selection 填充颜色；文字图层和智能对象须先用 rasterize_layer 栅格化。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'scale_layer_from',
    group: 'E',
    toolset: 'layers',
    label: '按参考点缩放',
    labelEn: 'Scale from Reference Point',
    effect: 'write',
    description: `以参考点为基准按百分比缩放 name 指定的图层（并将其设为当前图层），如 Photoshop 自由变换时拖动角点或边点：参考点固定不动，例如 anchor 为 top_left 时左上角不动、向右下方缩放。anchor 为图层内容边界上的参考点：${ANCHORS.join('、')}，默认 center（与 resize_layer 相同）。scale_x、scale_y 为水平、垂直缩放百分比：100 = 不变，200 = 两倍，50 = 一半；大于 0，最大 10000；省略 scale_y 时等于 scale_x（等比缩放）。文字图层等比缩放时改变字号，保持可编辑；智能对象保留原始像素。`,
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '要缩放的图层名称' },
        ...SCALE_PROPERTIES,
        anchor: {
          type: 'string',
          description: '固定不动的参考点（图层内容边界上），默认 center',
          enum: ANCHORS,
        },
      },
      required: ['name', 'scale_x'],
    },
    limits: {
      name: NAME,
      ...SCALE_LIMITS,
      anchor: { default: 'center' },
    },
  }),
  defineTool({
    name: 'arrange_layers',
    group: 'E',
    toolset: 'layers',
    label: '排列多个图层',
    labelEn: 'Arrange Layers',
    effect: 'write',
    description:
      '把 layer_names 指定的多个图层作为一组移到图层堆栈中的新位置（如 Photoshop 中选中多个图层后在图层面板中拖动），保持它们原来的上下顺序并紧挨在一起，作为一个历史步骤；这些图层成为选中的图层。position：above 移到 reference 图层之上、below 移到 reference 图层之下（与 reference 同属一个图层组，可借此移入或移出图层组）、inside 移入图层组 reference（组内最上方）。图层组连同其中的图层一起移动；同时列出的组内图层不会被单独移动。背景图层不能移动，其他图层也不能移到它下面；reference 不能是要移动的图层之一或在其中。移入剪贴蒙版中间的图层成为剪贴图层。',
    parameters: {
      type: 'object',
      properties: {
        layer_names: { type: 'array', description: '要一起移动的图层名称列表', items: { type: 'string' } },
        position: {
          type: 'string',
          description: '目标位置：above 参照图层之上、below 参照图层之下、inside 参照图层组内最上方',
          enum: ['above', 'below', 'inside'],
        },
        reference: { type: 'string', description: '参照图层（或图层组）名称' },
      },
      required: ['layer_names', 'position', 'reference'],
    },
    limits: { layer_names: LAYER_NAMES, reference: NAME },
  }),
  defineTool({
    name: 'select_ellipse',
    group: 'E',
    toolset: 'selection',
    label: '椭圆选区',
    labelEn: 'Elliptical Marquee',
    effect: 'write',
    idempotent: true,
    description: `在当前文档中建立椭圆选区（边缘消除锯齿，如 Photoshop 的椭圆选框工具）：椭圆内切于 left、top、right、bottom 四条边围成的矩形（像素，原点为画布左上角；宽高相等时为圆）；须 right > left、bottom > top，坐标在 ±${SHAPE_REACH} 以内。超出画布的部分裁掉。${MODE_SENTENCE}`,
    parameters: {
      type: 'object',
      properties: { ...EDGE_PROPERTIES, ...MODE_PROPERTY },
      required: ['left', 'top', 'right', 'bottom'],
    },
    limits: {
      left: REACH_LIMITS,
      top: REACH_LIMITS,
      right: REACH_LIMITS,
      bottom: REACH_LIMITS,
      ...MODE_LIMITS,
    },
  }),
  defineTool({
    name: 'select_polygon',
    group: 'E',
    toolset: 'selection',
    label: '多边形套索',
    labelEn: 'Polygonal Lasso',
    effect: 'write',
    idempotent: true,
    description: `在当前文档中建立多边形选区（边缘消除锯齿，如 Photoshop 的多边形套索和套索工具）：points 为多边形的顶点（像素坐标，原点为画布左上角），依次用直线连接，最后一点自动连回第一点；至少 3 个点，最多 ${POLYGON_MAX_POINTS} 个，坐标在 ±${SHAPE_REACH} 以内。边线自相交时，被围住奇数次的区域被选中。超出画布的部分裁掉。${MODE_SENTENCE}`,
    parameters: {
      type: 'object',
      properties: {
        points: {
          type: 'array',
          description: '多边形的顶点，依次连接并自动闭合，至少 3 个',
          items: {
            type: 'object',
            properties: {
              x: { type: 'number', description: '顶点 x 坐标（像素）' },
              y: { type: 'number', description: '顶点 y 坐标（像素）' },
            },
            required: ['x', 'y'],
          },
        },
        ...MODE_PROPERTY,
      },
      required: ['points'],
    },
    limits: {
      points: { maxItems: POLYGON_MAX_POINTS, items: { x: REACH_LIMITS, y: REACH_LIMITS } },
      ...MODE_LIMITS,
    },
  }),
  defineTool({
    name: 'select_color_region',
    group: 'E',
    toolset: 'selection',
    label: '魔棒',
    labelEn: 'Magic Wand',
    effect: 'write',
    idempotent: true,
    description: `以 (x, y) 处像素的颜色建立选区（如 Photoshop 的魔棒工具）：与该颜色在每个通道（红、绿、蓝和不透明度）上相差都不超过 tolerance 的像素被选中。tolerance 为容差，整数 0-255，默认 32，0 只选完全相同的颜色。contiguous 默认 true：只选与 (x, y) 相连的区域（上下左右相邻）；false 时选中整个画布上所有颜色相近的像素。sample_all_layers 默认 false：按当前图层的像素取色和比较（透明像素彼此相同）；true 时按所有可见图层合成后的画面。x、y 为画布内的像素坐标。${MODE_SENTENCE}`,
    parameters: {
      type: 'object',
      properties: {
        x: { type: 'number', description: '取色点 x 坐标（像素，画布内）' },
        y: { type: 'number', description: '取色点 y 坐标（像素，画布内）' },
        tolerance: { type: 'number', description: '容差，整数 0-255，默认 32' },
        contiguous: {
          type: 'boolean',
          description: '连续：true 只选与取色点相连的区域（默认）；false 选中整个画布上颜色相近的像素',
        },
        sample_all_layers: {
          type: 'boolean',
          description: '对所有图层取样：true 按所有可见图层的合成画面取色；false 按当前图层（默认）',
        },
        ...MODE_PROPERTY,
      },
      required: ['x', 'y'],
    },
    limits: {
      x: { min: 0 },
      y: { min: 0 },
      tolerance: { default: 32, min: 0, max: 255, integer: true },
      contiguous: { default: true },
      sample_all_layers: { default: false },
      ...MODE_LIMITS,
    },
  }),
  defineTool({
    name: 'transform_layers',
    group: 'E',
    toolset: 'layers',
    label: '变换多个图层',
    labelEn: 'Transform Layers',
    effect: 'write',
    description: `把 layer_names 指定的多个图层作为一个整体缩放或旋转（如 Photoshop 中选中多个图层后的自由变换），一个历史步骤；这些图层成为选中的图层。参考点 anchor 在这些图层内容的合并边界上：${ANCHORS.join('、')}，默认 center，变换时参考点固定不动。缩放时给出 scale_x、scale_y（百分比：100 = 不变，200 = 两倍；大于 0，最大 10000；省略 scale_y 时等于 scale_x）；旋转时给出 angle（度，顺时针为正，-360 到 360）；一次调用只做缩放或旋转之一。图层组连同其中的图层一起变换；同时列出的组内图层不会被单独变换。文字图层等比缩放时改变字号，保持可编辑；智能对象保留原始像素。`,
    parameters: {
      type: 'object',
      properties: {
        layer_names: { type: 'array', description: '要一起变换的图层名称列表', items: { type: 'string' } },
        ...SCALE_PROPERTIES,
        angle: { type: 'number', description: '旋转角度（度），顺时针为正，-360 到 360；与 scale_x 二选一' },
        anchor: {
          type: 'string',
          description: '固定不动的参考点（这些图层内容的合并边界上），默认 center',
          enum: ANCHORS,
        },
      },
      required: ['layer_names'],
    },
    limits: {
      layer_names: LAYER_NAMES,
      ...SCALE_LIMITS,
      angle: { min: -360, max: 360 },
      anchor: { default: 'center' },
    },
  }),
  defineTool({
    name: 'modify_selection',
    group: 'E',
    toolset: 'selection',
    label: '修改选区',
    labelEn: 'Modify Selection',
    effect: 'write',
    description:
      '把当前选区的边缘向外扩展或向内收缩若干像素（如 Photoshop 的“选择 > 修改 > 扩展/收缩”，常用于出血位、缝份或描边余量）：operation 为 expand 扩展或 contract 收缩；amount 为移动的像素数，整数 1-500。按到边缘的直线距离计算，扩展后的转角是圆的，新边缘消除锯齿；羽化的选区以一半选中处为边缘。收缩时画布边缘不算选区边缘（与 Photoshop 默认相同）。需要已有选区；收缩到没有像素被选中时拒绝，选区不变。',
    parameters: {
      type: 'object',
      properties: {
        operation: {
          type: 'string',
          description: '修改方式：expand 向外扩展；contract 向内收缩',
          enum: ['expand', 'contract'],
        },
        amount: { type: 'number', description: '移动的像素数，整数 1-500' },
      },
      required: ['operation', 'amount'],
    },
    limits: { amount: { min: 1, max: 500, integer: true } },
  }),
  defineTool({
    name: 'set_text_font',
    group: 'E',
    toolset: 'text',
    label: '修改字体',
    labelEn: 'Font',
    effect: 'write',
    idempotent: true,
    description:
      '把 name 指定的文字图层改用 font_name 字体（并将其设为当前图层），文字、字号、颜色和位置（点文字的锚点或段落文本框）不变。font_name 为字体名称，如内置中文字体的各字重 Noto Sans SC Light、Noto Sans SC DemiLight、Noto Sans SC、Noto Sans SC Medium、Noto Sans SC Bold，或本机已安装的字体；找不到该字体时按字体名中的字重用内置中文字体渲染，文件中仍记下所要的字体名（在装有该字体的 Photoshop 中以它显示），结果会说明。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '文字图层名称' },
        font_name: { type: 'string', description: '字体名称' },
      },
      required: ['name', 'font_name'],
    },
    limits: { name: NAME, font_name: NAME },
  }),
  defineTool({
    name: 'set_text_spacing',
    group: 'E',
    toolset: 'text',
    label: '修改行距字距',
    labelEn: 'Text Spacing',
    effect: 'write',
    idempotent: true,
    description: `设置 name 指定的文字图层的行距、字距和段落缩进（并将其设为当前图层），如 Photoshop 的字符和段落面板；只改给出的项，其余不变，至少给出一项。leading 为行距：相邻两行基线的距离（像素，与字号同单位），0 表示自动行距（字号的 120%）；tracking 为字距：每个字符后加的距离，单位为千分之一个字宽（em），如 200 即每字后加 0.2 个字宽，负数收紧，0 为不加，${TRACKING_MIN} 到 ${TRACKING_MAX}；indent_first 为每段首行再缩进的像素（中文正文常缩进两个字，即 2×字号；负数为首行悬挂），indent_left、indent_right 为各行距文本框左、右边的缩进（像素），均为 -${MAX_INDENT} 到 ${MAX_INDENT}。改字号时固定行距不变（同 Photoshop），字距随字号缩放。`,
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '文字图层名称' },
        leading: { type: 'number', description: '行距（像素），0 为自动（字号的 120%）' },
        tracking: { type: 'number', description: '字距，千分之一字宽（em），整数，0 为不加' },
        indent_first: { type: 'number', description: '首行缩进（像素）' },
        indent_left: { type: 'number', description: '左缩进（像素）' },
        indent_right: { type: 'number', description: '右缩进（像素）' },
      },
      required: ['name'],
    },
    limits: {
      name: NAME,
      leading: { min: 0, max: MAX_LEADING, unit: 'px' },
      tracking: { min: TRACKING_MIN, max: TRACKING_MAX, integer: true },
      indent_first: { min: -MAX_INDENT, max: MAX_INDENT, unit: 'px' },
      indent_left: { min: -MAX_INDENT, max: MAX_INDENT, unit: 'px' },
      indent_right: { min: -MAX_INDENT, max: MAX_INDENT, unit: 'px' },
    },
  }),
  defineTool({
    name: 'set_text_alignment',
    group: 'E',
    toolset: 'text',
    label: '文字对齐',
    labelEn: 'Text Alignment',
    effect: 'write',
    idempotent: true,
    description: `设置 name 指定的文字图层的段落对齐方式（并将其设为当前图层），如 Photoshop 段落面板的对齐按钮：left 左对齐、center 居中、right 右对齐；段落文本（有文本框的文字）还可两端对齐：justify-left 末行左对齐、justify-center 末行居中、justify-right 末行右对齐、justify-all 全部两端对齐。点文字（没有文本框）只能 ${POINT_JUSTIFICATIONS.join('、')}，以其锚点为准对齐（左对齐从锚点起，居中以锚点为中点，右对齐到锚点止），文字会随之移动，如 Photoshop；段落文本在框内对齐，框不动。要让图层在画布上居中请用 align_layers。`,
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '文字图层名称' },
        alignment: { type: 'string', description: '对齐方式', enum: JUSTIFICATIONS },
      },
      required: ['name', 'alignment'],
    },
    limits: { name: NAME },
  }),
] as const;
