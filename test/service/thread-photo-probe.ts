/**
 * A thread that is not the main one, as a session thread is (thread-photo.test.ts): it analyses one photo through
 * the port it is given and posts back the extraction, the silhouette kept for it and its job thread's figures.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { useJobThreadPort } from '../../src/engine/job-thread.js';
import { keptSilhouette } from '../../src/garment/builtin/against-photo.js';
import { analysePhotoOffThread, photoThread } from '../../src/garment/builtin/photo-thread.js';

const { jobs, photo } = workerData as { jobs: MessagePort; photo: Uint8Array };
useJobThreadPort(jobs);
const ext = await analysePhotoOffThread(Buffer.from(photo), 'photo.png', 'probe');
parentPort!.postMessage({ ext, kept: keptSilhouette(ext), stats: photoThread.stats() });
