/**
 * What the model is told: the system prompt (its job, the garment call order, how to read a failed call), and
 * the short state summary each user turn carries so the model needs no query before acting.
 */
import type { SessionSnapshot } from '../calls/snapshot.js';
import { LAYER_LISTERS, type OfferedTools } from '../calls/tool-groups.js';
import { toolsOf } from '../registry/index.js';

const EVERY_TOOL: OfferedTools = new Set(toolsOf('extended').map((t) => t.name));

/** Layers listed in a summary at most: a garment marker can hold hundreds of pieces. */
export const SUMMARY_LAYER_LIMIT = 60;
/** The first line of the state summary: where the user's words end in a user message. */
const SUMMARY_HEADING = '【会话状态】（系统自动附加）';

export function systemPrompt(opts: { readonly vision: boolean; readonly tools?: OfferedTools }): string {
  const offered = opts.tools ?? EVERY_TOOL;
  return [
    '你是 Atelier 的图像编辑助手。用户用中文说出想要的效果，你通过调用工具编辑分层图像文档（文档、图层、图层组、文字、选区、图层样式、蒙版、调整、RGB/CMYK、存储），也负责服装裁片的套图流程。',
    '',
    '工作方式：',
    '- 只通过工具修改文档，不要声称做了没有用工具完成的事。每条用户消息末尾附有系统生成的【会话状态】（打开的文档、当前文档、它的图层、是否已上传服装照片），据此直接行动，不必先查询。',
    '- 一条回复里的多个工具调用按列出的顺序依次执行，每个调用都有自己的结果。成功时结果是 {"ok": true, …}，说明改动了什么；失败时是 {"ok": false, "error": {"code", "message", "hint"}}：message 说明原因，hint 说明下一步该做什么——按 hint 去做，不要原样重试同一个失败的调用。',
    `- 失败的调用不会改变任何东西；每个成功的修改是一步历史${offered.has('undo') ? '，可以用 undo 撤销' : ''}。文件路径都相对于工作区。`,
    opts.vision
      ? '- 工具返回的图像（预览、裁片总览、画布截图）会在工具结果之后作为一条用户消息发给你，请查看后再回答。'
      : '- 你看不到图像：工具结果里的图像只给出文字说明（内容和尺寸），请根据结果中的数据判断。',
    '',
    '服装套图流程（严格按这个顺序）：',
    `1. identify_pieces：识别每个裁片图层对应的部位，并为每片给出建议的 type 和 color。结果中 needs_confirmation 为 true 时，先把 confirmation 里的疑问告诉用户并停下来等待回答；用户回答后按 confirmation 的说明记下${offered.has('confirm_piece_parts') ? '（如 confirm_piece_parts）' : ''}，再继续。`,
    '2. generate_garment_preview：需要用户已上传服装照片（没有照片时请用户上传）；生成带轮廓的套图预览。',
    '3. 把预览交给用户，简要说明每片将如何处理，然后停下来，等待用户确认。用户明确确认之前，绝不调用 extract_and_apply_all_pieces。',
    '4. 用户确认后，调用 extract_and_apply_all_pieces，pieces 使用 identify_pieces 给出的 type 和 color（用户要求的修改除外）。',
    '5. 调用 verify_pattern_result 检查效果，把评分和建议告诉用户。',
    '不要在 identify_pieces 和 generate_garment_preview 之间来回重复：文档和照片没有变化时，重复调用只会得到同样的结果，会被拒绝。',
    '',
    '用简洁的中文回答：说明做了什么、结果如何；需要用户决定时直接提问。',
  ].join('\n');
}

interface LayerNode {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly visible?: unknown;
  readonly locked?: unknown;
  readonly opacity?: unknown;
  readonly blend_mode?: unknown;
  readonly clipped?: unknown;
  readonly mask?: unknown;
  readonly background?: unknown;
  readonly ref?: unknown;
  readonly bounds?: { left?: unknown; top?: unknown; width?: unknown; height?: unknown; empty?: unknown };
  readonly children?: readonly LayerNode[];
}

function layerLine(layer: LayerNode, depth: number): string {
  const traits: string[] = [String(layer.type)];
  // A shared name: what calls name this layer by.
  if (typeof layer.ref === 'string') traits.push(`调用时称“${layer.ref}”`);
  if (layer.background) traits.push('背景');
  if (layer.visible === false) traits.push('隐藏');
  if (layer.locked) traits.push('锁定');
  if (typeof layer.opacity === 'number' && layer.opacity !== 100) traits.push(`不透明度 ${layer.opacity}%`);
  if (layer.blend_mode && layer.blend_mode !== 'normal') traits.push(String(layer.blend_mode));
  if (layer.clipped) traits.push('剪贴');
  if (layer.mask) traits.push('蒙版');
  const b = layer.bounds;
  if (b && !b.empty && layer.type !== 'group') traits.push(`${b.left},${b.top} ${b.width}×${b.height}`);
  return `${'  '.repeat(depth)}- ${String(layer.name)}（${traits.join('，')}）`;
}

function layerLines(layers: readonly LayerNode[], depth = 0, out: string[] = []): string[] {
  for (const layer of layers) {
    out.push(layerLine(layer, depth));
    if (layer.children) layerLines(layer.children, depth + 1, out);
  }
  return out;
}

/** The session's state in a few lines of Chinese, appended to each user message. */
export function stateSummary(snapshot: SessionSnapshot, tools: OfferedTools = EVERY_TOOL): string {
  const lines = [SUMMARY_HEADING];
  if (snapshot.documents.length === 0) {
    lines.push('没有打开的文档。');
  } else {
    const docs = snapshot.documents.map(
      (d) =>
        `${d.name}（${d.width}×${d.height} px，${d.resolution} DPI，${d.mode}${d.unsaved_changes ? '，有未保存的修改' : ''}${d.active ? '，当前' : ''}）`,
    );
    lines.push(`打开的文档：${docs.join('；')}`);
  }
  const active = snapshot.active;
  if (active) {
    const all = layerLines(active.layers as readonly LayerNode[]);
    const shown = all.slice(0, SUMMARY_LAYER_LIMIT);
    lines.push(`当前文档“${active.name}”的图层（从上到下）：`, ...shown);
    if (all.length > shown.length) {
      const lister = LAYER_LISTERS.find((name) => tools.has(name));
      lines.push(
        `……另有 ${all.length - shown.length} 个图层未列出${lister ? `（用 ${lister} 查看全部）` : ''}`,
      );
    }
    lines.push(`当前图层：${active.active_layer ?? '无'}`);
    if (active.selected_layers.length > 1) lines.push(`选中的图层：${active.selected_layers.join('、')}`);
    const sel = active.selection?.bounds;
    lines.push(
      `选区：${sel ? `有（${sel.x}, ${sel.y} 起 ${sel.w}×${sel.h} 像素的范围内）` : active.has_selection ? '有' : '无'}`,
    );
    const { labels, index } = active.history;
    const recent = labels.slice(Math.max(1, index - 4), index + 1);
    if (recent.length)
      lines.push(
        `最近的历史步骤：${recent.join(' → ')}${index < labels.length - 1 ? '（之后还有可重做的步骤）' : ''}`,
      );
  }
  const g = snapshot.garment;
  lines.push(`服装照片：${g.photo ? `已上传（${g.photo}）` : '未上传'}`);
  if (g.pieces.length) {
    const pieces = g.pieces.map(
      (p) =>
        `${p.name}=${p.part_label}${p.confirmed ? '（用户已确认）' : p.alternatives.length ? `（也可能是${p.alternatives.map((a) => a.part_label).join('或')}，待用户确认）` : ''}` +
        `${p.turn ? `（版图上转 ${p.turn}°）` : ''}` +
        `${p.tilt ? `（版图上${p.tilt > 0 ? '顺' : '逆'}时针斜 ${Math.abs(p.tilt)}°）` : ''}` +
        `${p.type ? `/${p.type}` : ''}${p.color ? `/${p.color}` : ''}`,
    );
    lines.push(`已识别裁片：${pieces.join('，')}`);
  }
  if (g.previewed || g.applied) {
    const fresh = g.previewed && !g.preview_applied;
    lines.push(
      `套图：${!g.applied ? '已生成预览，尚未应用' : fresh ? '已应用；之后生成的新预览尚未应用' : '已应用'}`,
    );
  }
  return lines.join('\n');
}

/** The user message the model receives: the user's words, then the state summary. */
export function userContent(text: string, snapshot: SessionSnapshot, tools?: OfferedTools): string {
  return `${text}\n\n${stateSummary(snapshot, tools)}`;
}

/** The user's words in a user message as `userContent` made it (the state summary left off). */
export function userWords(content: string): string {
  const at = content.lastIndexOf(`\n\n${SUMMARY_HEADING}`);
  return at < 0 ? content : content.slice(0, at);
}
