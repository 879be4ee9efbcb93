import { describe, expect, it } from 'vitest';
import { SUMMARY_LAYER_LIMIT, stateSummary, systemPrompt } from '../../src/agent/prompt.js';
import type { LayerNode, SessionSnapshot } from '../../src/calls/snapshot.js';
import { allTools, toolsOf, variants } from '../../src/registry/index.js';

const layer = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'pixel',
  visible: true,
  locked: false,
  opacity: 100,
  blend_mode: 'normal',
  bounds: { left: 1, top: 2, width: 3, height: 4 },
  ...extra,
});

function snapshot(layers: unknown[], garment: Partial<SessionSnapshot['garment']> = {}): SessionSnapshot {
  const doc = {
    name: '海报',
    width: 800,
    height: 600,
    resolution: 150,
    mode: 'RGB' as const,
    path: null,
    unsaved_changes: true,
    active: true,
  };
  return {
    documents: [doc, { ...doc, name: '草稿', active: false, unsaved_changes: false }],
    active: {
      ...doc,
      active_layer: '标题',
      active_layer_id: 1,
      layers: layers as LayerNode[],
      selected_layers: ['标题', '色块'],
      selected_layer_ids: [1, 2],
      has_selection: true,
      foreground: '#000000',
      selection: { bounds: { x: 10, y: 20, w: 300, h: 200 }, outline: 'M10 20H310V220H10Z' },
      history: { labels: ['打开', '新建图层', '创建文字', '设置透明度'], index: 2 },
    },
    garment: {
      photo: null,
      document: null,
      pieces: [],
      previewed: false,
      preview_applied: false,
      applied: false,
      unavailable_types: [],
      ...garment,
    },
  };
}

describe('stateSummary', () => {
  it('lists documents, the layer tree with its traits, selection, history and garment state', () => {
    const text = stateSummary(
      snapshot(
        [
          layer('标题', { type: 'text', opacity: 40, blend_mode: 'multiply', locked: true }),
          {
            ...layer('组 1', { type: 'group' }),
            children: [layer('色块', { visible: false, clipped: true })],
          },
        ],
        {
          photo: 'shirt.jpg',
          pieces: [
            {
              name: '前片',
              part: 'front',
              part_label: '前片',
              confidence: 0.9,
              alternatives: [],
              confirmed: false,
              turn: 0,
              turn_by: null,
              tilt: 0,
              tilt_by: null,
              bounds: { x: 0, y: 0, w: 300, h: 400 },
              size: null,
              type: 'fill_pattern',
              color: '#112233',
            },
            {
              name: '图层 2',
              part: 'back',
              part_label: '后片',
              confidence: 0.55,
              alternatives: [
                { part_label: '前片', confidence: 0.45 },
                { part_label: '袖口', confidence: 0.06 },
              ],
              confirmed: false,
              turn: 90,
              turn_by: 'shape',
              tilt: -4.2,
              tilt_by: 'shape',
              bounds: { x: 320, y: 0, w: 300, h: 400 },
              size: null,
              type: null,
              color: null,
            },
          ],
          previewed: true,
        },
      ),
    );
    expect(text).toContain(
      '海报（800×600 px，150 DPI，RGB，有未保存的修改，当前）；草稿（800×600 px，150 DPI，RGB）',
    );
    expect(text).toContain('\n- 标题（text，锁定，不透明度 40%，multiply，1,2 3×4）\n');
    expect(text).toContain('\n- 组 1（group）\n  - 色块（pixel，隐藏，剪贴，1,2 3×4）\n');
    expect(text).toContain('选中的图层：标题、色块');
    expect(text).toContain('选区：有（10, 20 起 300×200 像素的范围内）');
    expect(text).toContain('最近的历史步骤：新建图层 → 创建文字（之后还有可重做的步骤）');
    expect(text).toContain('服装照片：已上传（shirt.jpg）');
    expect(text).toContain(
      '已识别裁片：前片=前片/fill_pattern/#112233，图层 2=后片（也可能是前片或袖口，待用户确认）（版图上转 90°）（版图上逆时针斜 4.2°）',
    );
    expect(text).toContain('套图：已生成预览，尚未应用');
  });

  it('tells an applied preview from a newer one not applied yet', () => {
    const line = (garment: Partial<SessionSnapshot['garment']>) =>
      /套图：.*/.exec(stateSummary(snapshot([], garment)))?.[0];
    expect(line({ previewed: true, preview_applied: true, applied: true })).toBe('套图：已应用');
    expect(line({ previewed: true, applied: true })).toBe('套图：已应用；之后生成的新预览尚未应用');
    expect(line({ applied: true })).toBe('套图：已应用');
    expect(line({})).toBeUndefined();
  });

  it(`lists at most ${SUMMARY_LAYER_LIMIT} layers and says how to see the rest`, () => {
    const many = Array.from({ length: SUMMARY_LAYER_LIMIT + 15 }, (_, i) => layer(`裁片 ${i}`));
    const text = stateSummary(snapshot(many));
    expect(text.match(/^- 裁片/gm)).toHaveLength(SUMMARY_LAYER_LIMIT);
    expect(text).toContain('另有 15 个图层未列出（用 list_all_layer_names 查看全部）');
  });

  it('says when nothing is open', () => {
    const text = stateSummary({ documents: [], active: null, garment: snapshot([]).garment });
    expect(text).toContain('没有打开的文档');
    expect(text).toContain('服装照片：未上传');
  });
});

describe('systemPrompt', () => {
  it('states the garment order with the wait for confirmation, and how to read a failed call', () => {
    const text = systemPrompt({ vision: true });
    const order = [
      'identify_pieces',
      'generate_garment_preview',
      '等待用户确认',
      'extract_and_apply_all_pieces',
      'verify_pattern_result',
    ];
    const at = order.map((w) => text.indexOf(w));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(text).toMatch(/hint/);
    expect(text).toContain('作为一条用户消息发给你');
    expect(systemPrompt({ vision: false })).toContain('你看不到图像');
  });
});

describe.each(variants)('the prompt and the summary with the %s tools', (variant) => {
  it('name only tools the model is given', () => {
    const offered = new Set(toolsOf(variant).map((t) => t.name));
    const many = Array.from({ length: SUMMARY_LAYER_LIMIT + 1 }, (_, i) => layer(`裁片 ${i}`));
    const text = [
      systemPrompt({ vision: true, tools: offered }),
      systemPrompt({ vision: false, tools: offered }),
      stateSummary(snapshot(many), offered),
    ].join('\n');
    const named = allTools.map((t) => t.name).filter((name) => new RegExp(`\\b${name}\\b`).test(text));
    expect(named.filter((name) => !offered.has(name))).toEqual([]);
    expect(named).toContain('identify_pieces');
    expect(text).toMatch(/另有 1 个图层未列出（用 \w+ 查看全部）/);
  });
});
