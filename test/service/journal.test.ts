import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { snapshotOf } from '../../src/calls/snapshot.js';
import { SNAPSHOT_EVERY_CALLS } from '../../src/service/journal.js';
import { LOCK_FILE, SessionHeldElsewhere } from '../../src/service/session-lock.js';
import { type InlineHost, type SessionEntry, SessionStore } from '../../src/service/sessions.js';
import { NAMES, placedGarmentDocument } from '../support/garment-fixtures.js';
import { call, hashEditor, ok, tempDir, withoutThumbnailKeys } from '../support/session.js';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.closeAll();
});

function storeOn(root: string, logs: string[] = []): SessionStore {
  const store = new SessionStore({
    root,
    idleTimeoutMs: 60_000,
    maxSessions: 10,
    log: (l) => logs.push(l),
    isolation: 'inline',
  });
  stores.push(store);
  return store;
}

/** The session of an inline store, to look inside it. */
function inline(entry: SessionEntry): Session {
  return (entry.host as InlineHost).hosted.session;
}

/** A pid no process has: the lock's owner looks dead, as after a kill -9. */
const DEAD_PID = spawnSync(process.execPath, ['-e', '0']).pid!;

/**
 * What a kill -9 leaves: the journal as written, and a lock whose owner is gone. The store is dropped without
 * closing anything (its timers are stopped; its locks no longer name it, so it releases nothing).
 */
function crash(store: SessionStore, root: string): void {
  for (const id of readdirSync(path.join(root, 'journals'))) {
    const lock = path.join(root, 'journals', id, LOCK_FILE);
    if (!existsSync(lock)) continue;
    const held = JSON.parse(readFileSync(lock, 'utf8'));
    writeFileSync(lock, JSON.stringify({ ...held, pid: DEAD_PID, token: 'gone' }));
  }
  store.closeAll();
}

async function fingerprint(entry: SessionEntry): Promise<unknown> {
  const state = inline(entry).state;
  return {
    editor: hashEditor(state.editor),
    history: state.editor.docs.map((d) => d.history.labels),
    snapshot: withoutThumbnailKeys(await snapshotOf(inline(entry))),
    garmentPhoto: state.garmentPhoto,
  };
}

async function png(color: string, size = 16): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 4, background: color } })
    .png()
    .toBuffer();
}

async function workOn(entry: SessionEntry): Promise<void> {
  const s = inline(entry);
  await ok(s, 'create_document', { width: 64, height: 48, name: '海报' });
  await ok(s, 'create_text_layer', { text: '春季新品', x: 4, y: 4, font_size: 12, color: '#c0392b' });
  await ok(s, 'create_layer', { name: '色块' });
  await ok(s, 'select_rect', { left: 0, top: 20, right: 40, bottom: 48 });
  await ok(s, 'fill_selection', { color: '#f4d03f' });
  await ok(s, 'add_layer_mask', { name: '色块' });
  await ok(s, 'create_document', { width: 20, height: 20, name: '第二张' });
  await ok(s, 'create_layer', { name: '层' });
  await ok(s, 'set_layer_opacity', { name: '层', opacity: 50 });
  await ok(s, 'undo', {});
  await ok(s, 'switch_document', { doc_name: '海报' });
}

describe('crash-safe sessions', () => {
  it('comes back after a crash exactly as after its last call, history included, and undo still works', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await workOn(entry);
    const before = await fingerprint(entry);
    crash(first, root);

    const logs: string[] = [];
    const second = storeOn(root, logs);
    const back = await second.recover(entry.id);
    expect(back).toBeDefined();
    expect(await fingerprint(back!)).toEqual(before);
    expect(logs.join('\n')).toMatch(/recovered .*snapshot none, 11 call\(s\) replayed/);
    // Undo walks the recovered history as it would have walked the original one.
    await ok(inline(back!), 'undo', { steps: 1 });
    const labels = inline(back!).state.editor.docs[0]!.history;
    expect(labels.index).toBe(labels.labels.length - 2);
  });

  it('replays only what follows the newest snapshot, and prunes what the snapshot covers', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await ok(inline(entry), 'create_document', { width: 32, height: 32 });
    await ok(inline(entry), 'create_layer', { name: '层' });
    for (let i = 0; i < SNAPSHOT_EVERY_CALLS + 2; i++) {
      await ok(inline(entry), 'set_layer_opacity', { name: '层', opacity: 10 + i });
    }
    await (await (entry.host as InlineHost).hosted.journal).settled();
    const files = readdirSync(path.join(root, 'journals', entry.id));
    expect(files.filter((f) => f.startsWith('snapshot-'))).toEqual([`snapshot-${SNAPSHOT_EVERY_CALLS}.json`]);
    expect(files.filter((f) => f.startsWith('journal-'))).toEqual([
      `journal-${SNAPSHOT_EVERY_CALLS + 1}.jsonl`,
    ]);
    const before = await fingerprint(entry);
    crash(first, root);

    const logs: string[] = [];
    const back = await storeOn(root, logs).recover(entry.id);
    expect(await fingerprint(back!)).toEqual(before);
    expect(logs.join('\n')).toMatch(new RegExp(`snapshot ${SNAPSHOT_EVERY_CALLS}, 4 call\\(s\\) replayed`));
  });

  it('ignores a torn last line, and keeps journaling after it', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await ok(inline(entry), 'create_document', { width: 16, height: 16 });
    await ok(inline(entry), 'create_layer', { name: '甲' });
    const before = await fingerprint(entry);
    const segment = path.join(root, 'journals', entry.id, 'journal-1.jsonl');
    appendFileSync(segment, '{"seq":3,"t":"call","call":{"name":"create_layer","argum');
    crash(first, root);

    const logs: string[] = [];
    const second = storeOn(root, logs);
    const back = await second.recover(entry.id);
    expect(await fingerprint(back!)).toEqual(before);
    expect(logs.join('\n')).toMatch(/1 damaged line\(s\) ignored/);
    expect(readFileSync(segment, 'utf8').endsWith('\n')).toBe(true);

    await ok(inline(back!), 'create_layer', { name: '乙' });
    const after = await fingerprint(back!);
    crash(second, root);
    expect(await fingerprint((await storeOn(root).recover(entry.id))!)).toEqual(after);
  });

  it('takes back the line of a change whose write failed (disk full, failed sync): later changes recover', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    const s = inline(entry);
    await ok(s, 'create_document', { width: 16, height: 16 });
    await ok(s, 'create_layer', { name: '甲' });
    // The segment the journal appends to, failing as a full disk does: part of the line, then ENOSPC; or the
    // whole line, then a failed sync.
    const journal = await (entry.host as InlineHost).hosted.journal;
    const segment = (journal as unknown as { segment: FileHandle }).segment;
    const write = segment.write.bind(segment) as (
      b: Buffer,
      offset?: number,
      length?: number,
    ) => Promise<unknown>;
    const datasync = segment.datasync.bind(segment);
    let fail: 'partial' | 'sync' | null = null;
    const diskFull = () => Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    Object.assign(segment, {
      write: async (data: Buffer | string, offset = 0) => {
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        if (fail === 'partial') {
          fail = null;
          await write(bytes, offset, 20);
          throw diskFull();
        }
        return write(bytes, offset);
      },
      datasync: async () => {
        if (fail === 'sync') {
          fail = null;
          throw diskFull();
        }
        return datasync();
      },
    });
    const refused = async (name: string) => {
      const r = await call(s, 'create_layer', { name });
      expect(r).toMatchObject({ ok: false, error: { code: 'io_error' } });
    };
    fail = 'partial';
    await refused('乙');
    await ok(s, 'create_layer', { name: '丙' });
    fail = 'sync';
    await refused('丁');
    await ok(s, 'create_layer', { name: '戊' });
    const before = await fingerprint(entry);
    crash(first, root);

    const logs: string[] = [];
    const back = await storeOn(root, logs).recover(entry.id);
    expect(await fingerprint(back!)).toEqual(before);
    expect(logs.join('\n')).toMatch(/4 call\(s\) replayed\)/);
  });

  it('replays a file as the call read it, even when it was overwritten since', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await inline(entry).workspace.writeAtomic('in/photo.png', await png('#ff0000'));
    await ok(inline(entry), 'open_document', { path: 'in/photo.png' });
    await ok(inline(entry), 'create_document', { width: 16, height: 16, name: '底' });
    await ok(inline(entry), 'place_image', { path: 'in/photo.png', name: '贴图' });
    const before = await fingerprint(entry);
    // Overwritten (by an upload, another save) after the calls that read it.
    await inline(entry).workspace.writeAtomic('in/photo.png', await png('#0000ff', 24));
    crash(first, root);

    const back = await storeOn(root).recover(entry.id);
    expect(await fingerprint(back!)).toEqual(before);
    // Replay wrote nothing: the file is what it was overwritten with.
    const meta = await sharp(path.join(root, 'sessions', entry.id, 'in/photo.png')).metadata();
    expect(meta.width).toBe(24);
  });

  it('does not write a saved PSD again when it replays the save: a file put there since stays', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await ok(inline(entry), 'create_document', { width: 600, height: 600, name: '底' });
    await ok(inline(entry), 'save_document_as', { path: 'out/底.psd' });
    const before = await fingerprint(entry);
    // Replaced after the save (an upload of the same name).
    const file = path.join(root, 'sessions', entry.id, 'out/底.psd');
    writeFileSync(file, 'the designer’s own file');
    crash(first, root);

    const back = await storeOn(root).recover(entry.id);
    expect(await fingerprint(back!)).toEqual(before);
    expect(readFileSync(file, 'utf8')).toBe('the designer’s own file');
  });

  it('journals the garment photo set by an upload', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await inline(entry).workspace.writeAtomic('shirt.png', await png('#336699'));
    await inline(entry).setGarmentPhoto('shirt.png');
    crash(first, root);
    const back = await storeOn(root).recover(entry.id);
    expect(inline(back!).garmentPhoto).toBe('shirt.png');
  });

  it('keeps an idle session on disk (final snapshot, nothing to replay); a deleted one is gone for good', async () => {
    const root = tempDir('atelier-journal-');
    let now = 0;
    const logs: string[] = [];
    const store = new SessionStore({
      root,
      idleTimeoutMs: 1000,
      maxSessions: 10,
      log: (l) => logs.push(l),
      now: () => now,
      isolation: 'inline',
    });
    stores.push(store);
    const idle = store.create('http');
    const doomed = store.create('http');
    await workOn(idle);
    await ok(inline(doomed), 'create_document', { width: 8, height: 8 });
    const before = await fingerprint(idle);
    now += 5000;
    store.sweep();
    await store.settled();
    expect(store.size).toBe(0);
    expect(readdirSync(path.join(root, 'journals', idle.id)).filter((f) => f.startsWith('journal-'))).toEqual(
      [],
    );

    const back = await store.recover(idle.id);
    expect(await fingerprint(back!)).toEqual(before);
    expect(logs.at(-1)).toMatch(/0 call\(s\) replayed/);

    const again = await store.recover(doomed.id);
    expect(store.delete(again!.id)).toBe(true);
    await store.settled();
    expect(await store.recover(doomed.id)).toBeUndefined();
    expect(existsSync(path.join(root, 'journals', doomed.id))).toBe(false);
  });

  it('is served by one process at a time: a live holder keeps it', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await ok(inline(entry), 'create_document', { width: 8, height: 8 });
    await expect(storeOn(root).recover(entry.id)).rejects.toBeInstanceOf(SessionHeldElsewhere);
    // Once taken over, the old holder stops journaling instead of writing beside the new one.
    crash(first, root);
    const second = storeOn(root);
    await second.recover(entry.id);
    const stale = await call(inline(entry), 'create_layer', { name: '迟到' });
    expect(stale).toMatchObject({ ok: false, error: { code: 'io_error' } });
    expect(inline(entry).state.editor.docs[0]!.history.labels).toHaveLength(1);
  });

  it('keeps the parts the user confirmed across a crash, for later identifications too', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const entry = first.create('http');
    await placedGarmentDocument(inline(entry), 'none');
    await ok(inline(entry), 'identify_pieces');
    await ok(inline(entry), 'confirm_piece_parts', { pieces: [{ name: NAMES.none.collar, part: 'other' }] });
    const before = await fingerprint(entry);
    crash(first, root);

    const back = await storeOn(root).recover(entry.id);
    expect(await fingerprint(back!)).toEqual(before);
    const again = await ok(inline(back!), 'identify_pieces');
    const collar = (again.pieces as { name: string; part: string; decided_by: string }[]).find(
      (p) => p.name === NAMES.none.collar,
    );
    expect(collar).toMatchObject({ part: 'other', decided_by: 'user' });
  });

  it('does not leave a vision model’s answer to replay: the call is covered by a snapshot', async () => {
    // A fake OpenAI-compatible vision model: it calls the front piece a pocket, then is gone.
    let answers = 0;
    const model = createServer((_req, res) => {
      answers++;
      const content = JSON.stringify({
        pieces: [{ layer: NAMES.none.front, part: 'pocket', confidence: 0.9 }],
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    const env = { ...process.env };
    process.env.ATELIER_VISION_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    process.env.ATELIER_VISION_MODEL = 'fake-vl';
    try {
      const root = tempDir('atelier-journal-');
      const first = storeOn(root);
      const entry = first.create('http');
      await placedGarmentDocument(inline(entry), 'none');
      await ok(inline(entry), 'identify_pieces');
      expect(answers).toBe(1);
      const part = (e: SessionEntry) =>
        inline(e).garment.analysis?.pieces.find((p) => p.name === NAMES.none.front)?.part;
      expect(part(entry)).toBe('pocket');
      const before = await fingerprint(entry);
      crash(first, root);
      await new Promise<void>((resolve) => model.close(() => resolve()));

      const back = await storeOn(root).recover(entry.id);
      expect(answers).toBe(1);
      expect(part(back!)).toBe('pocket');
      expect(await fingerprint(back!)).toEqual(before);
    } finally {
      process.env = env;
      model.close();
    }
  });

  it('removes, after the retention period, the journals of sessions no process serves', async () => {
    const root = tempDir('atelier-journal-');
    const first = storeOn(root);
    const old = first.create('http');
    const served = first.create('http');
    await ok(inline(old), 'create_document', { width: 8, height: 8 });
    await ok(inline(served), 'create_document', { width: 8, height: 8 });
    crash(first, root);
    const second = storeOn(root);
    await second.recover(served.id);
    const leftover = path.join(root, 'journals', `.deleted-${old.id}-0000`);
    mkdirSync(path.join(leftover, 'buffers'), { recursive: true });
    const purger = new SessionStore({
      root,
      idleTimeoutMs: 60_000,
      maxSessions: 10,
      log: () => {},
      retentionMs: -1000,
    });
    stores.push(purger);
    expect(await purger.purgeExpired()).toEqual([old.id]);
    expect(await storeOn(root).recover(old.id)).toBeUndefined();
    expect(existsSync(path.join(root, 'journals', served.id, 'meta.json'))).toBe(true);
    expect(existsSync(leftover)).toBe(false);
  });
});
