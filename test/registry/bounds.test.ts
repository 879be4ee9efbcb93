/**
 * Every string and array parameter a caller controls has a bound in `limits` (DESIGN.md §7 Bounds), and the
 * description a model reads states it: the published text and validation say the same number.
 */
import { describe, expect, it } from 'vitest';
import { toGemini, toMcp, toOpenAI, toRegistry } from '../../src/registry/formats/index.js';
import {
  type ParamLimits,
  type ParamSchema,
  TOOL_NAME_MAX_LENGTH,
  toolsOf,
} from '../../src/registry/index.js';
import { boundsText } from '../../src/registry/stated-bounds.js';

const tools = toolsOf('extended');

interface Leaf {
  readonly where: string;
  readonly schema: ParamSchema;
  readonly limits: ParamLimits | undefined;
}

/** Every parameter and every field of an array's object items, with the limits that apply to it. */
function leaves(): Leaf[] {
  const out: Leaf[] = [];
  for (const t of tools) {
    for (const [p, schema] of Object.entries(t.parameters.properties)) {
      const limits = t.limits?.[p];
      out.push({ where: `${t.name}.${p}`, schema, limits });
      if (schema.items?.type === 'object') {
        for (const [f, field] of Object.entries(schema.items.properties)) {
          out.push({ where: `${t.name}.${p}[].${f}`, schema: field, limits: limits?.items?.[f] });
        }
      }
    }
  }
  return out;
}

/** Why a string or array is unbounded, or null: enums and colours bound themselves, the rest need limits. */
function unbounded({ schema, limits }: Leaf): string | null {
  if (schema.type === 'string') {
    if (schema.enum || limits?.format === 'color' || limits?.maxLength !== undefined) return null;
    return 'string without enum, colour format or maxLength';
  }
  if (schema.type === 'array') {
    if (limits?.maxItems === undefined) return 'array without maxItems';
    if (schema.items?.type === 'string' && limits.each?.maxLength === undefined) {
      return 'array of strings without each.maxLength';
    }
  }
  if (schema.type === 'object') return 'free-form object';
  return null;
}

describe('bounds on what a caller controls', () => {
  it('every string and array parameter (and item field) has a bound', () => {
    const missing = leaves()
      .map((leaf) => {
        const why = unbounded(leaf);
        return why ? `${leaf.where}: ${why}` : null;
      })
      .filter((x) => x !== null);
    expect(missing).toEqual([]);
  });

  it('names, texts, paths and lists carry the documented bounds', () => {
    const byKind = new Map<string, Set<number>>();
    for (const { where, schema, limits } of leaves()) {
      if (limits?.maxLength === undefined) continue;
      const kind =
        limits.format === 'path'
          ? 'path'
          : /\.(text)$/.test(where)
            ? 'text'
            : /description$/.test(where)
              ? 'note'
              : 'name';
      if (schema.type !== 'string') throw new Error(`${where}: maxLength on a ${schema.type}`);
      byKind.set(kind, new Set([...(byKind.get(kind) ?? []), limits.maxLength]));
    }
    expect(Object.fromEntries([...byKind].map(([k, v]) => [k, [...v]]))).toEqual({
      name: [255],
      text: [10000],
      path: [1024],
      note: [1000],
    });
  });

  it('tool names fit the bound an unknown name is cut off at', () => {
    for (const t of tools) expect(t.name.length, t.name).toBeLessThanOrEqual(TOOL_NAME_MAX_LENGTH);
  });
});

describe('published descriptions state the bounds', () => {
  it('words them in Chinese', () => {
    expect(boundsText({ maxLength: 255 })).toBe('最多 255 个字符');
    expect(boundsText({ maxItems: 1000, each: { maxLength: 255 } })).toBe(
      '最多 1000 项，每项最多 255 个字符',
    );
    expect(boundsText({ min: 0, max: 100 })).toBe('');
    expect(boundsText({ maxLength: 255, nonBlank: true })).toBe('不能为空或只含空白字符，最多 255 个字符');
  });

  it('says a new name may not be blank, and gives the studio the limit', () => {
    const create = toOpenAI(tools).find((t) => t.function.name === 'create_layer')!;
    const name = (create.function.parameters as { properties: Record<string, ParamSchema> }).properties.name!;
    expect(name.description).toBe('新图层的名称（不能为空或只含空白字符，最多 255 个字符）');
    // The published schema keeps the spec's keys; the text says what a `pattern` would.
    expect(Object.keys(name).sort()).toEqual(['description', 'type']);
    const registry = toRegistry(tools).tools.find((t) => t.name === 'create_layer')!;
    expect(registry.limits.name).toEqual({ maxLength: 255, nonBlank: true });
  });

  it('every bounded parameter and item field says its numbers, in every format a model reads', () => {
    const published = [
      ...toOpenAI(tools).map((t) => [t.function.name, t.function.parameters] as const),
      ...toMcp(tools).map((t) => [t.name, t.inputSchema] as const),
      ...toGemini(tools)[0]!.functionDeclarations.map((t) => [t.name, t.parameters] as const),
    ];
    const missing: string[] = [];
    let checked = 0;
    for (const t of tools) {
      for (const [p, limits] of Object.entries(t.limits ?? {})) {
        for (const [name, params] of published) {
          if (name !== t.name) continue;
          const schema = (params as { properties: Record<string, ParamSchema> }).properties[p]!;
          const want = boundsText(limits);
          if (want) {
            checked++;
            if (!schema.description.includes(want)) missing.push(`${t.name}.${p}: "${schema.description}"`);
          }
          const items = schema.items;
          for (const [f, fl] of Object.entries(limits.items ?? {})) {
            const text = boundsText(fl);
            if (!text || items?.type !== 'object') continue;
            checked++;
            const d = items.properties[f]!.description;
            if (!d.includes(text)) missing.push(`${t.name}.${p}[].${f}: "${d}"`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
    // 3 formats × (38 names, 2 texts, 4 paths, 4 lists, pieces and 2 of its fields) at the time of writing.
    expect(checked).toBeGreaterThan(3 * 45);
  });
});
