/**
 * Conformance of the registry's definitions with SPEC.md §2 and §4, checked against a table transcribed
 * by hand from the spec (./spec-table.ts). The published wire formats (OpenAI etc.) are tested elsewhere;
 * this file checks the definitions themselves.
 */
import { describe, expect, it } from 'vitest';
import {
  findTool,
  labelsOf,
  type ParamSchema,
  type ToolDefinition,
  toolsOf,
} from '../../src/registry/index.js';
import {
  DESIGN_GROUP_E,
  GROUP_COUNTS,
  PIECE_FIELDS,
  PIECE_REQUIRED,
  PIECE_TYPES,
  REDUCED_COUNT,
  SPEC_RANGES,
  SPEC_TOOLS,
  type SpecParam,
} from './spec-table.js';

const NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const PARAMETERS_KEYS = ['properties', 'required', 'type'];
const PROPERTY_KEYS = new Set(['type', 'description', 'enum', 'items']);
const ITEM_KEYS = new Set(['type', 'description', 'properties', 'required']);

const full = toolsOf('full');
const reduced = toolsOf('reduced');
const extended = toolsOf('extended');
const specNames = SPEC_TOOLS.map((t) => t.name);

const sorted = (xs: Iterable<string>): string[] => [...xs].sort();
const names = (tools: readonly ToolDefinition[]): string[] => tools.map((t) => t.name);
const extraKeys = (obj: object, allowed: ReadonlySet<string>): string[] =>
  Object.keys(obj).filter((k) => !allowed.has(k));

describe('spec table (self-check of the transcription)', () => {
  it('holds 75 unique tools: A 10, B 4, C 49, D 12, in group order', () => {
    expect(SPEC_TOOLS).toHaveLength(75);
    expect(new Set(specNames).size).toBe(75);
    const counts: Record<string, number> = {};
    for (const t of SPEC_TOOLS) counts[t.group] = (counts[t.group] ?? 0) + 1;
    expect(counts).toEqual(GROUP_COUNTS);
    const groups = SPEC_TOOLS.map((t) => t.group).join('');
    expect(groups).toBe([...groups].sort().join(''));
  });

  it('every range row names a tool and parameter of the table', () => {
    for (const row of SPEC_RANGES) {
      const tool = SPEC_TOOLS.find((t) => t.name === row.tool);
      expect(tool, `range row ${row.tool}`).toBeDefined();
      if (row.param !== null) {
        expect(
          tool?.params.map((p) => p.name),
          `range row ${row.tool}.${row.param}`,
        ).toContain(row.param);
      }
    }
  });
});

describe('full variant: tools, order, groups, labels', () => {
  it('has exactly the 75 spec tools in the spec order', () => {
    expect(full).toHaveLength(75);
    expect(names(full)).toEqual(specNames);
  });

  it('toolsOf() defaults to the full variant', () => {
    expect(names(toolsOf())).toEqual(names(full));
  });

  SPEC_TOOLS.forEach((spec, index) => {
    it(`#${index} ${spec.name}: position, group, label`, () => {
      const tool = full[index];
      expect(tool?.name, `tool at index ${index}`).toBe(spec.name);
      expect(tool?.group, `group of ${spec.name}`).toBe(spec.group);
      expect(tool?.label, `label of ${spec.name}`).toBe(spec.label);
      expect(findTool(spec.name), `findTool('${spec.name}')`).toBe(tool);
    });
  });

  it('findTool returns undefined for an unknown name', () => {
    expect(findTool('no_such_tool')).toBeUndefined();
  });
});

describe('full variant: parameter schemas', () => {
  for (const spec of SPEC_TOOLS) {
    describe(spec.name, () => {
      const tool = (): ToolDefinition => {
        const t = full.find((x) => x.name === spec.name);
        if (!t) throw new Error(`tool ${spec.name} is missing from toolsOf('full')`);
        return t;
      };

      it('parameters is {type: "object", properties, required: []} with no other keys', () => {
        const { parameters } = tool();
        expect(parameters.type, `tool ${spec.name}: parameters.type`).toBe('object');
        expect(sorted(Object.keys(parameters)), `tool ${spec.name}: keys of parameters`).toEqual(
          PARAMETERS_KEYS,
        );
        expect(Array.isArray(parameters.required), `tool ${spec.name}: required is an array`).toBe(true);
        expect(typeof parameters.properties, `tool ${spec.name}: properties is an object`).toBe('object');
      });

      it('has exactly the spec parameter names', () => {
        expect(
          sorted(Object.keys(tool().parameters.properties)),
          `tool ${spec.name}: parameter names`,
        ).toEqual(sorted(spec.params.map((p) => p.name)));
      });

      it('has exactly the spec required list', () => {
        const required = tool().parameters.required;
        expect(sorted(required), `tool ${spec.name}: required`).toEqual(
          sorted(spec.params.filter((p) => p.required).map((p) => p.name)),
        );
        expect(new Set(required).size, `tool ${spec.name}: duplicates in required`).toBe(required.length);
      });

      for (const param of spec.params) {
        it(`parameter ${param.name}`, () => {
          const schema = tool().parameters.properties[param.name];
          expect(schema, `tool ${spec.name}: parameter ${param.name} is missing`).toBeDefined();
          if (schema) checkParam(spec.name, param, schema);
        });
      }
    });
  }
});

function checkParam(toolName: string, param: SpecParam, schema: ParamSchema): void {
  const where = `tool ${toolName}, parameter ${param.name}`;
  expect(extraKeys(schema, PROPERTY_KEYS), `${where}: keys other than type/description/enum/items`).toEqual(
    [],
  );
  expect(schema.type, `${where}: type`).toBe(param.type);
  expect(typeof schema.description, `${where}: description`).toBe('string');
  expect(schema.description.trim(), `${where}: description is empty`).not.toBe('');
  if (param.enum) {
    expect(schema.enum, `${where}: enum (values and order)`).toEqual(param.enum);
  } else {
    expect(schema.enum, `${where}: has an enum the spec does not give`).toBeUndefined();
  }
  if (param.type !== 'array') {
    expect(schema.items, `${where}: items on a non-array parameter`).toBeUndefined();
    return;
  }
  const items = schema.items as Record<string, unknown> | undefined;
  expect(items, `${where}: array without items`).toBeDefined();
  if (!items) return;
  expect(extraKeys(items, ITEM_KEYS), `${where}: unexpected keys in items`).toEqual([]);
  if (param.items === 'string') {
    expect(items.type, `${where}: items.type`).toBe('string');
    expect(items.properties, `${where}: string items with properties`).toBeUndefined();
    return;
  }
  // Piece entry (SPEC §2.3).
  expect(items.type, `${where}: items.type`).toBe('object');
  const props = (items.properties ?? {}) as Record<string, ParamSchema>;
  expect(sorted(Object.keys(props)), `${where}: piece fields`).toEqual(sorted(PIECE_FIELDS));
  expect(Array.isArray(items.required), `${where}: items.required is an array`).toBe(true);
  expect(sorted(items.required as string[]), `${where}: piece required fields`).toEqual(
    sorted(PIECE_REQUIRED),
  );
  for (const field of PIECE_FIELDS) {
    const f = props[field];
    const fwhere = `${where}, piece field ${field}`;
    expect(f, `${fwhere} is missing`).toBeDefined();
    if (!f) continue;
    expect(extraKeys(f, PROPERTY_KEYS), `${fwhere}: keys other than type/description/enum/items`).toEqual([]);
    expect(f.type, `${fwhere}: type`).toBe('string');
    expect(
      typeof f.description === 'string' && f.description.trim() !== '',
      `${fwhere}: non-empty description`,
    ).toBe(true);
    if (field === 'type') expect(f.enum, `${fwhere}: enum (values and order)`).toEqual(PIECE_TYPES);
    else expect(f.enum, `${fwhere}: has an enum the spec does not give`).toBeUndefined();
  }
}

describe('every variant: general schema rules', () => {
  it('extended has no duplicate names', () => {
    const all = names(extended);
    const dups = all.filter((n, i) => all.indexOf(n) !== i);
    expect(dups, 'duplicate tool names in toolsOf("extended")').toEqual([]);
  });

  for (const tool of extended) {
    it(`${tool.name}: name pattern, property schema shape, limits`, () => {
      expect(tool.name, `tool name ${tool.name}`).toMatch(NAME_PATTERN);
      const { parameters } = tool;
      expect(parameters.type, `tool ${tool.name}: parameters.type`).toBe('object');
      expect(
        sorted(Object.keys(parameters)),
        `tool ${tool.name}: keys of parameters (no limits inside)`,
      ).toEqual(PARAMETERS_KEYS);
      expect(Array.isArray(parameters.required), `tool ${tool.name}: required is an array`).toBe(true);
      const props = parameters.properties;
      for (const r of parameters.required) {
        expect(Object.keys(props), `tool ${tool.name}: required '${r}' is not a property`).toContain(r);
      }
      for (const [pname, schema] of Object.entries(props)) {
        const where = `tool ${tool.name}, parameter ${pname}`;
        expect(pname, `${where}: parameter name`).toMatch(NAME_PATTERN);
        expect(
          extraKeys(schema, PROPERTY_KEYS),
          `${where}: keys other than type/description/enum/items`,
        ).toEqual([]);
        expect(['string', 'number', 'boolean', 'array', 'object'], `${where}: type`).toContain(schema.type);
        expect(
          typeof schema.description === 'string' && schema.description.trim() !== '',
          `${where}: description`,
        ).toBe(true);
        if (schema.enum !== undefined) {
          expect(schema.type, `${where}: enum on a non-string parameter`).toBe('string');
          expect(schema.enum.length, `${where}: empty enum`).toBeGreaterThan(0);
          expect(new Set(schema.enum).size, `${where}: duplicate enum values`).toBe(schema.enum.length);
        }
        if (schema.type === 'array') expect(schema.items, `${where}: array without items`).toBeDefined();
        else expect(schema.items, `${where}: items on a non-array parameter`).toBeUndefined();
      }
      checkLimits(tool);
    });
  }
});

function checkLimits(tool: ToolDefinition): void {
  const limits = tool.limits ?? {};
  const props = tool.parameters.properties;
  for (const [pname, lim] of Object.entries(limits)) {
    const where = `tool ${tool.name}, limits.${pname}`;
    expect(Object.keys(props), `${where}: names no parameter`).toContain(pname);
    const schema = props[pname];
    if (!schema) continue;
    if (lim.min !== undefined && lim.max !== undefined) {
      expect(lim.min, `${where}: min > max`).toBeLessThanOrEqual(lim.max);
    }
    if (
      (lim.min !== undefined || lim.max !== undefined || lim.above !== undefined) &&
      schema.type !== 'array'
    ) {
      expect(schema.type, `${where}: numeric bounds on a non-number parameter`).toBe('number');
    }
    if (lim.items && schema.items && schema.items.type === 'object') {
      const fields = Object.keys(schema.items.properties);
      for (const f of Object.keys(lim.items)) {
        expect(fields, `${where}.items.${f}: names no field of the array's items`).toContain(f);
      }
    }
    if (!('default' in lim) || lim.default === undefined) continue;
    const d = lim.default;
    const dwhere = `${where}.default = ${JSON.stringify(d)}`;
    switch (schema.type) {
      case 'string':
        expect(typeof d, `${dwhere}: not a string`).toBe('string');
        if (schema.enum) expect(schema.enum, `${dwhere}: not an enum member`).toContain(d);
        break;
      case 'number':
        expect(typeof d === 'number' && Number.isFinite(d), `${dwhere}: not a finite number`).toBe(true);
        if (typeof d !== 'number') break;
        if (lim.min !== undefined)
          expect(d, `${dwhere}: below min ${lim.min}`).toBeGreaterThanOrEqual(lim.min);
        if (lim.max !== undefined) expect(d, `${dwhere}: above max ${lim.max}`).toBeLessThanOrEqual(lim.max);
        if (lim.above !== undefined)
          expect(d, `${dwhere}: not above ${lim.above}`).toBeGreaterThan(lim.above);
        if (lim.integer) expect(Number.isInteger(d), `${dwhere}: not an integer`).toBe(true);
        break;
      case 'boolean':
        expect(typeof d, `${dwhere}: not a boolean`).toBe('boolean');
        break;
      case 'array':
        expect(Array.isArray(d), `${dwhere}: not an array`).toBe(true);
        break;
      case 'object':
        expect(typeof d === 'object' && d !== null, `${dwhere}: not an object`).toBe(true);
        break;
    }
  }
}

describe('limits carry the spec ranges and defaults (SPEC §8, §4)', () => {
  for (const row of SPEC_RANGES) {
    if (row.param === null) continue;
    const param = row.param;
    const hasNumbers = row.min !== undefined || row.max !== undefined || row.default !== undefined;
    if (!hasNumbers) continue;
    it(`${row.tool}.${param}`, () => {
      const tool = findTool(row.tool);
      expect(tool, `tool ${row.tool}`).toBeDefined();
      const lim = tool?.limits?.[param];
      const where = `tool ${row.tool}, limits.${param}`;
      if (row.min !== undefined) expect(lim?.min, `${where}.min`).toBe(row.min);
      if (row.max !== undefined) expect(lim?.max, `${where}.max`).toBe(row.max);
      if (row.default === undefined) return;
      const spec = SPEC_TOOLS.find((t) => t.name === row.tool)?.params.find((p) => p.name === param);
      if (spec?.required) {
        // Required by the schema (adjust_levels): a default in limits is optional but must be the spec's.
        if (lim && 'default' in lim && lim.default !== undefined) {
          expect(lim.default, `${where}.default`).toBe(row.default);
        }
      } else {
        expect(lim?.default, `${where}.default (the spec's default for an optional parameter)`).toBe(
          row.default,
        );
      }
    });
  }
});

describe('variants', () => {
  it(`reduced is exactly the first ${REDUCED_COUNT} tools (groups A and B), in order`, () => {
    expect(names(reduced)).toEqual(specNames.slice(0, REDUCED_COUNT));
    expect(reduced.every((t) => t.group === 'A' || t.group === 'B')).toBe(true);
  });

  it('extended is the full list followed by group E tools', () => {
    expect(names(extended.slice(0, 75)), 'first 75 tools of extended').toEqual(specNames);
    const rest = extended.slice(75);
    expect(rest.length, 'extended adds group E tools').toBeGreaterThan(0);
    for (const t of rest) {
      expect(t.group, `tool ${t.name} after the 75 spec tools`).toBe('E');
      expect(specNames, `group E tool ${t.name} reuses a spec name`).not.toContain(t.name);
    }
    expect(
      full.filter((t) => t.group === 'E').map((t) => t.name),
      'group E tools in the full variant',
    ).toEqual([]);
  });

  it('group E holds the extensions DESIGN.md §2 names', () => {
    expect(sorted(names(extended.slice(75)))).toEqual(sorted(DESIGN_GROUP_E));
  });

  for (const v of ['reduced', 'full', 'extended'] as const) {
    it(`labelsOf('${v}') has exactly the tools of toolsOf('${v}') and the spec labels`, () => {
      const labels = labelsOf(v);
      const tools = toolsOf(v);
      expect(sorted(Object.keys(labels)), `label keys of ${v}`).toEqual(sorted(names(tools)));
      for (const t of tools) {
        const spec = SPEC_TOOLS.find((s) => s.name === t.name);
        const label = labels[t.name];
        if (spec) expect(label, `label of ${t.name} in ${v}`).toBe(spec.label);
        else expect(label, `label of ${t.name} in ${v}`).toMatch(/[\u4e00-\u9fff]/u);
        expect(label, `labelsOf('${v}') vs tool.label for ${t.name}`).toBe(t.label);
      }
    });
  }
});
