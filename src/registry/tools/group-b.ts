/** Group B: garment pattern tools (SPEC.md §4.2). Call order: identify → preview → apply → verify. */
import { NAME, NOTE, PIECES_MAX_ITEMS } from '../bounds.js';
import { defineTool } from '../types.js';

export const groupB = [
  defineTool({
    name: 'identify_pieces',
    group: 'B',
    toolset: 'garment',
    label: '识别裁片部位',
    labelEn: 'Identify Pieces',
    effect: 'read',
    changesContext: true,
    idempotent: true,
    openWorld: true,
    description:
      '服装套图流程第 1 步（先调用）：截取当前文档的画布，由视觉 AI 分析每个裁片图层的形状和位置，判断哪个图层是前片、后片、袖子、领子等，建立“图层名 → 服装部位”的对应关系；若用户已上传服装照片，还会为每个裁片建议 type（solid / fill_pattern / theme_pattern / mixed_pattern）和 color（十六进制颜色）。前提：已打开一个由裁片图层组成的文档（裁片为透明背景上的像素图层，或用 place_image 置入的智能对象）。分析结果保存在会话中，供 extract_and_apply_all_pieces 使用，并随结果返回带标注的裁片总览图；不修改文档。每个裁片的结果带 confidence（0–1）和 reason；部位不确定时 needs_confirmation 为 true，confirmation 说明哪些裁片也可能是哪个部位（alternatives：一到两个候选部位：先是整件服装的部位搭配给出的备选，再是按裁片自身形状次可能的部位；ask_order 给出提问顺序，最该先问的在前；同一裁片的多个图层只问一次，same_outline 列出与之同形的图层，确认其一即确定其余），此时先请用户确认，不要直接继续。版图上横放的前片、后片和袖子、头尾倒放的袖子带 turn（相对服装上正放顺时针转过的角度：90、180 或 270），花样按它们在服装上的方向印；前片、后片倒放（180°）从形状上不能可靠识别，用户指出时用 confirm_piece_parts 的 turn 更正。斜放几度（约 1.5°–15°）的对称裁片（整片的前后片、对称的袖子、领、条带）带 tilt（顺时针的度数，负数为逆时针），花样沿裁片方向印。套用花样前必须先调用本工具，下一步调用 generate_garment_preview。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'generate_garment_preview',
    group: 'B',
    toolset: 'garment',
    label: '生成花样预览',
    labelEn: 'Preview Pattern',
    effect: 'read',
    changesContext: true,
    idempotent: true,
    openWorld: true,
    description:
      '服装套图流程第 2 步（阶段一）：前提是用户须已上传服装照片，并已先调用 identify_pieces。从用户上传的服装照片中提取花样，按当前文档中各裁片的轮廓填充，生成带轮廓线的预览图；预览图显示在对话中，供用户确认。本工具只生成预览图，不修改文档。用户确认预览后，下一步调用 extract_and_apply_all_pieces；用户确认前不要调用阶段二，也不要重复调用 identify_pieces。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
  defineTool({
    name: 'extract_and_apply_all_pieces',
    group: 'B',
    toolset: 'garment',
    label: '提取并套图',
    labelEn: 'Apply Pattern to Pieces',
    effect: 'write',
    openWorld: true,
    description:
      '服装套图流程第 3 步（阶段二）：用户确认预览后才可调用（须已先调用 identify_pieces 和 generate_garment_preview）。使用 identify_pieces 的分析结果，按 pieces 中每个裁片的 type 在当前文档中套图：solid（纯色）——在编辑器中用 color 纯色填充整个裁片；fill_pattern（满印）——AI 从服装照片中提取花样，平铺填满整个裁片；theme_pattern（定位图案）——底层为 color 纯色填充，上层为 AI 提取的白色背景主题图案，混合模式为正片叠底（multiply）；mixed_pattern（混合）——底层为 AI 提取的满印花样，上层为 AI 提取的白色背景主题图案，混合模式为正片叠底（multiply）。主题图案比底色浅（正片叠底会使其变暗）时，改为抠出的透明背景图案、以正常模式叠在底色之上（见结果中的 motif_layer）。每个裁片生成一个图层组，内含剪贴到裁片形状的可编辑图层；整次调用只算一个历史步骤。完成后下一步调用 verify_pattern_result 验证效果。',
    parameters: {
      type: 'object',
      properties: {
        pieces: {
          type: 'array',
          description:
            '要套图的裁片列表，每项对应一个裁片图层。type 和 color 取自 identify_pieces 的结果。solid 和 theme_pattern 必须提供 color（十六进制颜色）；theme_pattern 的 color 为底色（底层纯色）。',
          items: {
            type: 'object',
            properties: {
              name: {
                type: 'string',
                description:
                  '裁片图层名称（图层名，不是部位名；几个裁片图层同名时用 identify_pieces 结果中的名称，如“图层 1#2”）',
              },
              type: {
                type: 'string',
                description:
                  '裁片类型（取自 identify_pieces 的结果）：solid 纯色、fill_pattern 满印花样、theme_pattern 纯色底 + 主题图案、mixed_pattern 满印底 + 主题图案',
                enum: ['solid', 'fill_pattern', 'theme_pattern', 'mixed_pattern'],
              },
              color: {
                type: 'string',
                description:
                  '十六进制颜色，如 #1a2b3c（取自 identify_pieces 的结果）。solid 和 theme_pattern 必须提供；theme_pattern 时为底色（底层颜色）。',
              },
              description: { type: 'string', description: '花样内容的文字描述（可选），如“红色玫瑰印花”' },
            },
            required: ['name', 'type'],
          },
        },
      },
      required: ['pieces'],
    },
    limits: {
      pieces: {
        maxItems: PIECES_MAX_ITEMS,
        items: { name: NAME, color: { format: 'color' }, description: NOTE },
      },
    },
  }),
  defineTool({
    name: 'verify_pattern_result',
    group: 'B',
    toolset: 'garment',
    label: '验证套图效果',
    labelEn: 'Verify Pattern',
    effect: 'read',
    openWorld: true,
    description:
      '服装套图流程第 4 步：在 extract_and_apply_all_pieces 套图完成后调用。截取当前文档的画布，与用户上传的原始服装照片对比，由视觉 AI 给出 1-10 分的评分（1 到 10 分，10 分最好）和改进建议。不修改文档。评分低时可按建议调整后重新套图。',
    parameters: { type: 'object', properties: {}, required: [] },
  }),
] as const;
