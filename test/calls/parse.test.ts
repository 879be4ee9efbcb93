/** A tool call's raw arguments as every surface reads them (src/calls/parse.ts). */
import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../src/calls/parse.js';
import { newSession } from '../support/session.js';

describe('parseArguments', () => {
  it('reads a call without parameters as {}, whether its arguments are "", "null", null or absent', () => {
    for (const raw of ['', '  ', 'null', ' null\n', null, undefined, {}]) {
      expect(parseArguments(raw), JSON.stringify(raw)).toEqual({ ok: true, value: {} });
    }
  });

  it('leaves any other value that is not an object for the validator to refuse', () => {
    expect(parseArguments('[]')).toEqual({ ok: true, value: [] });
    expect(parseArguments('5')).toEqual({ ok: true, value: 5 });
    expect(parseArguments('"null"')).toEqual({ ok: true, value: 'null' });
    expect(parseArguments('nul')).toMatchObject({ ok: false, code: 'invalid_json' });
  });
});

describe('a call whose arguments are the JSON text null', () => {
  it('runs as the same call with {} does, and a tool with required parameters names them', async () => {
    const s = newSession();
    await s.call({ name: 'create_document', arguments: { width: 20, height: 10 } });
    const withNull = await s.call({
      id: 'a',
      type: 'function',
      function: { name: 'get_document_info', arguments: 'null' },
    });
    const withObject = await s.call({
      id: 'b',
      type: 'function',
      function: { name: 'get_document_info', arguments: '{}' },
    });
    expect(withNull).toMatchObject({ ok: true, document: { width: 20, height: 10 } });
    expect(withNull).toEqual(withObject);
    const missing = await s.call({ name: 'create_layer', arguments: 'null' });
    const missingFromObject = await s.call({ name: 'create_layer', arguments: '{}' });
    expect(missing).toEqual(missingFromObject);
    for (const raw of ['[]', '5', '"null"']) {
      expect(await s.call({ name: 'get_document_info', arguments: raw })).toMatchObject({
        ok: false,
        error: { code: 'invalid_arguments', message: expect.stringContaining('arguments 必须是 JSON 对象') },
      });
    }
    // An object escaped once more into a string: the refusal names the extra layer.
    const twice = await s.call({
      name: 'create_layer',
      arguments: JSON.stringify(JSON.stringify({ name: '甲' })),
    });
    expect(JSON.stringify(twice)).toContain('多转义了一层');
    expect(JSON.stringify(await s.call({ name: 'get_document_info', arguments: '"null"' }))).not.toContain(
      '多转义',
    );
  });
});
