/**
 * A session worker: the thread that runs the sessions the main thread gave it (worker-session.ts), each with its
 * journal. Requests for one session are taken in arrival order — the Session's own queue keeps them so — and
 * requests for different sessions on this thread interleave at their awaits. Nothing here writes to stdout.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { Progress } from '../calls/session.js';
import { EditorError } from '../engine/errors.js';
import { useJobThreadPort } from '../engine/job-thread.js';
import {
  callsEnded,
  closeHosted,
  type HostedSession,
  hostNew,
  hostRecovered,
  removeFile,
} from './hosted-session.js';
import { SessionHeldElsewhere } from './session-lock.js';
import type { Answer, FromWorker, Request, ToWorker, WireError } from './session-messages.js';

const port = parentPort;
if (!port) throw new Error('session-worker.ts runs only as a worker thread');
// Garment photos go to the main thread's photo worker (worker-session.ts).
const jobs = (workerData as { jobs?: MessagePort } | null)?.jobs;
if (jobs) useJobThreadPort(jobs);

const sessions = new Map<string, { hosted: HostedSession; journalDir: string }>();
/** Deleted sessions whose calls may still be running, until the main thread has asked (`ended`). */
const ending = new Map<string, Promise<void>>();
/** The calls not answered yet, by request number, to cancel one the caller gave up on. */
const calls = new Map<number, AbortController>();
const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const log = (line: string) => post({ log: line });

function wire(err: unknown): WireError {
  if (err instanceof EditorError) {
    return {
      kind: 'editor',
      code: err.code,
      message: err.message,
      ...(err.hint ? { hint: err.hint } : {}),
      ...(err.details !== undefined ? { details: err.details } : {}),
    };
  }
  if (err instanceof SessionHeldElsewhere) return { kind: 'held', pid: err.pid, host: err.host };
  return { kind: 'other', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}

function hostedOf(id: string): HostedSession {
  const found = sessions.get(id);
  if (!found) throw new Error(`session ${id.slice(0, 8)}… is not on this worker`);
  return found.hosted;
}

async function answer(seq: number, request: Request): Promise<{ answer: Answer; transfer?: ArrayBuffer[] }> {
  switch (request.op) {
    case 'open': {
      const hosted = hostNew(request.host, log);
      sessions.set(request.host.id, { hosted, journalDir: request.host.journalDir });
      return { answer: { op: 'open', garmentPhoto: null } };
    }
    case 'recover': {
      const r = await hostRecovered(request.host, log);
      sessions.set(request.host.id, { hosted: r.hosted, journalDir: request.host.journalDir });
      return {
        answer: {
          op: 'recover',
          kind: r.kind,
          createdAt: r.createdAt,
          report: r.report,
          garmentPhoto: r.hosted.session.garmentPhoto,
        },
      };
    }
    case 'call': {
      const { session } = hostedOf(request.id);
      const cancel = new AbortController();
      calls.set(seq, cancel);
      try {
        const result = await session.call(request.call, {
          signal: cancel.signal,
          ...(request.gesture !== undefined ? { gesture: request.gesture } : {}),
          ...(request.progress ? { onProgress: (progress: Progress) => post({ seq, progress }) } : {}),
        });
        return { answer: { op: 'call', result, garmentPhoto: session.garmentPhoto } };
      } finally {
        calls.delete(seq);
      }
    }
    case 'garment_photo':
      await hostedOf(request.id).session.setGarmentPhoto(request.path);
      return { answer: { op: 'garment_photo' } };
    case 'snapshot':
      return { answer: { op: 'snapshot', snapshot: await hostedOf(request.id).session.snapshot() } };
    case 'documents':
      return { answer: { op: 'documents', documents: await hostedOf(request.id).session.documents() } };
    case 'ink':
      return {
        answer: { op: 'ink', hex: (await hostedOf(request.id).session.inkPreview(request.value)) ?? null },
      };
    case 'render': {
      const r = await hostedOf(request.id).session.render(request.name, request.max);
      // A copy of its own, so the buffer can be handed over instead of copied again.
      const png = new Uint8Array(r.png);
      return { answer: { op: 'render', ...r, png }, transfer: [png.buffer] };
    }
    case 'thumbnail': {
      const { session } = hostedOf(request.id);
      const r = await session.thumbnail(request.name, request.layer, request.max, request.of);
      // A copy: the session keeps its thumbnails (thumbnail.ts), so this buffer is not its to hand over.
      const png = new Uint8Array(r.png);
      return { answer: { op: 'thumbnail', ...r, png }, transfer: [png.buffer] };
    }
    case 'layer_at':
      return {
        answer: {
          op: 'layer_at',
          layer: await hostedOf(request.id).session.layerAt(request.name, request.x, request.y),
        },
      };
    case 'heartbeat':
      await (await hostedOf(request.id).journal).heartbeat();
      return { answer: { op: 'heartbeat' } };
    case 'remove_file':
      await removeFile(hostedOf(request.id), request.path);
      return { answer: { op: 'remove_file' } };
    case 'close': {
      const found = sessions.get(request.id);
      if (found) {
        sessions.delete(request.id);
        const closed = closeHosted(found.hosted, request.why, found.journalDir);
        if (request.why === 'deleted') ending.set(request.id, callsEnded(found.hosted));
        await closed;
      }
      return { answer: { op: 'close' } };
    }
    case 'ended':
      await ending.get(request.id);
      ending.delete(request.id);
      return { answer: { op: 'ended' } };
  }
}

port.on('message', (message: ToWorker) => {
  if ('stop' in message) {
    for (const call of calls.values()) call.abort();
    // Ended from its own thread, between two tasks: no JavaScript of a call is running, so none can be cut off
    // while it starts a file operation (see worker-session.ts `stop`). What is still in flight in the file
    // system is dropped with the thread; a temp file it leaves is an atomic write's, cleared like a crash's.
    setImmediate(() => process.exit(0));
    return;
  }
  if ('cancel' in message) {
    calls.get(message.cancel)?.abort();
    return;
  }
  const { seq, request } = message;
  answer(seq, request).then(
    ({ answer, transfer }) => post({ seq, answer }, transfer),
    (err: unknown) => post({ seq, error: wire(err) }),
  );
});
