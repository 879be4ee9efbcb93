/** The handler table is total: every registry tool has a handler, and a table missing one does not compile. */
import { describe, expect, it } from 'vitest';
import { allTools } from '../../src/registry/index.js';
import { handlers } from '../../src/tools/index.js';
import type { HandlerTable } from '../../src/tools/types.js';

describe('handlers', () => {
  it('has a function for every tool in the registry, and nothing else', () => {
    expect(allTools.filter((t) => typeof handlers[t.name] !== 'function').map((t) => t.name)).toEqual([]);
    expect(Object.keys(handlers).sort()).toEqual(allTools.map((t) => t.name).sort());
  });

  it('a table without one of the tools is a type error (checked by tsc, which runs over test/)', () => {
    const { undo: _dropped, ...rest } = handlers;
    // @ts-expect-error undo is missing, so this is not a HandlerTable
    const partial: HandlerTable = rest;
    expect(Object.keys(partial)).not.toContain('undo');
  });
});
