/**
 * The English display labels: every tool has one (the type requires it), they are unique (the Chinese ones are
 * not: the spec gives align_layers and align_layers_tool the same), they reach the studio's registry format,
 * and the schemas published to models stay exactly as before (no English label in them).
 */
import { describe, expect, it } from 'vitest';
import { exportTools, formats, toRegistry } from '../../src/registry/formats/index.js';
import { GARMENT_PART_LABELS_EN, GARMENT_PARTS } from '../../src/registry/garment-parts.js';
import { allTools, toolsOf, variants } from '../../src/registry/index.js';

const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/u;

describe('English labels', () => {
  it('every tool has a short, non-empty English label without Chinese in it', () => {
    for (const t of allTools) {
      expect(typeof t.labelEn, t.name).toBe('string');
      expect(t.labelEn.trim(), t.name).not.toBe('');
      expect(t.labelEn, t.name).toBe(t.labelEn.trim());
      expect(t.labelEn, t.name).not.toMatch(CJK);
      expect(t.labelEn.length, t.name).toBeLessThanOrEqual(28);
    }
  });

  it('are unique (case-insensitively), where the Chinese labels are not', () => {
    const seen = new Map<string, string>();
    for (const t of allTools) {
      const key = t.labelEn.toLowerCase();
      expect(seen.get(key), `${t.name} and ${seen.get(key)} share “${t.labelEn}”`).toBeUndefined();
      seen.set(key, t.name);
    }
    // The one Chinese label two tools share (the palette shows their names beside it) is told apart in English.
    const align = allTools.filter((t) => t.label === '对齐图层').map((t) => t.labelEn);
    expect(align).toHaveLength(2);
    expect(new Set(align).size).toBe(2);
  });

  it("uses Photoshop's English terms where it has one", () => {
    const en = Object.fromEntries(allTools.map((t) => [t.name, t.labelEn]));
    expect(en).toMatchObject({
      merge_visible: 'Merge Visible',
      flatten_image: 'Flatten Image',
      gaussian_blur: 'Gaussian Blur',
      adjust_brightness_contrast: 'Brightness/Contrast',
      adjust_hsl: 'Hue/Saturation',
      adjust_levels: 'Levels',
      create_clipping_mask: 'Create Clipping Mask',
      resize_canvas: 'Canvas Size',
      resize_image: 'Image Size',
      save_document_as: 'Save As',
    });
  });

  it('every garment part has an English name too', () => {
    for (const [part] of GARMENT_PARTS) {
      expect(GARMENT_PART_LABELS_EN[part]?.trim(), part).toBeTruthy();
      expect(GARMENT_PART_LABELS_EN[part], part).not.toMatch(CJK);
    }
    expect(new Set(Object.values(GARMENT_PART_LABELS_EN)).size).toBe(GARMENT_PARTS.length);
  });

  it("reach the studio's registry format (tools, groups, garment parts)", () => {
    const reg = toRegistry(toolsOf('extended'));
    reg.tools.forEach((t, i) => {
      expect(t.labelEn).toBe(toolsOf('extended')[i]!.labelEn);
    });
    for (const g of reg.groups) expect(g.labelEn, g.id).toMatch(/^[A-Za-z][\w &/-]*$/);
    expect(reg.parts.map((p) => [p.id, p.label])).toEqual(GARMENT_PARTS.map(([id, zh]) => [id, zh]));
    for (const p of reg.parts) expect(p.labelEn).toBe(GARMENT_PART_LABELS_EN[p.id]);
  });

  it('are in no format published to a model (OpenAI, Responses, Anthropic, Gemini, MCP)', () => {
    const words = new Set<string>(allTools.map((t) => t.labelEn));
    for (const v of variants) {
      for (const f of formats.filter((x) => x !== 'registry')) {
        for (const strict of [false, true]) {
          const json = JSON.stringify(exportTools(toolsOf(v), f, { strict }));
          expect(json, `${v} ${f}`).not.toContain('labelEn');
          // MCP's title is the Chinese label, as before.
          if (f === 'mcp') {
            for (const tool of JSON.parse(json) as { title: string }[])
              expect(words.has(tool.title)).toBe(false);
          }
        }
      }
    }
  });
});
