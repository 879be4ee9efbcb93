/** Group A: document and layer basics (SPEC.md §4.1). */
import { NAME } from '../bounds.js';
import { defineTool } from '../types.js';

export const groupA = [
  defineTool({
    name: 'get_document_info',
    group: 'A',
    label: '查看文档信息',
    labelEn: 'Document Info',
    effect: 'read',
    description:
      '查看当前（活动）文档的信息：文档名称、宽高（像素）、分辨率（DPI）和颜色模式。不修改任何内容。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'get_layer_structure',
    group: 'A',
    label: '查看图层结构',
    labelEn: 'Layer Structure',
    effect: 'read',
    description:
      '查看当前文档的图层树：所有顶层图层组及其子图层（从上到下），含每个图层的名称、类型和可见性。不修改任何内容。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'create_layer',
    group: 'A',
    label: '新建图层',
    labelEn: 'New Layer',
    effect: 'write',
    description: '在当前文档中新建一个空白像素图层，放在当前选中图层的上方，并设为当前图层。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '新图层的名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'rename_layer',
    group: 'A',
    label: '重命名图层',
    labelEn: 'Rename Layer',
    effect: 'write',
    idempotent: true,
    description: '重命名当前选中的图层（作用于选中图层，不按名称指定）。',
    parameters: {
      type: 'object',
      properties: { new_name: { type: 'string', description: '图层的新名称' } },
      required: ['new_name'],
    },
    limits: { new_name: NAME },
  }),
  defineTool({
    name: 'delete_layer',
    group: 'A',
    label: '删除图层',
    labelEn: 'Delete Layer',
    effect: 'destructive',
    description: '删除当前选中的图层（作用于选中图层）。文档中唯一的图层不能删除。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'duplicate_layer',
    group: 'A',
    label: '复制图层',
    labelEn: 'Duplicate Layer',
    effect: 'write',
    description: '复制当前选中的图层，副本命名为“原名 拷贝”，放在原图层上方并设为当前图层。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'align_layers',
    group: 'A',
    label: '对齐图层',
    labelEn: 'Align Layers',
    effect: 'write',
    idempotent: true,
    description:
      '对齐当前选中的图层：left 左对齐、right 右对齐、centerH 水平居中、top 顶对齐、bottom 底对齐、centerV 垂直居中。选中两个及以上图层时按它们的整体外框对齐；只选中一个图层时对齐到画布。',
    parameters: {
      type: 'object',
      properties: {
        type: {
          type: 'string',
          description: '对齐方式：left 左、right 右、centerH 水平居中、top 顶、bottom 底、centerV 垂直居中',
          enum: ['left', 'right', 'centerH', 'top', 'bottom', 'centerV'],
        },
      },
      required: ['type'],
    },
  }),
  defineTool({
    name: 'merge_layers',
    group: 'A',
    label: '合并图层',
    labelEn: 'Merge Layers',
    effect: 'destructive',
    description: '合并当前选中的图层为一个像素图层；只选中一个图层时，将它向下合并到下方图层。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'create_layer_group',
    group: 'A',
    label: '创建图层组',
    labelEn: 'New Group',
    effect: 'write',
    idempotent: true,
    description: '创建指定名称的图层组；若同名图层组已存在则不重复创建，结果会说明是否新建。',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: '图层组名称' } },
      required: ['name'],
    },
    limits: { name: NAME },
  }),
  defineTool({
    name: 'move_layer_to_group',
    group: 'A',
    label: '移入图层组',
    labelEn: 'Move into Group',
    effect: 'write',
    idempotent: true,
    description:
      '把当前选中的图层移入指定名称的图层组（放在组内最上方）。图层组须已存在，可先用 create_layer_group 创建。',
    parameters: {
      type: 'object',
      properties: { group_name: { type: 'string', description: '目标图层组名称' } },
      required: ['group_name'],
    },
    limits: { group_name: NAME },
  }),
] as const;
