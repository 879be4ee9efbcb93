/**
 * The server's instructions name only tools the connection lists: a reduced variant's client (no create or open
 * tool listed) is not told to start with tools it cannot see. Read by the SDK's Client over an in-memory link.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { toolsOf, type Variant } from '../../src/registry/index.js';
import { closeClients, closedAfterTest } from './support.js';

async function instructionsOf(variant: Variant): Promise<string> {
  const server = createMcpServer(() => Promise.reject(new Error('no calls here')), { variant });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = closedAfterTest(new Client({ name: 'instructions', version: '1.0.0' }));
  await client.connect(clientSide);
  return client.getInstructions() ?? '';
}

afterEach(closeClients);

describe('the MCP server instructions', () => {
  for (const variant of ['extended', 'full', 'reduced'] as const) {
    it(`name only tools the ${variant} variant lists`, async () => {
      const text = await instructionsOf(variant);
      const listed = new Set(toolsOf(variant).map((t) => t.name));
      const named = text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [];
      expect(named.filter((n) => !listed.has(n))).toEqual([]);
      expect(text).toContain('Every result is JSON');
    });
  }

  it('tells a client with the create and open tools to start with them', async () => {
    expect(await instructionsOf('extended')).toContain('Start with create_document or open_document');
  });
});
