/**
 * Group C text tools (SPEC.md §4.3): create_text_layer, set_text_content, set_text_color, set_text_size; and the
 * extensions: set_text_font (as Photoshop's options bar changes a text layer's font), set_text_spacing,
 * set_text_alignment, create_paragraph_text (a box dragged with the type tool) and set_text_box (its box resized).
 *
 * A text layer keeps its TextSpec and a rendering of it (engine/text.ts); every set_* re-renders, so the layer
 * stays editable, and keeps what the spec carries of its paragraphs (text-paragraph.ts): point text stays point
 * text with its alignment, paragraph text stays in its box. create_text_layer's `x, y` is the top-left of the
 * text box (left-aligned point text). A new size is set as Photoshop sets it: point text keeps its anchor (the
 * start, centre or end of its first baseline), paragraph text its box. Photoshop names a new text layer after
 * its text and keeps renaming it when the text changes, until the user renames it; so does set_text_content here
 * when the layer still carries the name made from its old text.
 */
import { MAX_LAYER_REACH, reachOf } from '../engine/document-limits.js';
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { NO_LOCKS } from '../engine/factory.js';
import type { DocState, Layer, Raster, TextBox, TextLayer, TextSpec } from '../engine/model.js';
import { rgbToHex } from '../engine/raster.js';
import {
  autoLayerName,
  availableFonts,
  BUNDLED_FAMILIES,
  BUNDLED_FONT,
  fontShownAs,
  isBundledFamily,
  newTextWarp,
  renderTextSpec,
} from '../engine/text.js';
import { settingsChangeOf } from '../engine/text-character.js';
import { isVertical } from '../engine/text-orientation.js';
import { paragraphList, paragraphOf, sameParagraph, withParagraphs } from '../engine/text-paragraph.js';
import { reanchored, restyle, sameRuns, stylesOf, withContent } from '../engine/text-runs.js';
import { withSpacing } from '../engine/text-spacing.js';
import { allocateId, insertLayer, layerById, setActive, setLayer, slotAbove } from '../engine/tree.js';
import { findTool } from '../registry/index.js';
import { POINT_JUSTIFICATIONS } from '../registry/tools/text-params.js';
import { KIND_NAMES, layerSummary, spacingSummary, textSummary } from './describe.js';
import { assertPixelsEditable } from './guards.js';
import { heldColorFields } from './held-color.js';
import { activeDoc, layerNamed } from './resolve.js';
import type { Payload, ToolContext, ToolHandlers } from './types.js';

const KIND_LABELS: Record<Layer['kind'], string> = {
  pixel: '像素图层',
  fill: '纯色填充图层',
  text: '文字图层',
  smart: '智能对象',
  adjustment: '调整图层',
  group: '图层组',
};

function fallbackNote(text: TextSpec): Payload {
  const fonts = availableFonts();
  return {
    font_fallback: true,
    font_note:
      text.renderedFont !== undefined && !isBundledFamily(text.renderedFont)
        ? `字体“${text.font}”未安装，已使用字宽与行高相同的“${text.renderedFont}”渲染（换行与位置一致，字形略有不同）`
        : `字体“${text.font}”不可用，已使用内置中文字体“${text.renderedFont}”渲染`,
    available_fonts: fonts.slice(0, 40),
  };
}

function refuseEmpty(text: string, tool: string): void {
  if (text === '') {
    fail('invalid_arguments', 'text 不能为空', {
      hint: tool.startsWith('create_')
        ? '给出要显示的文字'
        : '给出新的文字内容；要删除文字图层请先选中它再调用 delete_layer',
      details: { text: '不能为空字符串' },
    });
  }
}

/** The named layer, which must be an unlocked text layer. */
function editableText(ctx: ToolContext, state: DocState, name: string, what: string): TextLayer {
  const layer = layerNamed(ctx, state, name);
  if (layer.kind !== 'text') {
    const background = (layer.kind === 'fill' || layer.kind === 'pixel') && layer.background === true;
    const kind = background ? '背景图层' : KIND_LABELS[layer.kind];
    const hint =
      layer.kind === 'pixel'
        ? `“${layer.name}”是像素图层，不是文字图层（文字经 rasterize_layer 栅格化后即成为像素，不能再编辑）；要添加可编辑的文字请用 create_text_layer`
        : '用 list_all_layer_names 查看各图层的类型，对文字图层（type 为 text）调用；要添加文字请用 create_text_layer';
    fail('invalid_state', `“${layer.name}”是${kind}，不是文字图层，不能${what}`, {
      hint,
      details: { type: KIND_NAMES[layer.kind] },
    });
  }
  assertPixelsEditable(state, layer, what);
  return layer;
}

/**
 * Refuses (`out_of_bounds`) a rendering that reaches further from the canvas than a file records a layer's position
 * (a signed 32-bit integer): the document could no longer be saved. `from` says where the text starts.
 */
function assertTextRecordable(raster: Raster, from: string): void {
  const reach = reachOf(raster);
  if (reach <= MAX_LAYER_REACH) return;
  fail(
    'out_of_bounds',
    `${from}的文字会伸到离画布约 ${reach.toExponential(1)} 像素处，超出文件能记录的位置`,
    {
      hint: `文字须在画布原点 ±${MAX_LAYER_REACH} 像素之内（PSD 以 32 位整数记录位置），通常取画布内的坐标`,
    },
  );
}

/** Nothing to change: the layer only becomes active (not a history step, as in Photoshop). */
function unchanged(ctx: ToolContext, doc: OpenDocument, layer: TextLayer, note: string): Payload {
  let state = doc.state;
  if (state.active !== layer.id || state.selected.length !== 1 || state.selected[0] !== layer.id) {
    state = setActive(state, layer.id);
    ctx.tx.update(doc.id, state);
    ctx.tx.skipHistoryStep();
  }
  return { changed: false, note, layer: layerSummary(state, layer), text: textSummary(layer.text) };
}

/** Re-renders `layer` with `spec` and commits it (renamed to `name`) as the active layer. */
function rerender(
  ctx: ToolContext,
  doc: OpenDocument,
  layer: TextLayer,
  spec: TextSpec,
  name = layer.name,
): Payload {
  const { text, raster, fallback, hidden } = renderTextSpec(spec);
  assertTextRecordable(raster, `“${layer.name}”`);
  const next = setActive(setLayer(doc.state, { ...layer, name, text, raster }), layer.id);
  ctx.tx.update(doc.id, next);
  return {
    layer: layerSummary(next, layerById(next, layer.id)),
    text: textSummary(text),
    ...overflowNote(hidden),
    ...(fallback ? fallbackNote(text) : {}),
  };
}

/** What a new text layer is made from: its spec as asked, the colour as given and the font as named. */
interface NewText extends Omit<TextSpec, 'color' | 'font' | 'renderedFont'> {
  /** As the call gives it (a default filled in by validation). */
  readonly color: string;
  readonly font: string | undefined;
}

/** A new text layer above the active one, made active: create_text_layer's and create_paragraph_text's work. */
async function addText(ctx: ToolContext, tool: string, asked: NewText): Promise<Payload> {
  const doc = activeDoc(ctx);
  refuseEmpty(asked.content, tool);
  const { x, y } = asked;
  // A file records a layer's position as a signed 32-bit integer: a text box further out could not be saved.
  if (!(Math.max(Math.abs(x), Math.abs(y)) <= MAX_LAYER_REACH)) {
    const far = Math.abs(x) > MAX_LAYER_REACH ? 'x' : 'y';
    fail('out_of_bounds', `文本框位置 x=${x}，y=${y} 离画布太远，超出文件能记录的位置`, {
      hint: `x、y 须在画布原点 ±${MAX_LAYER_REACH} 像素之内（PSD 以 32 位整数记录位置），通常取画布内的坐标`,
      details: [{ parameter: far, value: far === 'x' ? x : y }],
    });
  }
  const held = await heldColorFields(doc.state, asked.color);
  const { text, raster, fallback, hidden } = renderTextSpec({
    ...asked,
    color: held.color,
    font: asked.font?.trim() || BUNDLED_FONT,
  });
  assertTextRecordable(raster, `文本框从 x=${x}，y=${y} 起`);
  const [id, allocated] = allocateId(doc.state);
  const layer: TextLayer = {
    id,
    name: autoLayerName(asked.content),
    kind: 'text',
    visible: true,
    opacity: 1,
    blend: 'normal',
    clipped: false,
    locks: NO_LOCKS,
    text,
    raster,
  };
  const { parent, index } = slotAbove(allocated, allocated.active);
  const next = setActive(insertLayer(allocated, layer, parent, index), id);
  ctx.tx.update(doc.id, next);
  const blank = raster.w === 0 && !text.box ? { note: '文字只含空白字符，图层没有可见像素' } : {};
  return {
    layer: layerSummary(next, layer),
    text: textSummary(text),
    ...blank,
    ...overflowNote(hidden),
    ...held.note,
    ...(fallback ? fallbackNote(text) : {}),
  };
}

/**
 * Paragraph text that its box cannot hold, as Photoshop marks it with an overflow sign: how many lines are not
 * shown, and how to show them.
 */
function overflowNote(hidden: number): Payload {
  if (hidden === 0) return {};
  return {
    hidden_lines: hidden,
    overflow_note: `文本框放不下全部文字：最后 ${hidden} 行未显示（同 Photoshop 的文本溢出，文字仍在图层中）；可用 set_text_box 加大文本框，或用 set_text_size 减小字号`,
  };
}

/**
 * `spec` set the other way (orientation), where Photoshop keeps it: point text about its anchor, paragraph text
 * with its box's corner in place (through the text's transform).
 */
function turnedTo(spec: TextSpec, orientation: 'horizontal' | 'vertical'): TextSpec {
  // The engine bends rows only (text-warp.ts): turned to columns, the text is set straight (columns have no warp).
  const { orientation: _was, warp: _warp, ...rest } = spec;
  return reanchored(spec, orientation === 'vertical' ? { ...rest, orientation } : rest);
}

/** Where `match` starts in `content`, each occurrence after the one before (as Photoshop's Find steps on). */
function occurrencesOf(content: string, match: string): number[] {
  const out: number[] = [];
  if (match === '') return out;
  for (let i = content.indexOf(match); i >= 0; i = content.indexOf(match, i + match.length)) out.push(i);
  return out;
}

/** What set_text_size keeps in place, as Photoshop does. */
function resizeNote(spec: TextSpec): string {
  const { justification, box } = paragraphOf(spec);
  if (box) return '段落文本框的位置和大小保持不变，文字在框内按新字号重新排列';
  const where =
    justification === 'center' || justification === 'justify-center'
      ? '中点'
      : justification === 'right' || justification === 'justify-right'
        ? '终点'
        : '起点';
  return `文字锚点（第一行基线的${where}）保持不变，如 Photoshop 按锚点缩放点文字`;
}

export const textHandlers = {
  create_text_layer({ text: content, x, y, font_size, color, font_name }, ctx) {
    return addText(ctx, 'create_text_layer', { content, x, y, size: font_size, color, font: font_name });
  },

  create_paragraph_text(
    { text: content, x, y, width, height, font_size, color, font_name, alignment = 'left' },
    ctx,
  ) {
    // The box is stated from the text's origin at its top-left, as Photoshop states a box it draws.
    return addText(ctx, 'create_paragraph_text', {
      content,
      x,
      y,
      size: font_size,
      color,
      font: font_name,
      box: [0, 0, width, height],
      ...(alignment !== 'left' ? { justification: alignment } : {}),
    });
  },

  set_text_content({ name, text: content }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改文字');
    refuseEmpty(content, 'set_text_content');
    const old = layer.text.content;
    if (old === content) return unchanged(ctx, doc, layer, '文字内容没有变化');
    const autoNamed = layer.name === autoLayerName(old);
    const newName = autoNamed ? autoLayerName(content) : layer.name;
    // Paragraphs keep their own settings; one added takes the last one's, as Photoshop continues a paragraph's.
    // Characters kept keep their styles; typed ones take the style Photoshop's type tool gives them.
    const edited = withContent(layer.text, content);
    const out = rerender(ctx, doc, layer, withParagraphs(edited, paragraphList(edited)), newName);
    return {
      old_text: old,
      ...(newName !== layer.name ? { renamed: { from: layer.name, to: newName } } : {}),
      ...out,
    };
  },

  async set_text_color({ name, color }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改文字颜色');
    const old = rgbToHex(layer.text.color);
    const held = await heldColorFields(doc.state, color);
    const olds = [...new Set(stylesOf(layer.text).map((st) => rgbToHex(st.color)))];
    if (olds.length === 1 && old === rgbToHex(held.color)) {
      return { ...unchanged(ctx, doc, layer, `文字颜色已经是 ${old}`), ...held.note };
    }
    // Every character, as Photoshop's colour with the whole layer chosen.
    return {
      old_color: old,
      ...(olds.length > 1 ? { old_colors: olds } : {}),
      ...held.note,
      ...rerender(ctx, doc, layer, restyle(layer.text, { color: held.color })),
    };
  },

  set_text_font({ name, font_name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改字体');
    const old = layer.text.font;
    const font = font_name.trim();
    if (font === '') {
      fail('invalid_arguments', 'font_name 不能为空', {
        hint: `给出字体名称，如内置的 ${BUNDLED_FAMILIES.join('、')}，或本机已安装的字体`,
        details: { font_name: '不能为空' },
      });
    }
    // Any spelling of the same bundled weight (a file's PostScript name, 思源黑体 Bold) is the same font.
    const olds = [...new Set(stylesOf(layer.text).map((st) => st.font))];
    if (olds.every((f) => fontShownAs(f) === fontShownAs(font))) {
      return unchanged(ctx, doc, layer, `字体已经是“${old}”`);
    }
    return {
      old_font: old,
      ...(olds.length > 1 ? { old_fonts: olds } : {}),
      ...rerender(ctx, doc, layer, restyle(layer.text, { font })),
    };
  },

  set_text_spacing(
    { name, leading, tracking, indent_first, indent_left, indent_right, space_before, space_after },
    ctx,
  ) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改行距字距');
    const given = { leading, tracking, indent_first, indent_left, indent_right, space_before, space_after };
    if (Object.values(given).every((v) => v === undefined)) {
      fail('invalid_arguments', `没有要修改的项：至少给出 ${Object.keys(given).join('、')} 之一`, {
        hint: '如 {"name": "标题", "tracking": 200} 把字距加到每字 0.2 个字宽，{"leading": 0} 恢复自动行距',
      });
    }
    const spec = withSpacing(layer.text, {
      ...(leading !== undefined ? { leading } : {}),
      ...(tracking !== undefined ? { tracking } : {}),
      ...(indent_first !== undefined ? { indentFirst: indent_first } : {}),
      ...(indent_left !== undefined ? { indentLeft: indent_left } : {}),
      ...(indent_right !== undefined ? { indentRight: indent_right } : {}),
      ...(space_before !== undefined ? { spaceBefore: space_before } : {}),
      ...(space_after !== undefined ? { spaceAfter: space_after } : {}),
    });
    if (sameRuns(spec, layer.text) && sameParagraph(spec, layer.text)) {
      return unchanged(ctx, doc, layer, '行距、字距、缩进和段落间距已经是所给的值');
    }
    return { old: spacingSummary(layer.text), ...rerender(ctx, doc, layer, spec) };
  },

  set_text_alignment({ name, alignment }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改文字对齐');
    const { justification = 'left', box } = paragraphOf(layer.text);
    if (!box && !(POINT_JUSTIFICATIONS as readonly string[]).includes(alignment)) {
      fail('invalid_arguments', `“${layer.name}”是点文字（没有文本框），不能两端对齐（${alignment}）`, {
        hint: `点文字只能 ${POINT_JUSTIFICATIONS.join('、')}，两端对齐只用于段落文本（Photoshop 中同样不可用）`,
        details: [{ parameter: 'alignment', value: alignment, allowed: [...POINT_JUSTIFICATIONS] }],
      });
    }
    // Every paragraph, as Photoshop's buttons with the whole layer chosen.
    const paragraphs = paragraphList(layer.text);
    if (paragraphs.every((p) => (p.justification ?? 'left') === alignment)) {
      return unchanged(ctx, doc, layer, `对齐方式已经是 ${alignment}`);
    }
    const spec = withParagraphs(
      layer.text,
      paragraphs.map(({ justification: _was, ...rest }) =>
        alignment === 'left' ? rest : { ...rest, justification: alignment },
      ),
    );
    return {
      old_alignment: justification,
      note: box
        ? '文字在段落文本框内重新对齐，文本框不动'
        : '点文字以锚点为准重新对齐（左对齐从锚点起，居中以锚点为中点，右对齐到锚点止），文字随之移动，如 Photoshop；要在画布上居中请用 align_layers',
      ...rerender(ctx, doc, layer, spec),
    };
  },

  set_text_box({ name, width, height }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改文本框');
    if (width === undefined && height === undefined) {
      fail('invalid_arguments', '没有要修改的项：至少给出 width、height 之一', {
        hint: '如 {"name": "正文", "height": 400} 把文本框加高到 400 像素，放下溢出的文字',
      });
    }
    const { box } = paragraphOf(layer.text);
    if (!box) {
      fail('invalid_state', `“${layer.name}”是点文字，没有文本框`, {
        hint: '点文字按换行符分行、不自动换行；要让文字在框内换行，用 create_paragraph_text 新建段落文字（可先 delete_layer 删除这一层）',
      });
    }
    const [left, top, right, bottom] = box;
    const next: TextBox = [left, top, left + (width ?? right - left), top + (height ?? bottom - top)];
    if (next[2] === right && next[3] === bottom) {
      return unchanged(ctx, doc, layer, `文本框已经是 ${right - left}×${bottom - top} 像素`);
    }
    return {
      old_box: { width: right - left, height: bottom - top },
      note: '文本框左上角不动，文字在框内重新换行，字号不变',
      ...rerender(ctx, doc, layer, { ...layer.text, box: next }),
    };
  },

  set_text_size({ name, size }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改字号');
    const old = layer.text.size;
    const olds = [...new Set(stylesOf(layer.text).map((st) => st.size))];
    if (olds.length === 1 && old === size) return unchanged(ctx, doc, layer, `字号已经是 ${size} 像素`);
    // Every character, as Photoshop's size with the whole layer chosen (resize_layer scales them in proportion).
    return {
      old_size: old,
      ...(olds.length > 1 ? { old_sizes: olds } : {}),
      note: `${resizeNote(layer.text)}${olds.length > 1 ? '；原来各字字号不同，现都为此字号（要按比例缩放各字请用 resize_layer）' : ''}`,
      ...rerender(ctx, doc, layer, restyle(layer.text, { size })),
    };
  },

  set_text_orientation({ name, orientation }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改文字方向');
    const was = isVertical(layer.text) ? 'vertical' : 'horizontal';
    if (was === orientation)
      return unchanged(ctx, doc, layer, `文字已经是${orientation === 'vertical' ? '直排' : '横排'}`);
    return {
      old_orientation: was,
      note:
        (paragraphOf(layer.text).box
          ? '段落文本框不动，文字在框内按新方向重新排列'
          : '锚点不动（横排为第一行基线的起点，直排为第一列顶端的中线），文字绕它按新方向重新排列，如 Photoshop') +
        (layer.text.warp && orientation === 'vertical' ? '；直排文字不保留扇形变形，已拉直' : ''),
      ...rerender(ctx, doc, layer, turnedTo(layer.text, orientation)),
    };
  },

  set_text_warp({ name, bend }, ctx) {
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '文字变形');
    const was = layer.text.warp?.bend ?? 0;
    if (was === bend) {
      return unchanged(ctx, doc, layer, bend === 0 ? '文字没有变形' : `文字已经弯成 ${bend}% 的扇形`);
    }
    if (bend !== 0 && isVertical(layer.text)) {
      fail('invalid_state', `“${layer.name}”是直排文字，不能弯成扇形`, {
        hint: '先用 set_text_orientation 改为横排（horizontal）再变形',
      });
    }
    if (bend !== 0 && paragraphOf(layer.text).box) {
      fail('invalid_state', `“${layer.name}”是段落文字（有文本框），不能弯成扇形`, {
        hint: '扇形变形用于点文字：用 create_text_layer 建点文字再变形',
      });
    }
    const { warp, ...rest } = layer.text;
    // A bend changed keeps the box the file's warp bends (Photoshop's own); a new warp takes the font's.
    const spec = bend === 0 ? rest : { ...rest, warp: warp ? { ...warp, bend } : newTextWarp(rest, bend) };
    return {
      old_bend: was,
      note:
        bend === 0
          ? '已去掉扇形变形，文字恢复为直线'
          : `已弯成 ${bend}% 的扇形（${bend > 0 ? '向上拱起' : '向下弯'}），文字仍可编辑，保存的 PSD 中可在 Photoshop 继续调整`,
      ...rerender(ctx, doc, layer, spec),
    };
  },

  async style_text_range(args, ctx) {
    const { name, text: match, occurrence, font_size, color, font_name } = args;
    const doc = activeDoc(ctx);
    const layer = editableText(ctx, doc.state, name, '修改文字样式');
    const { faux_bold, faux_italic, underline, strikethrough } = args;
    const faux = { fauxBold: faux_bold, fauxItalic: faux_italic, underline, strikethrough };
    const settings = settingsChangeOf(args);
    // Everything it can change: all its parameters but those naming the characters.
    const naming = ['name', 'text', 'occurrence'];
    const changes = Object.keys(findTool('style_text_range')!.parameters.properties).filter(
      (k) => !naming.includes(k),
    );
    if (changes.every((k) => (args as Record<string, unknown>)[k] === undefined)) {
      fail('invalid_arguments', `没有要修改的项：至少给出 ${changes.join('、')} 之一`, {
        hint: '如 {"name": "标题", "text": "5折", "font_size": 120, "color": "#e60012"} 把“5折”放大并改为红色',
      });
    }
    const font = font_name?.trim();
    if (font === '') {
      fail('invalid_arguments', 'font_name 不能为空', {
        hint: `给出字体名称，如内置的 ${BUNDLED_FAMILIES.join('、')}，或省略 font_name`,
        details: { font_name: '不能为空' },
      });
    }
    const content = layer.text.content;
    const at = occurrencesOf(content, match);
    if (at.length === 0) {
      fail('not_found', `“${layer.name}”的文字中没有“${match}”`, {
        hint: 'text 须与图层中的文字完全一致（区分大小写，换行写作 \\n）；文字内容见结果中的 content',
        details: { content },
      });
    }
    if (occurrence !== undefined && occurrence > at.length) {
      fail('out_of_bounds', `“${match}”在“${layer.name}”中只出现 ${at.length} 处，没有第 ${occurrence} 处`, {
        hint: `occurrence 取 1 到 ${at.length}，或省略以改所有出现处`,
        details: [{ parameter: 'occurrence', value: occurrence, max: at.length }],
      });
    }
    const held = color !== undefined ? await heldColorFields(doc.state, color) : undefined;
    const change = {
      ...(font !== undefined ? { font } : {}),
      ...(font_size !== undefined ? { size: font_size } : {}),
      ...(held ? { color: held.color } : {}),
      ...faux,
      ...settings,
    };
    const chosen = occurrence !== undefined ? [at[occurrence - 1]!] : at;
    let spec = layer.text;
    for (const start of chosen) spec = restyle(spec, change, start, start + match.length);
    if (sameRuns(spec, layer.text)) {
      return { ...unchanged(ctx, doc, layer, `“${match}”已经是所给的样式`), ...held?.note };
    }
    return {
      styled: { match, occurrences: chosen.length, of: at.length },
      ...held?.note,
      ...rerender(ctx, doc, layer, spec),
    };
  },
} satisfies ToolHandlers;
