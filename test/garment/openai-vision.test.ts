/** The OpenAI-compatible provider against a fake chat-completions server on loopback (never a real API). */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { selectVision } from '../../src/garment/vision.js';
import { garmentDocument, usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';

interface Seen {
  auth: string | undefined;
  body: {
    model: string;
    messages: { role: string; content: unknown }[];
    response_format: unknown;
    max_tokens?: number;
    max_completion_tokens?: number;
  };
}

let server: Server;
let base = '';
const seen: Seen[] = [];
let reply: (body: Seen['body']) => { status: number; text: string } = () => ({ status: 500, text: '' });

async function readBody(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const chunk of req) s += chunk;
  return s;
}

const answer = (content: unknown) => ({
  status: 200,
  text: JSON.stringify({
    choices: [
      {
        message: {
          role: 'assistant',
          content: typeof content === 'string' ? content : JSON.stringify(content),
        },
      },
    ],
  }),
});

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as Seen['body'];
    seen.push({ auth: req.headers.authorization, body });
    const r = req.url === '/v1/chat/completions' ? reply(body) : { status: 404, text: 'no route' };
    res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function configure() {
  process.env.ATELIER_VISION_BASE_URL = base;
  process.env.ATELIER_VISION_MODEL = 'fake-vl';
  process.env.ATELIER_VISION_API_KEY = 'sk-test';
}

afterEach(() => {
  delete process.env.ATELIER_VISION_BASE_URL;
  delete process.env.ATELIER_VISION_MODEL;
  delete process.env.ATELIER_VISION_API_KEY;
  seen.length = 0;
});

function images(body: Seen['body']): string[] {
  const user = body.messages.find((m) => m.role === 'user')!;
  return (user.content as { type: string; image_url?: { url: string } }[])
    .filter((c) => c.type === 'image_url')
    .map((c) => c.image_url!.url);
}

describe('OpenAI-compatible vision provider', () => {
  it('is used only when configured', () => {
    expect(selectVision({}).name).toBe('builtin');
    expect(selectVision({ ATELIER_VISION_BASE_URL: base }).name).toBe('builtin');
    expect(selectVision({ ATELIER_VISION_BASE_URL: base, ATELIER_VISION_MODEL: 'm' }).name).toBe('openai');
  });

  it('identify_pieces sends one request with the marked pieces and takes validated parts', async () => {
    const alone = newSession();
    await garmentDocument(alone, 'none');
    const builtin = (await ok(alone, 'identify_pieces')).pieces as { name: string; part: string }[];
    configure();
    const session = newSession();
    await garmentDocument(session, 'none');
    reply = () =>
      answer({
        pieces: [
          { layer: '图层 3', part: 'front', confidence: 0.9, reason: 'deep neckline' },
          { layer: '图层 1', part: 'back', confidence: 0.9 },
          { layer: '图层 4', part: 'waistband', confidence: 0.8, reason: 'long band' },
        ],
      });
    const r = await ok(session, 'identify_pieces');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.auth).toBe('Bearer sk-test');
    expect(seen[0]!.body.model).toBe('fake-vl');
    expect(seen[0]!.body.response_format).toEqual({ type: 'json_object' });
    // An output limit sized by the five pieces' entries (a loopback service takes `max_tokens`).
    expect(seen[0]!.body.max_tokens).toBe(400 + 120 * 5);
    expect(seen[0]!.body.max_completion_tokens).toBeUndefined();
    const urls = images(seen[0]!.body);
    expect(urls).toHaveLength(1);
    expect(urls[0]).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(urls[0]!.split(',')[1]!, 'base64');
    expect((await sharp(png).metadata()).format).toBe('png');
    expect(r.provider).toBe('openai');
    const pieces = r.pieces as {
      name: string;
      part: string;
      decided_by: string;
      alternatives?: { part: string }[];
    }[];
    const collar = builtin.find((p) => p.name === '图层 4')!.part;
    expect(collar).not.toBe('waistband');
    expect(pieces.find((p) => p.name === '图层 4')).toMatchObject({
      part: 'waistband',
      decided_by: 'vision',
    });
    // The two readings disagree, so the designer is asked: the shape model's part is offered instead, and the
    // part the vision model chose is never offered as its own alternative.
    const overridden = pieces.find((p) => p.name === '图层 4')!;
    expect(overridden.alternatives?.[0]?.part).toBe(collar);
    expect(overridden.alternatives!.map((a) => a.part)).not.toContain('waistband');
    expect(r.needs_confirmation).toBe(true);
    expect(r.ask_order).toContain('图层 4');
    // Layers the model left out keep the builtin answer.
    for (const left of ['图层 2', '图层 5']) {
      const own = pieces.find((p) => p.name === left)!;
      expect(own.decided_by).not.toBe('vision');
      expect(own.part).toBe(builtin.find((p) => p.name === left)!.part);
    }
  });

  it('does not let the model change a part the user confirmed', async () => {
    configure();
    const session = newSession();
    await garmentDocument(session, 'none');
    // The model calls the collar a waistband, every time it is asked.
    reply = () => answer({ pieces: [{ layer: '图层 4', part: 'waistband', confidence: 0.9 }] });
    await ok(session, 'identify_pieces');
    const r = await ok(session, 'confirm_piece_parts', { pieces: [{ name: '图层 4', part: 'collar' }] });
    expect(seen).toHaveLength(2);
    const pieces = r.pieces as { name: string; part: string; decided_by: string }[];
    expect(pieces.find((p) => p.name === '图层 4')).toMatchObject({ part: 'collar', decided_by: 'user' });
  });

  it('falls back to the builtin analysis with a warning when the model is unreachable or answers nonsense', async () => {
    const session = newSession();
    await garmentDocument(session, 'none');
    const builtin = await ok(session, 'identify_pieces');
    expect(builtin.provider).toBe('builtin');
    const parts = (r: Record<string, unknown>) =>
      (r.pieces as { name: string; part: string }[]).map((p) => `${p.name}=${p.part}`);
    configure();
    const cases: [() => { status: number; text: string }, RegExp][] = [
      [() => answer('not json at all'), /内容不是 JSON/],
      [() => answer({ pieces: [{ layer: '图层 1', part: 'shoulder' }] }), /部位 "shoulder" 无效/],
      [() => answer({ pieces: [{ layer: 'nope', part: 'front' }] }), /未知的图层 "nope"/],
      [() => ({ status: 500, text: 'boom' }), /HTTP 500/],
      [() => ({ status: 200, text: '{"choices":[]}' }), /缺少 choices/],
      [
        () => ({ status: 400, text: '{"error":{"message":"this model does not support image input"}}' }),
        /不接受图像输入/,
      ],
      // Cut at the output limit: the JSON is unfinished, and the warning says why rather than "not JSON".
      [
        () => ({
          status: 200,
          text: JSON.stringify({
            choices: [{ message: { content: '{"pieces":[{"layer":"图层 1"' }, finish_reason: 'length' }],
          }),
        }),
        /输出上限，被截断/,
      ],
      // A server that ignores the limit and sends megabytes: refused without holding it all.
      [() => answer({ pieces: [], padding: 'x'.repeat(5 * 1024 * 1024) }), /响应超过 4 MB/],
    ];
    for (const [bad, why] of cases) {
      reply = bad;
      seen.length = 0;
      const r = await ok(session, 'identify_pieces');
      expect(seen).toHaveLength(1);
      expect(r.provider).toBe('builtin');
      expect(parts(r)).toEqual(parts(builtin));
      const warnings = r.warnings as string[];
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^视觉模型不可用，已改用内置分析：/);
      expect(warnings[0]).toMatch(why);
      expect(session.garment.analysis?.provider).toBe('builtin');
    }
    process.env.ATELIER_VISION_BASE_URL = 'http://127.0.0.1:1/v1';
    const down = await ok(session, 'identify_pieces');
    expect(down.provider).toBe('builtin');
    expect(parts(down)).toEqual(parts(builtin));
    expect((down.warnings as string[])[0]).toMatch(/无法连接视觉模型服务 http:\/\/127\.0\.0\.1:1\/v1/);
  });

  it('verify_pattern_result sends photo and canvas in one request and blends the validated score', async () => {
    const session = newSession();
    await garmentDocument(session, 'zh');
    await usePhoto(session, 'fill');
    await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
    configure();
    reply = () => answer({ score: 6, suggestions: ['领口处花样略有偏移'] });
    const v = await ok(session, 'verify_pattern_result');
    expect(seen).toHaveLength(1);
    expect(images(seen[0]!.body)).toHaveLength(2);
    expect(v.provider).toBe('openai');
    expect(v.model_score).toBe(6);
    expect(v.score).toBe(((v.measured_score as number) + 6) / 2);
    expect(v.suggestions).toContain('领口处花样略有偏移');
    for (const nonsense of [{ score: 42, suggestions: [] }, { score: 7, suggestions: 'fine' }, 'great job']) {
      reply = () => answer(nonsense);
      const fallback = await ok(session, 'verify_pattern_result');
      expect(fallback.provider).toBe('builtin');
      expect(fallback.model_score).toBeUndefined();
      expect(fallback.score).toBe(v.measured_score);
      expect((fallback.warnings as string[])[0]).toMatch(
        /^视觉模型不可用，已改用内置分析：视觉模型的回答无效/,
      );
    }
  });
});
