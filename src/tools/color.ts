/**
 * Colour, guides and colour modes: set_foreground_color, get_pixel_color, add_guide, clear_guides,
 * convert_to_rgb, convert_to_cmyk (SPEC.md §4.3, DESIGN.md §4 "Colour modes").
 */
import { cmykAt, convertStateToCmyk } from '../engine/color-mode.js';
import { fail } from '../engine/errors.js';
import type { DocState, Guide } from '../engine/model.js';
import { documentProfile, pressProfile, profileSummary } from '../engine/press-profile.js';
import { rgbToHex } from '../engine/raster.js';
import { documentSummary } from './describe.js';
import { undrawnAdjustments } from './guards.js';
import { heldColor } from './held-color.js';
import { activeDoc } from './resolve.js';
import type { ToolHandlers } from './types.js';

const DIRECTION_NAMES = { horizontal: '水平', vertical: '垂直' } as const;

function guideList(state: DocState) {
  return state.guides.map((g) => ({ direction: g.direction, position: g.position }));
}

export const colorHandlers = {
  async set_foreground_color({ color }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const held = await heldColor(s, color);
    const previous = rgbToHex(s.foreground);
    if (held.hex !== previous) {
      ctx.tx.update(doc.id, { ...s, foreground: held.color });
      // Photoshop does not record colour changes in the History panel.
      ctx.tx.skipHistoryStep();
    }
    return {
      foreground: held.hex,
      previous,
      ...(held.hex !== color ? { requested_color: color } : {}),
      ...(held.inks ? { inks: held.inks } : {}),
      ...(held.note ? { note: held.note } : {}),
    };
  },

  async get_pixel_color({ x, y }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const px = Math.floor(x);
    const py = Math.floor(y);
    if (px >= s.width || py >= s.height) {
      fail('out_of_bounds', `点（${x}, ${y}）在画布之外：画布为 ${s.width}×${s.height} 像素`, {
        hint: `x 取 0 到 ${s.width - 1}，y 取 0 到 ${s.height - 1}`,
      });
    }
    const img = ctx.tx.peekComposite(doc.id);
    const lx = px - img.x;
    const ly = py - img.y;
    const inside = lx >= 0 && ly >= 0 && lx < img.w && ly < img.h;
    const i = (ly * img.w + lx) * 4;
    const [r, g, b, a] = inside ? [...img.data.subarray(i, i + 4)] : [0, 0, 0, 0];
    const mode = s.mode === 'cmyk' ? 'CMYK' : 'RGB';
    if (a === 0) {
      return {
        x: px,
        y: py,
        transparent: true,
        hex: null,
        r: 0,
        g: 0,
        b: 0,
        a: 0,
        alpha: 0,
        mode,
        note: '该点完全透明，没有颜色',
      };
    }
    const rgb = { r: r!, g: g!, b: b! };
    const cmyk = s.mode === 'cmyk' ? { cmyk: await cmykAt(s, px, py, rgb, a!) } : {};
    return {
      x: px,
      y: py,
      hex: rgbToHex(rgb),
      r,
      g,
      b,
      a,
      alpha: Math.round((a! / 255) * 1000) / 10,
      mode,
      ...cmyk,
    };
  },

  add_guide({ position, direction }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const limit = direction === 'vertical' ? s.width : s.height;
    if (position > limit) {
      const axis = direction === 'vertical' ? `宽 ${s.width}` : `高 ${s.height}`;
      fail(
        'out_of_bounds',
        `${DIRECTION_NAMES[direction]}参考线位置 ${position} 超出画布（${s.width}×${s.height} 像素，${axis}）`,
        {
          hint: `${DIRECTION_NAMES[direction]}参考线的位置范围是 0 到 ${limit}`,
        },
      );
    }
    const guide: Guide = { direction, position };
    const next: DocState = { ...s, guides: [...s.guides, guide] };
    ctx.tx.update(doc.id, next);
    return { guide: { direction, position }, guide_count: next.guides.length, guides: guideList(next) };
  },

  clear_guides(_args, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const cleared = s.guides.length;
    if (cleared > 0) ctx.tx.update(doc.id, { ...s, guides: [] });
    return { cleared, ...(cleared === 0 ? { note: '文档中没有参考线' } : {}) };
  },

  convert_to_rgb(_args, ctx) {
    const doc = activeDoc(ctx);
    if (doc.state.mode === 'rgb') {
      return { changed: false, note: '文档已是 RGB 模式，未做改变', document: documentSummary(doc) };
    }
    // The CMYK profile it had goes with the mode: converted back, it takes the press profile, as Photoshop's working space.
    const { cmykProfile: _own, ...rgb } = doc.state;
    ctx.tx.update(doc.id, { ...rgb, mode: 'rgb' });
    return {
      changed: true,
      note: '已转为 RGB 模式；转为 CMYK 时被裁剪的颜色不会恢复',
      document: documentSummary(activeDoc(ctx)),
    };
  },

  async convert_to_cmyk(_args, ctx) {
    const doc = activeDoc(ctx);
    if (doc.state.mode === 'cmyk') {
      const own = documentProfile(doc.state);
      return {
        changed: false,
        profile: profileSummary(own),
        note: `文档已是 CMYK 模式（配置文件“${own.name}”），未做改变`,
        document: documentSummary(doc),
      };
    }
    const profile = pressProfile();
    const before = doc.state;
    const converted = await convertStateToCmyk(before);
    ctx.tx.update(doc.id, converted);
    // Photoshop keeps adjustment layers through the mode change ("Don't Flatten"), and they then act on the inks,
    // which the engine does not draw (adjust/layer.ts): said, so a preview without them is not a surprise. Merging
    // before converting keeps the effect only of those drawn in RGB.
    const shown = undrawnAdjustments(converted, converted.root);
    if (shown.length > 0) {
      const rgb = new Set(undrawnAdjustments(before, before.root).map((u) => u.id));
      const mergeable = shown.filter((u) => !rgb.has(u.id)).map((u) => `“${u.name}”`);
      ctx.warn(
        `调整图层${shown.map((u) => `“${u.name}”`).join('、')}已保留，保存 PSD 时写回（Photoshop 中照常生效）；但在 CMYK 文档中调整作用于油墨通道，Atelier 不绘制，预览和导出的图像不含它们的效果${
          mergeable.length
            ? `（需要${mergeable.join('、')}的效果时，请撤销转换（undo），用 merge_visible 或 flatten_image 把它们合并到像素中后再转换）`
            : ''
        }`,
      );
    }
    return {
      changed: true,
      profile: profileSummary(profile),
      note: `已按 CMYK 印刷配置文件“${profile.name}”转换，超出 CMYK 色域的颜色已被裁剪；保存的 PSD 与导出的 JPG 均为 CMYK，并嵌入该配置文件`,
      document: documentSummary(activeDoc(ctx)),
    };
  },
} satisfies ToolHandlers;
