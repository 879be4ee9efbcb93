/**
 * The descriptions: Chinese (SPEC §2.1), stating the ranges and defaults of SPEC §8/§4, the piece colour
 * rule (§2.3), the pattern call order (§1, §4.2) and both trim modes (§4.4).
 */
import { describe, expect, it } from 'vitest';
import { findTool, type ParamSchema, type ToolDefinition, toolsOf } from '../../src/registry/index.js';
import { type Mention, SPEC_RANGES, SPEC_TOOLS } from './spec-table.js';

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/gu;
/** Five or more Latin words in a row separated only by spaces: an English phrase, not an identifier. */
const ENGLISH_RUN = /[A-Za-z][A-Za-z'’]*(?:[ \t]+[A-Za-z][A-Za-z'’]*){4,}/;

/**
 * Identifiers the descriptions may quote verbatim (tool names, parameter names, enum values): they are not
 * English prose, so they are blanked out before looking for English phrases.
 */
const identifiers = new Set<string>();
for (const t of toolsOf('extended')) {
  identifiers.add(t.name);
  for (const [p, s] of Object.entries(t.parameters.properties)) {
    identifiers.add(p);
    for (const e of s.enum ?? []) identifiers.add(e);
    for (const [f, fs] of Object.entries(itemFields(s))) {
      identifiers.add(f);
      for (const e of fs.enum ?? []) identifiers.add(e);
    }
  }
}
for (const t of SPEC_TOOLS) {
  identifiers.add(t.name);
  for (const p of t.params) {
    identifiers.add(p.name);
    for (const e of p.enum ?? []) identifiers.add(e);
  }
}

function itemFields(schema: ParamSchema): Record<string, ParamSchema> {
  const items = schema.items;
  return items && items.type === 'object' ? { ...items.properties } : {};
}

/**
 * The rule for "is Chinese": a text is Chinese when it contains at least two CJK ideographs and no
 * English phrase — five or more Latin words in a row separated only by spaces — once identifiers the model
 * must type verbatim (tool/parameter names, enum values) are removed. This accepts the usual mixed style
 * ("left 左对齐、right 右对齐", "颜色（hex，如 #FF0000）", "RGB", "DPI") and rejects English sentences or
 * descriptions left untranslated. Returns the reason a text is not Chinese, or null when it is.
 */
function notChinese(text: string): string | null {
  if (text.trim() === '') return 'empty';
  const cjk = text.match(CJK)?.length ?? 0;
  if (cjk < 2) return `only ${cjk} CJK character(s)`;
  const stripped = text.replace(/[A-Za-z][A-Za-z0-9_-]*/g, (w) => (identifiers.has(w) ? '·' : w));
  const run = stripped.match(ENGLISH_RUN);
  if (run) return `contains the English phrase "${run[0]}"`;
  return null;
}

/** Every description of a tool, labelled for messages: the tool's, its parameters', its item fields'. */
function descriptionsOf(tool: ToolDefinition): [string, string][] {
  const out: [string, string][] = [[`${tool.name}.description`, tool.description]];
  for (const [p, s] of Object.entries(tool.parameters.properties)) {
    out.push([`${tool.name}.${p}.description`, s.description]);
    for (const [f, fs] of Object.entries(itemFields(s))) {
      out.push([`${tool.name}.${p}[].${f}.description`, fs.description]);
    }
  }
  return out;
}

/** The tool's description and all its parameter (and item field) descriptions, concatenated. */
function allText(tool: ToolDefinition): string {
  return descriptionsOf(tool)
    .map(([, d]) => d)
    .join('\n');
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MINUS = '[-−－]';

/**
 * Whether `text` states the number `n` as a number of its own: `1` is not found inside `150` or `0.1`;
 * `-150` needs a minus sign (or ±) before 150; a positive number does not count when only its negative is
 * written (`-100` does not state `100`), but a range dash after a digit does (`0-100` states 100).
 */
function mentionsNumber(text: string, n: string): boolean {
  const negative = n.startsWith('-');
  const body = escapeRe(negative ? n.slice(1) : n);
  const after = '(?![0-9]|\\.[0-9])';
  const re = negative
    ? new RegExp(`(?:(?<![0-9])${MINUS}|±)\\s?${body}${after}`, 'u')
    : new RegExp(`(?<![0-9.])(?<!(?:^|[^0-9])${MINUS})${body}${after}`, 'u');
  return re.test(text);
}

function mentions(text: string, m: string): boolean {
  return /^-?[0-9.]+$/.test(m) ? mentionsNumber(text, m) : text.includes(m);
}

function mentionsAny(text: string, m: Mention): boolean {
  return typeof m === 'string' ? mentions(text, m) : m.some((alt) => mentions(text, alt));
}

describe('number matching (self-check)', () => {
  it('finds numbers as numbers, not as digits of others', () => {
    expect(mentionsNumber('0 到 100', '0')).toBe(true);
    expect(mentionsNumber('100', '0')).toBe(false);
    expect(mentionsNumber('150', '1')).toBe(false);
    expect(mentionsNumber('0.1 到 9.99', '1')).toBe(false);
    expect(mentionsNumber('默认 1.0', '1.0')).toBe(true);
    expect(mentionsNumber('-150 到 150', '-150')).toBe(true);
    expect(mentionsNumber('−150～150', '-150')).toBe(true);
    expect(mentionsNumber('±150', '-150')).toBe(true);
    expect(mentionsNumber('±150', '150')).toBe(true);
    expect(mentionsNumber('150', '-150')).toBe(false);
    expect(mentionsNumber('只有 -100', '100')).toBe(false);
    expect(mentionsNumber('0-100', '100')).toBe(true);
    expect(mentionsNumber('1-10 分', '1')).toBe(true);
    expect(mentionsNumber('1-10 分', '10')).toBe(true);
  });

  it('the Chinese rule accepts mixed identifiers and rejects English prose', () => {
    expect(notChinese('对齐方式：left 左对齐、right 右对齐')).toBeNull();
    expect(notChinese('颜色，十六进制，如 #FF0000')).toBeNull();
    expect(notChinese('Returns the name of the current document.')).not.toBeNull();
    expect(notChinese('名称 whatever you would like to call it')).not.toBeNull();
    expect(notChinese('')).not.toBeNull();
  });
});

describe('descriptions are Chinese', () => {
  for (const tool of toolsOf('extended')) {
    it(tool.name, () => {
      const problems = descriptionsOf(tool)
        .map(([where, text]) => {
          const why = typeof text === 'string' ? notChinese(text) : 'not a string';
          return why ? `${where}: ${why} — ${JSON.stringify(text)}` : null;
        })
        .filter((x) => x !== null);
      expect(problems, `tool ${tool.name}: descriptions that are not Chinese`).toEqual([]);
    });
  }
});

describe('descriptions state the spec ranges and defaults (SPEC §8, §4)', () => {
  for (const row of SPEC_RANGES) {
    if (row.mentions.length === 0) continue;
    it(`${row.tool}${row.param ? `.${row.param}` : ''}: ${row.mentions.map((m) => (typeof m === 'string' ? m : m.join('|'))).join(', ')}`, () => {
      const tool = findTool(row.tool);
      expect(tool, `tool ${row.tool}`).toBeDefined();
      if (!tool) return;
      const text = allText(tool);
      const missing = row.mentions.filter((m) => !mentionsAny(text, m));
      expect(missing, `tool ${row.tool}: numbers/words missing from its descriptions:\n${text}`).toEqual([]);
    });
  }
});

describe('garment pattern tools (SPEC §1, §2.3, §4.2)', () => {
  const tool = (name: string): ToolDefinition => {
    const t = findTool(name);
    if (!t) throw new Error(`tool ${name} is missing`);
    return t;
  };

  it('extract_and_apply_all_pieces says color is required for solid and theme_pattern', () => {
    const t = tool('extract_and_apply_all_pieces');
    const candidates = descriptionsOf(t);
    // "Near": within 40 characters either side of a 必/须 (必须, 必填, 须…) the text names solid, theme_pattern
    // and the colour (颜色/color) — the colour word may be left out in the description of the color field itself.
    const says = ([where, d]: [string, string]): boolean => {
      const isColorField = where.endsWith('.color.description');
      for (const m of d.matchAll(/必|须/g)) {
        const i = m.index ?? 0;
        const near = d.slice(Math.max(0, i - 40), i + 40);
        if (
          near.includes('solid') &&
          near.includes('theme_pattern') &&
          (isColorField || /颜色|color/i.test(near))
        ) {
          return true;
        }
      }
      return false;
    };
    expect(
      candidates.some(says),
      `one of these descriptions must say, near 必/须, that solid and theme_pattern need the colour:\n${candidates
        .map(([w, d]) => `${w}: ${d}`)
        .join('\n')}`,
    ).toBe(true);
  });

  it('extract_and_apply_all_pieces describes the four piece types', () => {
    const text = allText(tool('extract_and_apply_all_pieces'));
    const missing = ['solid', 'fill_pattern', 'theme_pattern', 'mixed_pattern'].filter(
      (w) => !text.includes(w),
    );
    expect(missing, `piece types missing from:\n${text}`).toEqual([]);
  });

  it('identify_pieces says it comes first (before applying patterns)', () => {
    const text = allText(tool('identify_pieces'));
    expect(text, 'identify_pieces: 先/之前/首先').toMatch(/先|之前|首先/);
  });

  it('generate_garment_preview names identify_pieces, the uploaded photo and confirmation', () => {
    const text = allText(tool('generate_garment_preview'));
    expect(text, 'generate_garment_preview mentions identify_pieces').toContain('identify_pieces');
    expect(text, 'generate_garment_preview mentions 上传 (upload)').toContain('上传');
    expect(text, 'generate_garment_preview mentions 确认 (user confirms)').toContain('确认');
  });

  it('extract_and_apply_all_pieces names identify_pieces and the confirmed preview', () => {
    const text = allText(tool('extract_and_apply_all_pieces'));
    expect(text, 'extract_and_apply_all_pieces mentions identify_pieces').toContain('identify_pieces');
    expect(
      text.includes('generate_garment_preview') || (text.includes('预览') && text.includes('确认')),
      `extract_and_apply_all_pieces mentions generate_garment_preview or the confirmed preview (预览+确认):\n${text}`,
    ).toBe(true);
  });

  it('verify_pattern_result scores 1 to 10 and comes after pattern application', () => {
    const text = allText(tool('verify_pattern_result'));
    expect(
      mentionsNumber(text, '1') && mentionsNumber(text, '10'),
      `verify_pattern_result: 1 and 10:\n${text}`,
    ).toBe(true);
    expect(text, 'verify_pattern_result: after applying (extract_and_apply_all_pieces or 套图)').toMatch(
      /extract_and_apply_all_pieces|套图/,
    );
  });
});

describe('other description duties', () => {
  it('trim_document describes both modes (transparent and topleft, or 透明 and 左上角)', () => {
    const t = findTool('trim_document');
    expect(t, 'tool trim_document').toBeDefined();
    const text = t ? allText(t) : '';
    expect(
      (text.includes('transparent') && text.includes('topleft')) ||
        (text.includes('透明') && text.includes('左上角')),
      `trim_document descriptions:\n${text}`,
    ).toBe(true);
  });

  it('add_layer_mask mentions a mask from the current selection (选区)', () => {
    const t = findTool('add_layer_mask');
    expect(t, 'tool add_layer_mask').toBeDefined();
    expect(t ? allText(t) : '', 'add_layer_mask mentions 选区').toContain('选区');
  });
});

describe('a query that makes its layer the current one says so (DESIGN.md: a tool that names a layer makes it active)', () => {
  for (const tool of toolsOf('extended')) {
    const namesLayer = Object.keys(tool.parameters.properties).includes('name');
    if (tool.effect !== 'read' || !tool.changesContext || !namesLayer) continue;
    it(tool.name, () => {
      expect(tool.description).toContain('设为当前图层');
    });
  }
});
