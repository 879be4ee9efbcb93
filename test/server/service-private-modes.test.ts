/**
 * A session made before the service kept its folders private (0755 folders, 0644 files: `chat-images/` and
 * `chat.jsonl` among them) is made private when the service brings it back, over real HTTP across a restart:
 * folders 0700, files 0600, and a link in it is neither followed nor changed.
 */
import { chmodSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/session.js';
import { createSession, okCalls, startTestServer, toolCall } from './support.js';

const modeOf = (p: string) => statSync(p).mode & 0o777;

describe('sessions made before the service kept them private', () => {
  it('have their folder, chat record and kept images made private when they come back', async () => {
    const first = await startTestServer();
    const workspace = first.config.workspace;
    const id = await createSession(first.url);
    await okCalls(first.url, id, [
      toolCall('create_document', { width: 16, height: 16, name: '海报' }),
      toolCall('save_document_as', { path: 'out/海报.psd' }),
    ]);
    await first.close();

    // As an older server left them.
    const dir = path.join(workspace, 'sessions', id);
    const images = path.join(dir, 'chat-images');
    mkdirSync(images);
    writeFileSync(path.join(images, `${'0'.repeat(32)}.png`), 'png');
    writeFileSync(path.join(dir, 'chat.jsonl'), '');
    const outside = path.join(tempDir('atelier-outside-'), 'shared.txt');
    writeFileSync(outside, 'not the service’s');
    chmodSync(outside, 0o644);
    symlinkSync(outside, path.join(images, 'link.png'));
    for (const p of [dir, images, path.join(dir, 'out'), path.join(workspace, 'journals', id)]) {
      chmodSync(p, 0o755);
    }
    for (const p of [path.join(images, `${'0'.repeat(32)}.png`), path.join(dir, 'chat.jsonl')]) {
      chmodSync(p, 0o644);
    }
    chmodSync(path.join(dir, 'out', '海报.psd'), 0o644);

    const second = await startTestServer({ workspace });
    try {
      // Its first request brings it back.
      expect((await fetch(`${second.url}/v1/sessions/${id}`)).status).toBe(200);
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(images)).toBe(0o700);
      expect(modeOf(path.join(images, `${'0'.repeat(32)}.png`))).toBe(0o600);
      expect(modeOf(path.join(dir, 'chat.jsonl'))).toBe(0o600);
      expect(modeOf(path.join(dir, 'out'))).toBe(0o700);
      expect(modeOf(path.join(dir, 'out', '海报.psd'))).toBe(0o600);
      expect(modeOf(path.join(workspace, 'journals', id))).toBe(0o700);
      // The link is still a link, and what it points to is not the service's to change.
      expect(lstatSync(path.join(images, 'link.png')).isSymbolicLink()).toBe(true);
      expect(modeOf(outside)).toBe(0o644);
    } finally {
      await second.close();
    }
  });
});
