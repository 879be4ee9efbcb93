/**
 * Through the real HTTP service, whose sessions run on session threads: identify_pieces has its garment photo
 * analysed on the process's one photo worker, owned by the main thread (photo-thread.ts, job-thread.ts
 * `jobThreadPort`), not on the session's thread; the answer is the one the calling thread gives; a worker killed
 * mid-analysis leaves the session to analyse the photo itself; and sessions analysing at once share that one
 * worker, those that would wait behind others analysing on their own thread. A photo set is read ahead on that
 * worker when it is free, and identify_pieces then takes that reading.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/calls/session.js';
import { jobThreadPort } from '../../src/engine/job-thread.js';
import { spawnSiblingWorker } from '../../src/engine/worker-boot.js';
import { keptSilhouette } from '../../src/garment/builtin/against-photo.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { analysePhotoOffThread, photoThread } from '../../src/garment/builtin/photo-thread.js';
import type { Extraction } from '../../src/garment/types.js';
import { loadFixtures, marker, openMarker } from '../garment/freesewing-fixtures.js';
import { startTestServer, type TestServer, toolCall } from '../server/support.js';
import { garmentPhoto } from '../support/garment-fixtures.js';
import { tempDir } from '../support/session.js';
import { until } from '../support/until.js';

let server: TestServer;
let psd: Buffer;
let photo: Buffer;
/** identify_pieces on this thread with the photo analysed here, without its images. */
let reference: Record<string, unknown>;

const withoutImages = (r: Record<string, unknown>) => {
  const { images: _images, ...rest } = r;
  return rest;
};

async function ok(session: Session, name: string, args: Record<string, unknown> = {}) {
  const r = await session.call({ name, arguments: args });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r as unknown as Record<string, unknown>;
}

beforeAll(async () => {
  photo = await garmentPhoto('mixed', 2);
  const g = loadFixtures().garments.find((x) => x.id === 'teagan-cisMaleAdult42')!;
  const here = new Session({ workspace: tempDir('thread-photo-') });
  await openMarker(here, marker(g, 'none', 25 / 25.4, 10), 'tee');
  await ok(here, 'save_document_as', { path: 'marker.psd' });
  await ok(here, 'close_document');
  psd = await here.workspace.read('marker.psd');
  await here.workspace.writeAtomic('photo.png', photo);
  await ok(here, 'open_document', { path: 'marker.psd' });
  await ok(here, 'set_garment_photo', { path: 'photo.png' });
  photoThread.setMode('off');
  try {
    reference = withoutImages(await ok(here, 'identify_pieces'));
  } finally {
    photoThread.setMode('auto');
  }
  expect(reference.photo_analysis).toMatchObject({ kind: 'mixed_pattern', reused: false });
  expect(await photoThread.ready()).toBe(true);
  server = await startTestServer();
});

afterEach(() => {
  delete process.env.ATELIER_PHOTO_WORKER;
});

afterAll(async () => {
  await server?.close();
  await photoThread.stop();
});

/** Tool calls over HTTP; the result of each (failures included). */
async function calls(id: string, ...list: ReturnType<typeof toolCall>[]): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${server.url}/v1/sessions/${id}/tool-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tool_calls: list }),
  });
  expect(res.status).toBe(200);
  const { messages } = (await res.json()) as { messages: { content: string }[] };
  return messages.map((m) => JSON.parse(m.content) as Record<string, unknown>);
}

/**
 * A studio session with the marker open and the photo set. Unless `ahead`, the photo is set with the worker off,
 * so that the reading it starts ahead is declined and identify_pieces analyses the photo itself; either way this
 * returns once that reading has reached this thread and (unless not `wait`) the worker is idle again.
 */
async function sessionWithPhoto({ ahead = false, wait = true } = {}): Promise<string> {
  const created = await fetch(`${server.url}/v1/sessions`, { method: 'POST' });
  const { id } = (await created.json()) as { id: string };
  for (const [name, body] of [
    ['marker.psd', psd],
    ['photo.png', photo],
  ] as const) {
    const up = await fetch(`${server.url}/v1/sessions/${id}/files?name=${name}`, { method: 'POST', body });
    expect(up.status).toBe(201);
  }
  const before = photoThread.stats();
  if (!ahead) process.env.ATELIER_PHOTO_WORKER = '0';
  try {
    const set = await calls(
      id,
      toolCall('open_document', { path: 'marker.psd' }),
      toolCall('set_garment_photo', { path: 'photo.png' }),
    );
    expect(set.map((r) => r.ok)).toEqual([true, true]);
    await until(() => photoThread.stats().relayed > before.relayed && (!wait || !photoThread.working));
  } finally {
    delete process.env.ATELIER_PHOTO_WORKER;
  }
  return id;
}

async function identify(id: string): Promise<Record<string, unknown>> {
  const [r] = await calls(id, toolCall('identify_pieces'));
  expect(r!.ok, JSON.stringify(r)).toBe(true);
  return withoutImages(r!);
}

describe('identify_pieces in the studio', () => {
  it("has the photo analysed on the main thread's worker, and answers as the calling thread does", async () => {
    const id = await sessionWithPhoto();
    const before = photoThread.stats();
    expect(await identify(id)).toEqual(reference);
    expect(photoThread.stats()).toEqual({
      ...before,
      relayed: before.relayed + 1,
      worker: before.worker + 1,
    });
  });

  it('has the photo analysed on its own thread when the worker is turned off', async () => {
    const id = await sessionWithPhoto();
    process.env.ATELIER_PHOTO_WORKER = '0';
    const before = photoThread.stats();
    expect(await identify(id)).toEqual(reference);
    expect(photoThread.stats()).toEqual({
      ...before,
      relayed: before.relayed + 1,
      declined: before.declined + 1,
    });
  });

  it('still answers, the same, when the photo worker is killed during the analysis', async () => {
    const id = await sessionWithPhoto();
    expect(await photoThread.ready()).toBe(true);
    const before = photoThread.stats();
    const answer = identify(id);
    // The session's job reaches the worker (its figures say when), then the worker is ended under it.
    while (!photoThread.working) await new Promise((r) => setTimeout(r, 2));
    await photoThread.stop();
    expect(await answer).toEqual(reference);
    expect(photoThread.stats()).toMatchObject({
      relayed: before.relayed + 1,
      recovered: before.recovered + 1,
      worker: before.worker,
    });
    // The next photo starts a new worker.
    const again = await sessionWithPhoto();
    expect(await identify(again)).toEqual(reference);
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 1, starts: before.starts + 1 });
  });

  it('has the photo analysed on its own thread when it would wait behind another for the worker', async () => {
    const id = await sessionWithPhoto();
    expect(await photoThread.ready()).toBe(true);
    // Three of this thread's own photos: one on the worker, two waiting, so the session's would wait too.
    const ours = [1, 2, 3].map((i) => analysePhotoOffThread(photo, `mine-${i}.png`, `mine-${i}`));
    const before = photoThread.stats();
    expect(await identify(id)).toEqual(reference);
    expect(photoThread.stats()).toMatchObject({ relayed: before.relayed + 1, declined: before.declined + 1 });
    await Promise.all(ours);
  });

  it('shares one worker between sessions analysing at once; those that would wait long analyse themselves', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await sessionWithPhoto());
    await photoThread.stop();
    const before = photoThread.stats();
    const answers = await Promise.all(ids.map((id) => identify(id)));
    for (const a of answers) expect(a).toEqual(reference);
    const after = photoThread.stats();
    expect(after.relayed).toBe(before.relayed + ids.length);
    // One worker started for all of them, and every photo was analysed once: by it, or on its session's thread.
    expect(after.starts).toBe(before.starts + 1);
    expect(after.worker - before.worker + (after.declined - before.declined)).toBe(ids.length);
    expect(after.worker).toBeGreaterThan(before.worker);
    expect(after.recovered).toBe(before.recovered);
  });
});

describe('a photo read ahead in the studio', () => {
  it('is read on the worker when set, and identify_pieces takes that reading', async () => {
    expect(await photoThread.ready()).toBe(true);
    const before = photoThread.stats();
    const id = await sessionWithPhoto({ ahead: true });
    expect(photoThread.stats()).toEqual({
      ...before,
      relayed: before.relayed + 1,
      worker: before.worker + 1,
    });
    expect(await identify(id)).toEqual(reference);
    expect(photoThread.stats()).toEqual({
      ...before,
      relayed: before.relayed + 1,
      worker: before.worker + 1,
    });
  });

  it('is read when uploaded as the garment photo', async () => {
    expect(await photoThread.ready()).toBe(true);
    const created = await fetch(`${server.url}/v1/sessions`, { method: 'POST' });
    const { id } = (await created.json()) as { id: string };
    const up = await fetch(`${server.url}/v1/sessions/${id}/files?name=marker.psd`, {
      method: 'POST',
      body: psd,
    });
    expect(up.status).toBe(201);
    const before = photoThread.stats();
    const photoUp = await fetch(`${server.url}/v1/sessions/${id}/files?name=photo.png&role=garment`, {
      method: 'POST',
      body: photo,
    });
    expect(photoUp.status).toBe(201);
    await until(() => photoThread.stats().worker > before.worker && !photoThread.working);
    const [opened] = await calls(id, toolCall('open_document', { path: 'marker.psd' }));
    expect(opened!.ok).toBe(true);
    expect(await identify(id)).toEqual(reference);
    expect(photoThread.stats()).toEqual({
      ...before,
      relayed: before.relayed + 1,
      worker: before.worker + 1,
    });
  });

  it("does not keep another session's identify_pieces waiting: that one analyses its photo itself", async () => {
    const other = await sessionWithPhoto();
    expect(await photoThread.ready()).toBe(true);
    await sessionWithPhoto({ ahead: true, wait: false });
    await until(() => photoThread.working);
    const before = photoThread.stats();
    expect(await identify(other)).toEqual(reference);
    expect(photoThread.stats()).toMatchObject({ relayed: before.relayed + 1, declined: before.declined + 1 });
    await until(() => !photoThread.working);
  });

  it("is skipped while the worker analyses another session's photo, and read when wanted", async () => {
    expect(await photoThread.ready()).toBe(true);
    const busy = analysePhotoOffThread(photo, 'mine.png', 'mine');
    const before = photoThread.stats();
    const id = await sessionWithPhoto({ ahead: true });
    await busy;
    expect(photoThread.stats()).toMatchObject({ relayed: before.relayed + 1, declined: before.declined + 1 });
    expect(await identify(id)).toEqual(reference);
    expect(photoThread.stats()).toMatchObject({ relayed: before.relayed + 2, worker: before.worker + 2 });
  });
});

describe('a photo analysed for another thread', () => {
  it('comes back with the extraction and silhouette of the calling thread', async () => {
    const jobs = jobThreadPort();
    const before = photoThread.stats();
    const probe = spawnSiblingWorker(import.meta.url, 'thread-photo-probe', {
      workerData: { jobs, photo },
      transferList: [jobs],
    });
    const got = await new Promise<{ ext: Extraction; kept: unknown; stats: Record<string, number> }>(
      (resolve, reject) => {
        probe.once('message', resolve);
        probe.once('error', reject);
      },
    );
    await probe.terminate();
    const ours = await analysePhoto(photo, 'photo.png', 'probe');
    expect(got.ext).toEqual(ours);
    expect(got.kept).not.toBeNull();
    expect(got.kept).toEqual(keptSilhouette(ours));
    expect(got.stats).toMatchObject({ worker: 1, here: 0, recovered: 0 });
    expect(photoThread.stats()).toMatchObject({ relayed: before.relayed + 1, worker: before.worker + 1 });
    // A new thread compiles its modules under tsx first: slow on a loaded machine.
  }, 180_000);
});
