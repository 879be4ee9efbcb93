/**
 * `tools/list` pagination as the MCP spec has it, through the SDK's Client: every tool comes in one page with no
 * `nextCursor`, so any cursor is one this server never issued, and the spec's answer to an invalid cursor is
 * the JSON-RPC error -32602 (Invalid params) — not the whole list again, which a client paging through would
 * take as a second page of the same tools.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { toolsOf } from '../../src/registry/index.js';
import { toolsInToolsets } from '../../src/registry/toolsets.js';
import { newSession } from '../support/session.js';
import { callTool, closeClients, inMemoryClient } from './support.js';

afterEach(closeClients);

async function refusal(promise: Promise<unknown>): Promise<McpError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

describe('tools/list pagination', () => {
  it('lists every tool in one page, with no nextCursor', async () => {
    const client = await inMemoryClient(newSession(), 'cursor-test');
    const page = await client.listTools();
    expect(page.tools.map((t) => t.name)).toEqual(toolsInToolsets('extended').map((t) => t.name));
    expect(page.nextCursor).toBeUndefined();
  });

  it('answers a cursor it never issued with -32602 saying what to do, and goes on serving', async () => {
    const client = await inMemoryClient(newSession(), 'cursor-test');
    for (const cursor of ['bogus', '', 'eyJvZmZzZXQiOjUwfQ==', 'x'.repeat(5000)]) {
      const err = await refusal(client.listTools({ cursor }));
      expect(err.code).toBe(ErrorCode.InvalidParams);
      expect(err.message).toContain('cursor');
      expect(err.message).toContain('without a cursor');
      expect(err.message.length).toBeLessThan(400);
    }
    // The SDK client names the code once: the message on the wire carries none of its own.
    const once = await refusal(client.listTools({ cursor: 'abc' }));
    expect(once.message).toBe(
      'MCP error -32602: unknown cursor "abc": this server lists every tool in one page and issues no cursor; call tools/list without a cursor',
    );
    // The connection and its session are unharmed: the list without a cursor and a call still work.
    expect((await client.listTools()).tools).toHaveLength(toolsOf('extended').length);
    expect(await callTool(client, 'create_document', { width: 20, height: 10 })).toMatchObject({
      isError: false,
      json: { ok: true },
    });
  });
});
