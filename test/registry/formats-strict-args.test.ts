/**
 * What a model in OpenAI strict mode sends back: every property present, an optional one as `null` when it has
 * nothing to say, in the fields of array items as in the top-level arguments. Atelier must take it.
 */
import { describe, expect, it } from 'vitest';
import { validateArguments } from '../../src/calls/validate.js';
import { toOpenAI } from '../../src/registry/formats/index.js';
import type { StrictObjectSchema, StrictSchema } from '../../src/registry/formats/strict.js';
import { findTool, toolsOf } from '../../src/registry/index.js';

const nullable = (s: StrictSchema) => Array.isArray(s.type) && s.type.includes('null');

/** Every nullable property null, every other one left out (and one item, the same way, in arrays of objects). */
function nullsOnly(schema: StrictObjectSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    if (nullable(prop)) out[key] = null;
    else if (prop.items && 'properties' in prop.items) out[key] = [nullsOnly(prop.items)];
  }
  return out;
}

describe('openai strict mode: the arguments a model gives back', () => {
  it('null for an optional is "not given", at every level: only the required fields left out are missing', () => {
    const strict = toOpenAI(toolsOf('extended'), { strict: true });
    for (const { function: fn } of strict) {
      const result = validateArguments(findTool(fn.name)!, nullsOnly(fn.parameters as StrictObjectSchema));
      const problems = result.ok ? [] : result.problems.map((p) => p.message);
      expect(
        problems.filter((m) => !m.startsWith('缺少必填参数')),
        fn.name,
      ).toEqual([]);
    }
  });

  it('a piece with color and description null is taken as one without them', () => {
    const result = validateArguments(findTool('extract_and_apply_all_pieces')!, {
      pieces: [{ name: '前片', type: 'fill_pattern', color: null, description: null }],
    });
    expect(result).toEqual({ ok: true, args: { pieces: [{ name: '前片', type: 'fill_pattern' }] } });
    const parts = validateArguments(findTool('confirm_piece_parts')!, {
      pieces: [{ name: '前片', part: 'front', turn: null }],
    });
    expect(parts.ok).toBe(true);
  });

  it('a required field of an item is still required: null there is refused in Chinese', () => {
    const result = validateArguments(findTool('extract_and_apply_all_pieces')!, {
      pieces: [{ name: null, type: 'fill_pattern', color: null, description: null }],
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.message)).toEqual(['pieces[0].name 应为字符串']);
  });
});
