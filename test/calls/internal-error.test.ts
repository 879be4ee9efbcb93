/** A failure nobody foresaw is reported without the server's folders, and changes nothing. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { internalMessage, withoutFolders } from '../../src/calls/internal-error.js';
import { handlers } from '../../src/tools/index.js';
import { hashEditor, newSession, ok } from '../support/session.js';

describe('an internal error', () => {
  afterEach(() => vi.restoreAllMocks());

  it('keeps the error text but cuts absolute paths to their last part', () => {
    expect(withoutFolders("ENOENT: no such file or directory, open '/srv/atelier/ws-1/in/a.psd'")).toBe(
      "ENOENT: no such file or directory, open '…/a.psd'",
    );
    expect(withoutFolders('EACCES C:\\Users\\studio\\ws\\b.png and file:///srv/x/y.wasm')).toBe(
      'EACCES …/b.png and …/y.wasm',
    );
    expect(withoutFolders('width 3/4 of 1/2')).toBe('width 3/4 of 1/2');
    expect(withoutFolders('POST http://127.0.0.1:8080/v1/chat failed')).toBe(
      'POST http://127.0.0.1:8080/v1/chat failed',
    );
    expect(internalMessage(new Error('boom at /opt/app/dist/x.js'))).toBe('内部错误：boom at …/x.js');
  });

  it('from a tool reaches the caller without the server path, leaving the documents as they were', async () => {
    const session = newSession();
    await ok(session, 'create_document', { width: 40, height: 30 });
    const before = hashEditor(session.editor.snapshot);
    vi.spyOn(handlers, 'create_layer').mockRejectedValue(
      new Error("EIO: i/o error, write '/var/lib/atelier/sessions/7f3a/ws/.tmp-42'"),
    );
    const r = await session.call({ name: 'create_layer', arguments: { name: 'L' } });
    expect(r.ok).toBe(false);
    const message = (r as { error: { code: string; message: string } }).error;
    expect(message.code).toBe('internal');
    expect(message.message).toContain('EIO');
    expect(message.message).not.toContain('/var/lib');
    expect(hashEditor(session.editor.snapshot)).toBe(before);
  });
});
