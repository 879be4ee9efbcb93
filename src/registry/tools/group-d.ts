/** Group D: document operations (SPEC.md §4.4). The spec's duplicate `trim_document` is folded into one tool. */
import { HISTORY_MAX_STEPS, NAME, NEW_NAME, PATH } from '../bounds.js';
import { defineTool } from '../types.js';

export const groupD = [
  defineTool({
    name: 'create_document',
    group: 'D',
    toolset: 'core',
    label: '新建文档',
    labelEn: 'New Document',
    effect: 'write',
    description:
      '新建一个文档并设为当前（活动）文档。width、height 为宽高（像素，整数，1-300000，宽×高不超过 268402689 像素；任一边超过 30000 时保存为 PSB（大型文档格式））；resolution 为分辨率（DPI），默认 150，范围 1-10000；name 为文档名称，省略时自动命名为“未标题-1”“未标题-2”等。新文档含一个名为“背景”的白色背景图层。',
    parameters: {
      type: 'object',
      properties: {
        width: { type: 'number', description: '宽度（像素），整数，1-300000' },
        height: { type: 'number', description: '高度（像素），整数，1-300000' },
        resolution: { type: 'number', description: '分辨率（DPI），1-10000，默认 150' },
        name: { type: 'string', description: '文档名称；省略时自动命名为“未标题-1”等' },
      },
      required: ['width', 'height'],
    },
    limits: {
      name: NEW_NAME,
      width: { min: 1, max: 300000, integer: true, unit: 'px' },
      height: { min: 1, max: 300000, integer: true, unit: 'px' },
      resolution: { default: 150, min: 1, max: 10000, unit: 'dpi' },
    },
  }),
  defineTool({
    name: 'save_document',
    group: 'D',
    toolset: 'core',
    label: '保存文档',
    labelEn: 'Save',
    effect: 'destructive',
    idempotent: true,
    description:
      '以 PSD 格式保存当前文档：保存到文档原有的路径；文档没有路径时保存为工作区中的“<文档名>.psd”。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'save_document_as',
    group: 'D',
    toolset: 'core',
    label: '另存为',
    labelEn: 'Save As',
    effect: 'destructive',
    idempotent: true,
    description:
      '把当前文档另存到新路径。path 为相对于工作区的文件路径（不能超出工作区）；format 为 psd、png 或 jpg，省略时按 path 的扩展名推断。png 和 jpg 保存合并后的图像。',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: '保存路径，相对于工作区，如 output/result.psd' },
        format: {
          type: 'string',
          description: '文件格式：psd、png 或 jpg；省略时按 path 的扩展名推断',
          enum: ['psd', 'png', 'jpg'],
        },
      },
      required: ['path'],
    },
    limits: { path: PATH },
  }),
  defineTool({
    name: 'close_document',
    group: 'D',
    toolset: 'document',
    label: '关闭文档',
    labelEn: 'Close Document',
    effect: 'destructive',
    description:
      '关闭当前文档。save 默认 false（不保存，未保存的修改将丢失）；为 true 时先按 save_document 的规则保存再关闭。',
    parameters: {
      type: 'object',
      properties: {
        save: { type: 'boolean', description: '关闭前是否保存；默认 false（不保存）' },
      },
      required: [],
    },
    limits: { save: { default: false } },
  }),
  defineTool({
    name: 'list_documents',
    group: 'D',
    toolset: 'core',
    label: '列出文档',
    labelEn: 'List Documents',
    effect: 'read',
    description:
      '列出所有已打开的文档：名称、宽高（像素）、分辨率（DPI），并标明当前（活动）文档。不修改任何内容。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'switch_document',
    group: 'D',
    toolset: 'core',
    label: '切换文档',
    labelEn: 'Switch Document',
    effect: 'write',
    idempotent: true,
    description:
      '切换到另一个已打开的文档 doc_name，使其成为当前（活动）文档。文档名可用 list_documents 查询。',
    parameters: {
      type: 'object',
      properties: { doc_name: { type: 'string', description: '要切换到的已打开文档名称' } },
      required: ['doc_name'],
    },
    limits: { doc_name: NAME },
  }),
  defineTool({
    name: 'duplicate_layer_to_document',
    group: 'D',
    toolset: 'document',
    label: '复制到文档',
    labelEn: 'Duplicate to Document',
    effect: 'write',
    description:
      '把当前文档中 name 指定的图层（并将其设为当前图层）复制到另一个已打开的文档 target_doc 中，原图层保持不变。',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: '要复制的图层名称（当前文档中）' },
        target_doc: { type: 'string', description: '目标文档名称（须已打开）' },
      },
      required: ['name', 'target_doc'],
    },
    limits: { name: NAME, target_doc: NAME },
  }),
  defineTool({
    name: 'resize_canvas',
    group: 'D',
    toolset: 'document',
    label: '调整画布',
    labelEn: 'Canvas Size',
    effect: 'destructive',
    description:
      '调整当前文档的画布大小，不缩放图像内容。width、height 为新的宽高（像素，整数，1-300000，宽×高不超过 268402689 像素；任一边超过 30000 时保存为 PSB（大型文档格式））；anchor 为锚点，默认 center（居中），决定内容保留在画布的哪个位置。扩大时新增区域为透明（背景图层为白色）；缩小时超出画布的部分被裁掉。',
    parameters: {
      type: 'object',
      properties: {
        width: { type: 'number', description: '新画布宽度（像素），整数，1-300000' },
        height: { type: 'number', description: '新画布高度（像素），整数，1-300000' },
        anchor: {
          type: 'string',
          description:
            '锚点：top-left 左上、top 上、top-right 右上、left 左、center 居中、right 右、bottom-left 左下、bottom 下、bottom-right 右下；默认 center',
          enum: [
            'top-left',
            'top',
            'top-right',
            'left',
            'center',
            'right',
            'bottom-left',
            'bottom',
            'bottom-right',
          ],
        },
      },
      required: ['width', 'height'],
    },
    limits: {
      width: { min: 1, max: 300000, integer: true },
      height: { min: 1, max: 300000, integer: true },
      anchor: { default: 'center' },
    },
  }),
  defineTool({
    name: 'resize_image',
    group: 'D',
    toolset: 'document',
    label: '调整图像大小',
    labelEn: 'Image Size',
    effect: 'destructive',
    description:
      '调整当前文档的图像大小，所有图层按比例重新采样。width、height 为新的宽高（像素，整数，1-300000，宽×高不超过 268402689 像素；任一边超过 30000 时保存为 PSB（大型文档格式）），不自动保持宽高比；resolution 为新分辨率（DPI），1-10000，省略时不变。',
    parameters: {
      type: 'object',
      properties: {
        width: { type: 'number', description: '新宽度（像素），整数，1-300000' },
        height: { type: 'number', description: '新高度（像素），整数，1-300000' },
        resolution: { type: 'number', description: '新分辨率（DPI），1-10000；省略时不变' },
      },
      required: ['width', 'height'],
    },
    limits: {
      width: { min: 1, max: 300000, integer: true, unit: 'px' },
      height: { min: 1, max: 300000, integer: true, unit: 'px' },
      resolution: { min: 1, max: 10000, unit: 'dpi' },
    },
  }),
  defineTool({
    name: 'crop_document',
    group: 'D',
    toolset: 'document',
    label: '裁切画布',
    labelEn: 'Crop',
    effect: 'destructive',
    description:
      '把当前文档的画布裁切到指定的像素矩形。四个参数是矩形四条边的坐标（像素，原点为画布左上角）：left 左边、top 上边、right 右边、bottom 下边；须 right > left、bottom > top，裁切后的宽为右边减左边，高为下边减上边。',
    parameters: {
      type: 'object',
      properties: {
        left: { type: 'number', description: '左边 x 坐标（像素）' },
        top: { type: 'number', description: '上边 y 坐标（像素）' },
        right: { type: 'number', description: '右边 x 坐标（像素），须大于 left' },
        bottom: { type: 'number', description: '下边 y 坐标（像素），须大于 top' },
      },
      required: ['left', 'top', 'right', 'bottom'],
    },
  }),
  defineTool({
    name: 'trim_document',
    group: 'D',
    toolset: 'document',
    label: '自动裁切',
    labelEn: 'Trim',
    effect: 'destructive',
    description:
      '自动裁掉当前文档四周的空白边缘。type 为 transparent 时裁掉透明边缘；为 topleft 时裁掉与左上角像素颜色相同的边缘；默认 topleft。',
    parameters: {
      type: 'object',
      properties: {
        type: {
          type: 'string',
          description: '裁切依据：transparent 透明像素、topleft 左上角像素颜色；默认 topleft',
          enum: ['transparent', 'topleft'],
        },
      },
      required: [],
    },
    limits: { type: { default: 'topleft' } },
  }),
  defineTool({
    name: 'undo',
    group: 'D',
    toolset: 'core',
    label: '撤销',
    labelEn: 'Undo',
    effect: 'destructive',
    description: `撤销当前文档最近的操作。steps 为撤销步数，整数，不小于 1，默认 1；不需要任何参数。每个文档最多保留 ${HISTORY_MAX_STEPS} 个历史记录状态（同 Photoshop 的默认设置），更早的操作不能再撤销。`,
    parameters: {
      type: 'object',
      properties: { steps: { type: 'number', description: '撤销步数，整数，不小于 1，默认 1' } },
      required: [],
    },
    limits: { steps: { default: 1, min: 1, integer: true } },
  }),
] as const;
