/**
 * A client that cancels a call (`notifications/cancelled`, what the SDK's Client sends when its AbortSignal fires)
 * is never answered: the call must then change nothing, whether it was running or still waiting its turn.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/support.js';
import { garmentDocument, garmentPhoto } from '../support/garment-fixtures.js';
import { newSession, tempDir } from '../support/session.js';
import { callTool, closeClients, closedAfterTest, inMemoryClient } from './support.js';

afterEach(closeClients);

/** A noisy PNG (slow to decode), `side` pixels square. */
function noisePng(side: number): Promise<Buffer> {
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

/** Calls `name`, cancelling it as soon as it reports its first stage; resolves once the client has given up. */
async function cancelledAtFirstStage(client: Client, name: string, args: Record<string, unknown>) {
  const abort = new AbortController();
  const stages: string[] = [];
  const call = client.callTool({ name, arguments: args }, undefined, {
    signal: abort.signal,
    onprogress: (p) => {
      stages.push(p.message ?? '');
      abort.abort('the user pressed stop');
    },
  });
  await expect(call).rejects.toThrow();
  return stages;
}

describe('MCP cancellation', () => {
  it('a call cancelled while it runs keeps nothing: the document it was opening is not open', async () => {
    const session = newSession(tempDir('atelier-cancel-'));
    await session.workspace.writeAtomic('big.png', await noisePng(1500));
    const client = await inMemoryClient(session, 'cancel-test');
    const stages = await cancelledAtFirstStage(client, 'open_document', { path: 'big.png' });
    expect(stages).toEqual(['解码文件 (20%)']);
    // Queued after the cancelled call: answered once it has ended.
    expect((await callTool(client, 'list_documents')).json).toMatchObject({ ok: true, count: 0 });
    expect(session.state.editor.docs).toHaveLength(0);
    // Opening it again is not a conflict with a document the client was never told about.
    const again = await callTool(client, 'open_document', { path: 'big.png' });
    expect(again).toMatchObject({ isError: false, json: { ok: true, document: { name: 'big' } } });
  });

  it('a save cancelled while it runs: no file and the document unsaved, or (once writing began) both saved', async () => {
    const workspace = tempDir('atelier-cancel-');
    const session = newSession(workspace);
    const client = await inMemoryClient(session, 'cancel-test');
    await callTool(client, 'create_document', { width: 64, height: 64, name: '草稿' });
    const stages = await cancelledAtFirstStage(client, 'save_document_as', { path: 'draft.psd' });
    expect(stages[0]).toBe('合成画面 (10%)');
    const { json } = await callTool(client, 'list_documents');
    const [doc] = json.documents as { path: string | null; unsaved_changes: boolean }[];
    // A file on disk cannot be taken back: the document must then say it is saved there, never the reverse.
    const written = existsSync(join(workspace, 'draft.psd'));
    expect(doc).toEqual(
      expect.objectContaining(
        written ? { path: 'draft.psd', unsaved_changes: false } : { path: null, unsaved_changes: true },
      ),
    );
  });

  it('a call cancelled while it waits its turn does not run', async () => {
    const session = newSession(tempDir('atelier-cancel-'));
    await session.workspace.writeAtomic('big.png', await noisePng(1500));
    const client = await inMemoryClient(session, 'cancel-test');
    const first = callTool(client, 'open_document', { path: 'big.png' });
    const abort = new AbortController();
    const second = client.callTool(
      { name: 'create_document', arguments: { width: 10, height: 10, name: '不要' } },
      undefined,
      { signal: abort.signal },
    );
    abort.abort('changed my mind');
    await expect(second).rejects.toThrow();
    expect((await first).isError).toBe(false);
    const listed = await callTool(client, 'list_documents');
    expect((listed.json.documents as { name: string }[]).map((d) => d.name)).toEqual(['big']);
  });

  it('a garment call cancelled at its first stage leaves the document and the garment memory as they were', async () => {
    const session = newSession(tempDir('atelier-cancel-'));
    const client = await inMemoryClient(session, 'cancel-test');
    await garmentDocument(session, 'zh');
    await session.workspace.writeAtomic('shirt.png', await garmentPhoto('fill'));
    expect((await callTool(client, 'set_garment_photo', { path: 'shirt.png' })).isError).toBe(false);
    const before = session.state;
    const stages = await cancelledAtFirstStage(client, 'identify_pieces', {});
    expect(stages).toEqual(['识别裁片 (10%)']);
    await callTool(client, 'list_documents');
    const after = session.state;
    expect(after.editor.docs).toHaveLength(before.editor.docs.length);
    for (const [i, doc] of after.editor.docs.entries()) expect(doc).toBe(before.editor.docs[i]);
    expect(after.garment).toBe(before.garment);
  }, 120_000);

  it('over HTTP, the session thread is told: the cancelled call keeps nothing', async () => {
    const server = await startTestServer();
    try {
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
      const client = new Client({ name: 'cancel-test', version: '1.0.0' });
      await client.connect(transport);
      closedAfterTest(client);
      const id = transport.sessionId!;
      // Larger than in process: the cancel crosses HTTP and a thread, and under load took longer than the 1500 px
      // decode (55 ms here; 4000 px, about 0.4 s), so the document was open before the session thread was told.
      writeFileSync(join(server.config.workspace, 'sessions', id, 'big.png'), await noisePng(4000));
      await cancelledAtFirstStage(client, 'open_document', { path: 'big.png' });
      expect((await callTool(client, 'list_documents')).json).toMatchObject({ ok: true, count: 0 });
    } finally {
      await server.close();
    }
  });
});
