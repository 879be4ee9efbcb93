import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  exportTools,
  toAnthropic,
  toGemini,
  toMcp,
  toOpenAI,
  toResponses,
} from '../../src/registry/formats/index.js';
import { toolsOf, variants } from '../../src/registry/index.js';

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const full = toolsOf('full');
const extended = toolsOf('extended');

/** Walks every schema node below a root, yielding [path, node]. */
function* schemaNodes(node: unknown, path = '$'): Generator<[string, Record<string, unknown>]> {
  if (typeof node !== 'object' || node === null) return;
  const n = node as Record<string, unknown>;
  yield [path, n];
  if (n.properties && typeof n.properties === 'object') {
    for (const [k, v] of Object.entries(n.properties)) yield* schemaNodes(v, `${path}.${k}`);
  }
  if (n.items) yield* schemaNodes(n.items, `${path}[]`);
}

describe('openai (chat completions)', () => {
  const out = toOpenAI(extended);
  it('is the spec shape: type function + function{name, description, parameters}', () => {
    out.forEach((t, i) => {
      expect(Object.keys(t)).toEqual(['type', 'function']);
      expect(t.type).toBe('function');
      expect(Object.keys(t.function)).toEqual(['name', 'description', 'parameters']);
      expect(t.function.parameters).toBe(extended[i]!.parameters);
      expect(t.function.name).toMatch(NAME);
    });
  });
  it('publishes no limits, labels or other extra keys in the schema', () => {
    for (const t of out) {
      for (const [path, node] of schemaNodes(t.function.parameters)) {
        const allowed =
          path === '$' || 'properties' in node
            ? ['type', 'properties', 'required', 'description']
            : ['type', 'description', 'enum', 'items'];
        for (const key of Object.keys(node)) expect(allowed, `${t.function.name} ${path}`).toContain(key);
      }
    }
  });
});

describe('openai strict mode', () => {
  const out = toOpenAI(extended, { strict: true });
  it('requires every property, makes optionals nullable and forbids extra keys, at every object level', () => {
    out.forEach((t, i) => {
      expect(t.function.strict).toBe(true);
      const source = extended[i]!.parameters;
      for (const [path, node] of schemaNodes(t.function.parameters)) {
        if (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'))) {
          expect(node.additionalProperties, `${t.function.name} ${path}`).toBe(false);
          expect(node.required).toEqual(Object.keys(node.properties as object));
        }
      }
      const props = (
        t.function.parameters as { properties: Record<string, { type: unknown; enum?: unknown[] }> }
      ).properties;
      for (const [key, prop] of Object.entries(props)) {
        const optional = !source.required.includes(key);
        expect(Array.isArray(prop.type) && prop.type.includes('null'), `${t.function.name}.${key}`).toBe(
          optional,
        );
        if (prop.enum) expect(prop.enum.includes(null)).toBe(optional);
      }
    });
  });
  it('accepts null for an optional and rejects extra keys (checked with Ajv)', () => {
    const ajv = new Ajv({ strict: false });
    const trim = out.find((t) => t.function.name === 'trim_document')!;
    const validate = ajv.compile(trim.function.parameters);
    expect(validate({ type: null })).toBe(true);
    expect(validate({ type: 'transparent' })).toBe(true);
    expect(validate({})).toBe(false);
    expect(validate({ type: null, extra: 1 })).toBe(false);
  });
  it('strict nested piece items too', () => {
    const tool = out.find((t) => t.function.name === 'extract_and_apply_all_pieces')!;
    const items = (
      tool.function.parameters as unknown as { properties: { pieces: { items: Record<string, unknown> } } }
    ).properties.pieces.items;
    expect(items.additionalProperties).toBe(false);
    expect(items.required).toEqual(['name', 'type', 'color', 'description']);
    expect((items.properties as Record<string, { type: unknown }>).color!.type).toEqual(['string', 'null']);
  });
});

describe('responses', () => {
  it('flattens the function and states strict explicitly', () => {
    const out = toResponses(full);
    out.forEach((t, i) => {
      expect(t).toEqual({
        type: 'function',
        name: full[i]!.name,
        description: full[i]!.description,
        parameters: full[i]!.parameters,
        strict: false,
      });
    });
    const strict = toResponses(full, { strict: true });
    expect(
      strict.every(
        (t) =>
          t.strict && (t.parameters as { additionalProperties?: boolean }).additionalProperties === false,
      ),
    ).toBe(true);
  });
});

describe('anthropic', () => {
  it('uses input_schema with type object at the root and names within 64 chars', () => {
    for (const t of toAnthropic(extended)) {
      expect(Object.keys(t)).toEqual(['name', 'description', 'input_schema']);
      expect(t.input_schema.type).toBe('object');
      expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    }
  });
});

describe('gemini', () => {
  const [{ functionDeclarations }] = toGemini(extended);
  const FORBIDDEN = [
    '$schema',
    'additionalProperties',
    'const',
    'propertyNames',
    'examples',
    'multipleOf',
    'uniqueItems',
    'default',
    'minimum',
    'maximum',
    'anyOf',
    'oneOf',
    'allOf',
    '$ref',
  ];
  it('declares every tool', () => {
    expect(functionDeclarations.map((d) => d.name)).toEqual(extended.map((t) => t.name));
  });
  it("stays inside Gemini's OpenAPI subset", () => {
    for (const d of functionDeclarations) {
      expect(d.name).toMatch(NAME);
      for (const [path, node] of schemaNodes(d.parameters)) {
        for (const key of FORBIDDEN) expect(node, `${d.name} ${path}`).not.toHaveProperty(key);
        expect(['string', 'number', 'integer', 'boolean', 'array', 'object']).toContain(node.type);
        if (node.enum) {
          expect(node.type, `${d.name} ${path}: enum only on strings`).toBe('string');
          expect((node.enum as unknown[]).every((v) => typeof v === 'string')).toBe(true);
        }
        if (node.type === 'object') {
          expect(
            Object.keys(node.properties as object).length,
            `${d.name} ${path}: non-empty properties`,
          ).toBeGreaterThan(0);
        }
        if (node.type === 'array') expect(node.items, `${d.name} ${path}`).toBeDefined();
        if ('required' in node) expect((node.required as unknown[]).length).toBeGreaterThan(0);
      }
    }
  });
  it('omits parameters for a tool without any', () => {
    const info = functionDeclarations.find((d) => d.name === 'get_document_info')!;
    expect(info).not.toHaveProperty('parameters');
    const move = functionDeclarations.find((d) => d.name === 'move_layer')!;
    expect(move.parameters?.required).toEqual(['name', 'dx', 'dy']);
  });
});

describe('mcp', () => {
  const out = toMcp(extended);
  it('has the MCP tool shape with the Chinese label as title', () => {
    out.forEach((t, i) => {
      expect(t.name).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
      expect(t.title).toBe(extended[i]!.label);
      expect(t.inputSchema.type).toBe('object');
      expect(typeof t.description).toBe('string');
    });
  });
  it('marks queries read-only and discarding tools destructive', () => {
    const ann = (name: string) => out.find((t) => t.name === name)!.annotations;
    for (const q of [
      'get_document_info',
      'get_layer_structure',
      'list_documents',
      'get_pixel_color',
      'list_all_layer_names',
    ]) {
      expect(ann(q).readOnlyHint, q).toBe(true);
      expect(ann(q).destructiveHint, q).toBe(false);
    }
    for (const d of [
      'delete_layer',
      'close_document',
      'flatten_image',
      'merge_layers',
      'merge_visible',
      'undo',
      'crop_document',
    ]) {
      expect(ann(d).destructiveHint, d).toBe(true);
      expect(ann(d).readOnlyHint, d).toBe(false);
    }
    expect(ann('create_layer')).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    // No document content changes, but what later calls act on does (the active layer, the garment memory).
    for (const c of ['get_layer_bounds', 'set_garment_photo', 'identify_pieces', 'confirm_piece_parts']) {
      expect(ann(c), c).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    }
    for (const d of ['save_document', 'save_document_as']) expect(ann(d).destructiveHint, d).toBe(true);
    expect(ann('identify_pieces').openWorldHint).toBe(true);
    expect(ann('set_layer_opacity').idempotentHint).toBe(true);
  });
});

describe('exportTools', () => {
  it('is a pure function: same input, equal output, registry untouched', () => {
    const before = JSON.stringify(extended);
    for (const v of variants) {
      for (const f of ['openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const) {
        expect(exportTools(toolsOf(v), f)).toEqual(exportTools(toolsOf(v), f));
      }
    }
    expect(JSON.stringify(extended)).toBe(before);
  });
});
