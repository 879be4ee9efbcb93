/**
 * Results an MCP client can take. The SDK's stdio client (the one desktop clients and agent SDKs run) closes the
 * connection on a line beyond 10 MiB, which ends the server and every unsaved document: an answer never is one.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/calls/result.js';
import { toCallToolResult } from '../../src/mcp/server.js';
import { BIN } from '../support/cli.js';
import { tempDir } from '../support/session.js';
import { callTool } from './support.js';

describe('MCP results within what a client takes', () => {
  it('a canvas image too large for one message comes without the image, a warning saying how to see it, and the session goes on', async () => {
    const workspace = tempDir('atelier-mcp-');
    // Noise does not compress: as PNG the canvas is some 12 MB, 16 MB in base64.
    const side = 2000;
    const noise = sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } });
    writeFileSync(join(workspace, 'noise.png'), await noise.png().toBuffer());
    const client = new Client({ name: 'atelier-test', version: '1.0.0' });
    const errors: string[] = [];
    client.onerror = (err) => errors.push(err.message);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--workspace', workspace],
        stderr: 'ignore',
      }),
    );
    try {
      expect((await callTool(client, 'open_document', { path: 'noise.png' })).isError).toBe(false);
      const big = await callTool(client, 'get_canvas_image', { max_size: side });
      expect(big.isError).toBe(false);
      expect(big.images).toEqual([]);
      expect(big.json).toMatchObject({
        ok: true,
        width: side,
        height: side,
        images: [{ mime: 'image/png', omitted: true }],
      });
      expect((big.json.warnings as string[]).join('\n')).toMatch(
        /超过 MCP 一条消息 10\.0 MB 的上限.*max_size/,
      );
      // The caption is quoted already (“noise”画布 …): the warning does not quote it again.
      expect(big.json.warnings).toEqual([expect.stringMatching(/^图片（“noise”画布 \d+×\d+）约 /)]);
      // The connection and the session are still there, and a smaller view comes with its image.
      const small = await callTool(client, 'get_canvas_image', { max_size: 256 });
      expect(small.images).toHaveLength(1);
      expect(small.images[0]!.mimeType).toBe('image/png');
      expect((await callTool(client, 'list_documents')).json).toMatchObject({ ok: true, count: 1 });
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('leaves out the largest images first and keeps those that fit', () => {
    const result = {
      ok: true,
      images: [
        { mime: 'image/png', base64: 'a'.repeat(600), caption: '总览' },
        { mime: 'image/jpeg', base64: 'b'.repeat(5000), caption: '预览' },
      ],
      warnings: ['已有的提醒'],
    } as unknown as ToolResult;
    const answer = toCallToolResult(result, 2000);
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(2000);
    expect(answer.isError).toBeUndefined();
    const [text, ...images] = answer.content as { type: string; text?: string; mimeType?: string }[];
    const json = JSON.parse(text!.text!) as { images: unknown[]; warnings: string[] };
    expect(json.images).toEqual([
      { mime: 'image/png', caption: '总览' },
      { mime: 'image/jpeg', caption: '预览', omitted: true },
    ]);
    expect(json.warnings[0]).toBe('已有的提醒');
    expect(json.warnings[1]).toContain('图片（预览）约');
    expect(images.map((i) => i.mimeType)).toEqual(['image/png']);
  });
});
