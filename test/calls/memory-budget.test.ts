import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/calls/session.js';
import { psdCanvasPixels, sessionPixelBytes } from '../../src/engine/memory-budget.js';
import { createSession, sendCalls, startTestServer, toolCall } from '../server/support.js';
import { tempDir } from '../support/session.js';

const MB = 1024 * 1024;

function budgeted(memoryBudgetBytes: number, workspace = tempDir()): Session {
  return new Session({ workspace, memoryBudgetBytes, onInternalError: (err) => console.error(err) });
}

async function ok(session: Session, name: string, args: Record<string, unknown> = {}) {
  const r = await session.call({ name, arguments: args });
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r as Record<string, unknown>;
}

async function refused(session: Session, name: string, args: Record<string, unknown> = {}) {
  const r = await session.call({ name, arguments: args });
  expect(r.ok, `${name} should be refused`).toBe(false);
  return (r as unknown as { error: { code: string; message: string; hint?: string; details?: unknown } })
    .error;
}

const used = (s: Session) => sessionPixelBytes(s.editor.snapshot, s.editor.composites());

/** A full garbage collection, without starting node with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** V8's count of buffer memory (pixel buffers are counted here through their weights, src/engine/raster.ts). */
function external(): number {
  global.gc?.();
  return process.memoryUsage().external;
}

describe('counting a session’s pixel memory', () => {
  it('counts each buffer once across history steps, plus the composites kept', async () => {
    const s = new Session({ workspace: tempDir() });
    // The white background is a colour until painted: no pixels yet.
    await ok(s, 'create_document', { width: 500, height: 400 });
    expect(used(s)).toBe(0);
    const layer = 500 * 400 * 4;
    await ok(s, 'create_layer', { name: 'L' });
    await ok(s, 'fill_selection', { color: '#00ff00' });
    expect(used(s)).toBe(layer);
    // A metadata edit shares the buffer: still one.
    await ok(s, 'set_layer_opacity', { name: 'L', opacity: 50 });
    expect(used(s)).toBe(layer);
    // A fill makes a new buffer; the old one stays in history.
    await ok(s, 'fill_selection', { color: '#ff0000' });
    expect(used(s)).toBe(2 * layer);
    // Rendering keeps a canvas-sized composite.
    await ok(s, 'get_canvas_image', { max_size: 64 });
    expect(used(s)).toBe(3 * layer);
    await ok(s, 'close_document');
    expect(used(s)).toBe(0);
  });

  it('counts the inks a CMYK conversion keeps beside each raster', async () => {
    const s = new Session({ workspace: tempDir() });
    await ok(s, 'create_document', { width: 500, height: 400 });
    await ok(s, 'create_layer', { name: 'L' });
    await ok(s, 'fill_selection', { color: '#00ff00' });
    const layer = 500 * 400 * 4;
    await ok(s, 'convert_to_cmyk');
    // The RGB layer stays in history; the converted one holds its pixels and, as many bytes again, its inks; the
    // document's ink table holds its two colours in its smallest size (1024 keys and values).
    expect(used(s)).toBe(3 * layer + 2 * 1024 * 4);
  });

  it('reads the canvas a PSD declares from its header', () => {
    const header = Buffer.alloc(26);
    header.write('8BPS', 0, 'latin1');
    header.writeUInt16BE(2, 4);
    header.writeUInt32BE(40000, 14);
    header.writeUInt32BE(5000, 18);
    expect(psdCanvasPixels(header)).toBe(200_000_000);
    expect(psdCanvasPixels(Buffer.from('GIF89a not a psd at all...'))).toBe(0);
  });
});

describe('a per-session memory budget', () => {
  it('refuses a document the budget cannot hold before allocating it, naming the limit', async () => {
    const s = budgeted(64 * MB);
    const before = external();
    const error = await refused(s, 'create_document', { width: 6000, height: 6000 });
    expect(error.code).toBe('out_of_bounds');
    expect(error.message).toContain('64 MB');
    expect(error.message).toContain('内存上限');
    expect(error.hint).toMatch(/close_document/);
    // One painted layer and the composite.
    expect(error.details).toMatchObject({
      limit_bytes: 64 * MB,
      used_bytes: 0,
      needed_bytes: 6000 * 6000 * 8,
    });
    // Nothing was allocated (a 144 MB layer would show here) and nothing changed.
    expect(external() - before).toBeLessThan(16 * MB);
    expect(s.editor.snapshot.docs).toHaveLength(0);
    // What fits works.
    await ok(s, 'create_document', { width: 2000, height: 2000 });
  });

  it('lets each operation work within the budget or refuses it with nothing changed', async () => {
    // 16 MB per canvas-sized buffer; 100 MB hold the layer, a few steps and the composite.
    const s = budgeted(100 * MB);
    await ok(s, 'create_document', { width: 2000, height: 2000, name: 'A' });
    await ok(s, 'create_layer', { name: 'L' });
    await ok(s, 'fill_selection', { color: '#3366cc' });
    await ok(s, 'duplicate_layer');
    await ok(s, 'get_canvas_image', { max_size: 64 });
    // The layer (its copy shares the pixels) and the composite.
    expect(used(s)).toBe(2 * 2000 * 2000 * 4);
    const state = s.editor.snapshot;
    for (const [name, args] of [
      ['resize_image', { width: 6000, height: 6000 }],
      ['resize_canvas', { width: 5000, height: 5000 }],
      ['create_document', { width: 4000, height: 4000, name: 'B' }],
    ] as const) {
      const before = external();
      const error = await refused(s, name, args);
      expect(error.code, name).toBe('out_of_bounds');
      expect(error.message, name).toContain('100 MB');
      expect(external() - before, name).toBeLessThan(32 * MB);
      expect(s.editor.snapshot, name).toBe(state);
    }
    // Filling step after step: each new buffer is charged, and the budget stops the growth.
    let fills = 0;
    for (; fills < 10; fills++) {
      const r = await s.call({
        name: 'fill_selection',
        arguments: { color: fills % 2 ? '#ff0000' : '#00ff00' },
      });
      if (!r.ok) {
        expect((r as unknown as { error: { code: string } }).error.code).toBe('out_of_bounds');
        break;
      }
    }
    expect(fills).toBeGreaterThan(0);
    expect(fills).toBeLessThan(10);
    expect(used(s)).toBeLessThanOrEqual(100 * MB);
    // Closing a document gives its memory back: what was refused fits now.
    await ok(s, 'close_document');
    await ok(s, 'create_document', { width: 4000, height: 1500, name: 'B' });
  });

  it('refuses to open or place an image too large for the budget before decoding it', async () => {
    const ws = tempDir();
    // A 5000 × 5000 PNG: a small file, 100 MB once decoded.
    await sharp({ create: { width: 5000, height: 5000, channels: 4, background: '#204060' } })
      .png()
      .toFile(join(ws, 'big.png'));
    const s = budgeted(64 * MB, ws);
    const before = external();
    const open = await refused(s, 'open_document', { path: 'big.png' });
    expect(open.code).toBe('out_of_bounds');
    expect(open.message).toContain('解码图像');
    await ok(s, 'create_document', { width: 100, height: 100 });
    const place = await refused(s, 'place_image', { path: 'big.png' });
    expect(place.code).toBe('out_of_bounds');
    expect(external() - before).toBeLessThan(16 * MB);
    expect(s.editor.snapshot.docs).toHaveLength(1);
  });

  it('refuses to open a PSD too large for the budget', async () => {
    const ws = tempDir();
    const maker = new Session({ workspace: ws });
    await ok(maker, 'create_document', { width: 3000, height: 3000, name: 'big' });
    await ok(maker, 'save_document');
    const s = budgeted(32 * MB, ws);
    const error = await refused(s, 'open_document', { path: 'big.psd' });
    expect(error.code).toBe('out_of_bounds');
    expect(error.message).toContain('PSD');
    expect(s.editor.snapshot.docs).toHaveLength(0);
    // With room, it opens.
    await ok(budgeted(256 * MB, ws), 'open_document', { path: 'big.psd' });
  });

  it('a session without a budget is not limited', async () => {
    const s = new Session({ workspace: tempDir() });
    await ok(s, 'create_document', { width: 3000, height: 3000 });
    await ok(s, 'duplicate_layer');
  });
});

describe('the server’s sessions under their budget', () => {
  it('refuses a render the budget cannot hold with 503, naming the budget', async () => {
    const server = await startTestServer({ sessionMemoryBytes: 64 * MB });
    try {
      const id = await createSession(server.url);
      for (const call of [
        toolCall('create_document', { width: 4000, height: 2000, name: 'A' }),
        toolCall('create_layer', { name: 'L1' }),
        toolCall('fill_selection', { color: '#336699' }),
        toolCall('create_document', { width: 2000, height: 2000, name: 'B' }),
        toolCall('create_layer', { name: 'L2' }),
        toolCall('fill_selection', { color: '#993366' }),
      ]) {
        const { results } = await sendCalls(server.url, id, [call]);
        expect(results[0]!.ok, JSON.stringify(results[0])).toBe(true);
      }
      const res = await fetch(`${server.url}/v1/sessions/${id}/documents/A/render.png?max=256`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; reason: string; limit_bytes: number } };
      expect(body.error).toMatchObject({ code: 'busy', limit_bytes: 64 * MB });
      expect(body.error.reason).toContain('64 MB');
      // Closing the other document makes room: the render works.
      await sendCalls(server.url, id, [toolCall('close_document')]);
      expect((await fetch(`${server.url}/v1/sessions/${id}/documents/A/render.png?max=256`)).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
  });

  it('shares one pool between sessions: a call is refused what the others leave, and gets it once they give it back', async () => {
    // A 4000 × 2000 document needs 64 MB of room (a layer and its composite), each painted layer 30.5 MB more:
    // each session's own budget would take six such layers, the pool takes four in all.
    const server = await startTestServer({ sessionMemoryBytes: 256 * MB, memoryBytes: 128 * MB });
    try {
      const a = await createSession(server.url);
      const b = await createSession(server.url);
      const run = async (id: string, calls: ReturnType<typeof toolCall>[]) =>
        (await sendCalls(server.url, id, calls)).results as {
          ok: boolean;
          error?: { code: string; message: string; hint: string; details: Record<string, number> };
        }[];
      const okAll = async (id: string, calls: ReturnType<typeof toolCall>[]) => {
        for (const r of await run(id, calls)) expect(r.ok, JSON.stringify(r)).toBe(true);
      };
      const document = (name: string) => toolCall('create_document', { width: 4000, height: 2000, name });
      const layer = (name: string) => [
        toolCall('create_layer', { name }),
        toolCall('fill_selection', { color: '#336699' }),
      ];
      await okAll(a, [document('A'), ...layer('1'), ...layer('2')]);
      await okAll(b, [document('B'), ...layer('1'), ...layer('2')]);

      // Far inside B's own budget, but the other session holds the rest of the pool.
      const [, fill] = await run(b, layer('3'));
      expect(fill!.ok).toBe(false);
      expect(fill!.error).toMatchObject({
        code: 'out_of_bounds',
        details: { server_limit_bytes: 128 * MB, others_bytes: expect.any(Number) },
      });
      expect(fill!.error!.details.others_bytes).toBeGreaterThanOrEqual(60 * MB);
      expect(fill!.error!.message).toContain('其他会话已占用');
      expect(fill!.error!.message).not.toContain('每个会话');
      expect(fill!.error!.hint).toContain('ATELIER_MEMORY_MB');
      // Its render (a composite of 30 MB) waits for room too, and says where the room went.
      const render = await fetch(`${server.url}/v1/sessions/${b}/documents/B/render.png?max=256`);
      expect(render.status).toBe(503);
      expect(render.headers.get('retry-after')).toBe('30');
      const { error } = (await render.json()) as { error: { code: string; message: string } };
      expect(error).toMatchObject({ code: 'busy', message: expect.stringContaining('其他会话') });

      // A closes its document: what it held is given back, and B's call fits.
      await okAll(a, [toolCall('close_document', { save: false })]);
      await okAll(b, [toolCall('fill_selection', { color: '#993366' })]);

      // A deleted session gives back what it held too.
      expect((await run(a, [document('A2')]))[0]!.ok).toBe(false);
      expect((await fetch(`${server.url}/v1/sessions/${b}`, { method: 'DELETE' })).status).toBe(204);
      await server.store.settled();
      await okAll(a, [document('A2'), ...layer('1')]);
    } finally {
      await server.close();
    }
  });

  it('a 30000 × 30000 document and large work: each call works within the budget or is refused before allocating; RSS stays under it', async () => {
    const budget = 1024 * MB;
    const server = await startTestServer({ sessionMemoryBytes: budget });
    try {
      const id = await createSession(server.url);
      collectGarbage();
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      let firstPeak = 0;
      let rss1 = rss0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
      const outcomes: string[] = [];
      const run = async (name: string, args: Record<string, unknown> = {}) => {
        const { results } = await sendCalls(server.url, id, [toolCall(name, args)]);
        const r = results[0] as { ok: boolean; error?: { code: string; message: string } };
        outcomes.push(
          `${name} ${JSON.stringify(args)}: ${r.ok ? 'ok' : `${r.error!.code} ${r.error!.message}`}`,
        );
        // Refused calls say why in the words of the budget or the size limit; nothing fails otherwise.
        if (!r.ok) expect(['out_of_bounds', 'invalid_arguments'], outcomes.at(-1)).toContain(r.error!.code);
        return r;
      };
      try {
        // 900 Mpx: beyond the document pixel limit, refused before anything exists.
        expect((await run('create_document', { width: 30000, height: 30000 })).ok).toBe(false);
        // 256 Mpx is a legal document, but one painted layer and its composite need 2 GB.
        expect((await run('create_document', { width: 16000, height: 16000 })).ok).toBe(false);
        expect((await run('create_document', { width: 10000, height: 10000 })).ok).toBe(true);
        expect((await run('create_layer', { name: '图层' })).ok).toBe(true);
        expect((await run('fill_selection', { color: '#336699' })).ok).toBe(true);
        await run('get_canvas_image', { max_size: 256 });
        await run('duplicate_layer');
        await run('gaussian_blur', { radius: 4 });
        await run('fill_selection', { color: '#993366' });
        await run('resize_image', { width: 14000, height: 14000 });
        await run('resize_canvas', { width: 12000, height: 12000 });
        await run('save_document');
        await run('save_document_as', { path: 'flat.png' });
        await run('merge_visible');
        // Closing drops the document from the session's count. The process gives the pages back in V8's own time
        // (dropped buffers wait for a collection, in every thread that saw them), so the second half is measured
        // from where the process stands now.
        expect((await run('close_document', { save: false })).ok).toBe(true);
        firstPeak = peak;
        rss1 = process.memoryUsage().rss;
        peak = rss1;
        // On a document the budget holds, the same work succeeds.
        for (const [name, args] of [
          ['create_document', { width: 6000, height: 6000 }],
          ['create_layer', { name: '图层' }],
          ['fill_selection', { color: '#336699' }],
          ['select_rect', { left: 1000, top: 1000, right: 3000, bottom: 3000 }],
          ['fill_selection', { color: '#ffcc00' }],
          ['deselect', {}],
          ['gaussian_blur', { radius: 4 }],
          ['save_document', {}],
          ['save_document_as', { path: 'flat.png' }],
        ] as const) {
          expect((await run(name, args)).ok, outcomes.at(-1)).toBe(true);
        }
      } finally {
        clearInterval(sampler);
      }
      console.log(
        `${outcomes.join('\n')}\npeak RSS growth ${((firstPeak - rss0) / MB).toFixed(0)} MB, then ` +
          `${((peak - rss1) / MB).toFixed(0)} MB (budget ${budget / MB} MB)`,
      );
      expect(outcomes.filter((o) => o.includes('out_of_bounds')).length).toBeGreaterThan(5);
      expect(firstPeak - rss0).toBeLessThan(budget);
      expect(peak - rss1).toBeLessThan(budget);
      expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 240_000);
});
