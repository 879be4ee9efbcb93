/**
 * A garment photo analysed on the photo worker (photo-thread.ts) gives the extraction the calling thread gives,
 * silhouette included (verify reads it instead of segmenting again); its errors keep their codes; and
 * identify_pieces, which starts the analysis before measuring the pieces, answers as it does without the worker.
 * A photo set (by set_garment_photo or an upload) is read ahead on the worker when it is free, never here, and
 * identify_pieces takes that reading instead of analysing the photo again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/calls/session.js';
import { EditorError } from '../../src/engine/errors.js';
import { keptSilhouette } from '../../src/garment/builtin/against-photo.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import {
  analysePhotoAhead,
  analysePhotoOffThread,
  photoThread,
} from '../../src/garment/builtin/photo-thread.js';
import { garmentPhoto } from '../support/garment-fixtures.js';
import { until } from '../support/until.js';
import { loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

let photo: Buffer;

beforeAll(async () => {
  expect(await photoThread.ready()).toBe(true);
  photo = await garmentPhoto('mixed', 2);
});

afterEach(() => {
  photoThread.setMode('auto');
  delete process.env.ATELIER_PHOTO_WORKER;
});

afterAll(async () => {
  await photoThread.stop();
});

describe('a photo analysed on the worker', () => {
  it('is the extraction of the calling thread, with its silhouette kept', async () => {
    const before = photoThread.stats();
    const theirs = await analysePhotoOffThread(photo, 'photo.png', 'h1');
    expect(photoThread.stats().worker).toBe(before.worker + 1);
    const ours = await analysePhoto(photo, 'photo.png', 'h1');
    expect(theirs).toEqual(ours);
    expect(theirs.kind).toBe('mixed_pattern');
    const kept = keptSilhouette(theirs);
    expect(kept).not.toBeNull();
    expect(kept).toEqual(keptSilhouette(ours));
  });

  it('fails as the calling thread does, code, message and hint', async () => {
    photoThread.setMode('always');
    const notAnImage = Buffer.from('not an image at all, 不是图片');
    const before = photoThread.stats();
    const theirs = await analysePhotoOffThread(notAnImage, 'bad.png', 'h2').then(
      () => expect.unreachable('should have failed'),
      (e: unknown) => e,
    );
    expect(photoThread.stats().worker).toBe(before.worker + 1);
    const ours = await analysePhoto(notAnImage, 'bad.png', 'h2').then(
      () => expect.unreachable('should have failed'),
      (e: unknown) => e,
    );
    expect(theirs).toBeInstanceOf(EditorError);
    const fields = (e: unknown) => {
      const { code, message, hint } = e as EditorError;
      return { code, message, hint };
    };
    expect(fields(theirs)).toEqual(fields(ours));
  });

  it('stays on the calling thread when turned off, and for small photos', async () => {
    process.env.ATELIER_PHOTO_WORKER = '0';
    let before = photoThread.stats();
    await analysePhotoOffThread(photo, 'photo.png', 'h3');
    expect(photoThread.stats()).toMatchObject({ worker: before.worker, here: before.here + 1 });
    delete process.env.ATELIER_PHOTO_WORKER;
    const small = await garmentPhoto('fill', 0.25);
    expect(small.byteLength).toBeLessThan(64 << 10);
    before = photoThread.stats();
    await analysePhotoOffThread(small, 'small.png', 'h4');
    expect(photoThread.stats()).toMatchObject({ worker: before.worker, here: before.here + 1 });
  });

  it('stops the worker when it has been idle, and starts another for the next photo', async () => {
    try {
      photoThread.setIdleStop(300);
      await analysePhotoOffThread(photo, 'photo.png', 'h6');
      expect(photoThread.started).toBe(true);
      await new Promise((r) => setTimeout(r, 900));
      expect(photoThread.started).toBe(false);
      const before = photoThread.stats();
      expect((await analysePhotoOffThread(photo, 'photo.png', 'h7')).kind).toBe('mixed_pattern');
      expect(photoThread.stats()).toMatchObject({ worker: before.worker + 1, here: before.here });
    } finally {
      photoThread.setIdleStop(120_000);
    }
  });

  it('is done here when the worker dies during the analysis', async () => {
    photoThread.setMode('always');
    const before = photoThread.stats();
    const reading = analysePhotoOffThread(photo, 'photo.png', 'h5');
    await photoThread.stop();
    expect((await reading).kind).toBe('mixed_pattern');
    expect(photoThread.stats()).toMatchObject({ recovered: before.recovered + 1 });
  });
});

describe('identify_pieces with the photo read on the worker', () => {
  it('starts the worker when a photo it will take is set', async () => {
    const session = new Session({ workspace: mkdtempSync(join(tmpdir(), 'photo-warm-')) });
    await session.workspace.writeAtomic('small.png', await garmentPhoto('fill', 0.25));
    await session.workspace.writeAtomic('photo.png', photo);
    await photoThread.stop();
    expect(photoThread.started).toBe(false);
    expect((await session.call({ name: 'set_garment_photo', arguments: { path: 'small.png' } })).ok).toBe(
      true,
    );
    expect(photoThread.started).toBe(false);
    expect((await session.call({ name: 'set_garment_photo', arguments: { path: 'photo.png' } })).ok).toBe(
      true,
    );
    expect(photoThread.started).toBe(true);
    expect(await photoThread.ready()).toBe(true);
  });

  it('answers as it does when the photo is read on the calling thread', async () => {
    const g = loadFixtures().garments.find((x) => x.id === 'teagan-cisMaleAdult42')!;
    const m = marker(g, 'none', 25 / 25.4, 10);
    const run = async () => {
      const session = new Session({ workspace: mkdtempSync(join(tmpdir(), 'photo-thread-')) });
      await openMarker(session, m, 'tee');
      await session.workspace.writeAtomic('photo.png', photo);
      const set = await session.call({ name: 'set_garment_photo', arguments: { path: 'photo.png' } });
      expect(set.ok).toBe(true);
      const r = await session.call({ name: 'identify_pieces', arguments: {} });
      expect(r.ok).toBe(true);
      return r;
    };
    const before = photoThread.stats();
    const theirs = await run();
    expect(photoThread.stats().worker).toBe(before.worker + 1);
    process.env.ATELIER_PHOTO_WORKER = '0';
    const ours = await run();
    const { images: a, ...restA } = theirs as unknown as { images: unknown };
    const { images: b, ...restB } = ours as unknown as { images: unknown };
    expect(restA).toEqual(restB);
    expect(a).toEqual(b);
    const { proposed_pieces: proposed, pieces } = theirs as unknown as {
      proposed_pieces: { type: string }[];
      pieces: unknown[];
    };
    expect(proposed.length).toBe(pieces.length);
    // The photo's print (a repeat with a placed motif) reached the proposals.
    expect(proposed.some((p) => p.type !== 'solid')).toBe(true);
  });
});

describe('a photo read ahead', () => {
  it('runs on a free worker, and is the extraction the call would have made', async () => {
    const before = photoThread.stats();
    const early = await photoThread.ahead({ bytes: photo, path: 'photo.png', hash: 'a1' }).result;
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 1, here: before.here });
    expect(early!.ext).toEqual(await analysePhoto(photo, 'photo.png', 'a1'));
    expect(keptSilhouette(early!.ext)).toEqual(early!.truth);
  });

  it('is skipped, never run here, when the worker is busy, off, or the photo small', async () => {
    expect(await photoThread.ready()).toBe(true);
    const busy = analysePhotoOffThread(photo, 'photo.png', 'a2');
    const before = photoThread.stats();
    expect(await photoThread.ahead({ bytes: photo, path: 'photo.png', hash: 'a3' }).result).toBeNull();
    await busy;
    process.env.ATELIER_PHOTO_WORKER = '0';
    expect(await photoThread.ahead({ bytes: photo, path: 'photo.png', hash: 'a4' }).result).toBeNull();
    delete process.env.ATELIER_PHOTO_WORKER;
    const small = await garmentPhoto('fill', 0.25);
    expect(await photoThread.ahead({ bytes: small, path: 'small.png', hash: 'a5' }).result).toBeNull();
    // Only the call's own job ran; nothing skipped ran on this thread.
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 1, here: before.here });
  });

  it('is null when the worker dies under it, and the photo is then read when wanted', async () => {
    photoThread.setMode('always');
    const before = photoThread.stats();
    const early = photoThread.ahead({ bytes: photo, path: 'photo.png', hash: 'a6' });
    await until(() => photoThread.working);
    await photoThread.stop();
    expect(await early.want()).toBeNull();
    expect(photoThread.stats()).toMatchObject({ here: before.here, recovered: before.recovered + 1 });
  });

  it('is taken by the analysis that wants it: the photo is analysed once', async () => {
    expect(await photoThread.ready()).toBe(true);
    const before = photoThread.stats();
    analysePhotoAhead(photo, 'photo.png', 'a7');
    await until(() => photoThread.stats().worker === before.worker + 1);
    const ext = await analysePhotoOffThread(photo, 'photo.png', 'a7');
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 1, here: before.here });
    expect(ext).toEqual(await analysePhoto(photo, 'photo.png', 'a7'));
    // Taken once: the same photo wanted again is analysed again (the session keeps the extraction it took).
    await analysePhotoOffThread(photo, 'photo.png', 'a7');
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 2 });
    // Other bytes under the same name are not that reading.
    analysePhotoAhead(photo, 'photo.png', 'a8');
    await analysePhotoOffThread(photo, 'photo.png', 'a9');
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 4 });
  });

  it('starts when a photo is uploaded for the garment, and identify_pieces takes it', async () => {
    const g = loadFixtures().garments.find((x) => x.id === 'teagan-cisMaleAdult42')!;
    const session = new Session({ workspace: mkdtempSync(join(tmpdir(), 'photo-ahead-')) });
    await openMarker(session, marker(g, 'none', 25 / 25.4, 10), 'tee');
    await session.workspace.writeAtomic('photo.png', photo);
    expect(await photoThread.ready()).toBe(true);
    const before = photoThread.stats();
    await session.setGarmentPhoto('photo.png');
    await until(() => photoThread.stats().worker === before.worker + 1);
    const r = (await session.call({ name: 'identify_pieces', arguments: {} })) as unknown as {
      ok: boolean;
      photo_analysis: { kind: string; reused: boolean };
    };
    expect(r.ok).toBe(true);
    expect(r.photo_analysis).toMatchObject({ kind: 'mixed_pattern', reused: false });
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 1, here: before.here });
    // The same photo set again, either way: the session holds its extraction, and nothing is read again.
    await session.setGarmentPhoto('photo.png');
    expect((await session.call({ name: 'set_garment_photo', arguments: { path: 'photo.png' } })).ok).toBe(
      true,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(photoThread.working).toBe(false);
    expect(photoThread.stats()).toMatchObject({ worker: before.worker + 1, here: before.here });
  });
});
