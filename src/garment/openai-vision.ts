/**
 * An OpenAI-compatible vision provider over plain fetch (`POST {base}/chat/completions`, images as data URLs,
 * `response_format: json_object`, an output limit sized by what the answer must hold). One request per tool call.
 * The answer is validated; anything else —
 * network failure, HTTP error, non-JSON, wrong shape — is an `io_error` (or `unsupported` when the server refuses
 * image input), never a guess; the tools then fall back to the builtin analysis with a warning (vision.ts).
 */
import { EditorError } from '../engine/errors.js';
import type { ImageOut } from '../engine/io/image-codec.js';
import { outputLimitField } from '../engine/io/openai-output-limit.js';
import sharp from '../engine/sharp.js';
import { classifyPieces } from './builtin/pieces.js';
import { PART_LABELS, PARTS, type Part, type PieceInfo } from './types.js';
import type { IdentifyInput, VerifyInput, VerifyOpinion, Vision } from './vision.js';

export interface OpenAIVisionOptions {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string | null;
  readonly timeoutMs: number;
}

type Content =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail: 'high' } };

function imagePart(img: ImageOut): Content {
  return { type: 'image_url', image_url: { url: `data:${img.mime};base64,${img.base64}`, detail: 'high' } };
}

/**
 * The answer's length is asked for by what it must hold (a piece's entry is a layer name, a part, a confidence and a
 * one-line reason: well under 120 tokens), so a model that rambles stops at the service instead of running for
 * minutes; and a body past MAX_BODY_BYTES (a server that ignores the limit) is refused unread, never held whole.
 */
const TOKENS_PER_PIECE = 120;
const TOKENS_BASE = 400;
const REVIEW_TOKENS = 1500;
const PROBE_TOKENS = 50;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The body as text, or null when it grows past `max` bytes (the rest is not read). */
async function boundedText(res: Response, max: number): Promise<string | null> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let n = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function bad(message: string): never {
  throw new EditorError('io_error', `视觉模型的回答无效：${message}`, {
    hint: '检查 ATELIER_VISION_MODEL 是否支持图像输入和 JSON 输出；取消 ATELIER_VISION_BASE_URL 可改用内置分析',
  });
}

export class OpenAIVision implements Vision {
  readonly name = 'openai' as const;
  constructor(private readonly opts: OpenAIVisionOptions) {}

  /** One chat-completions request; returns the parsed JSON object of the answer. */
  async ask(system: string, content: Content[], maxTokens: number): Promise<Record<string, unknown>> {
    const url = `${this.opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.opts.model,
          temperature: 0,
          ...outputLimitField(this.opts.baseUrl, maxTokens),
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: system },
            { role: 'user', content },
          ],
        }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      throw new EditorError(
        'io_error',
        `无法连接视觉模型服务 ${url}：${err instanceof Error ? err.message : String(err)}`,
        {
          hint: '检查 ATELIER_VISION_BASE_URL；取消该变量可改用内置分析',
        },
      );
    }
    const read = await boundedText(res, MAX_BODY_BYTES).catch(() => '');
    if (read === null) bad(`响应超过 ${MAX_BODY_BYTES / 1024 / 1024} MB，已中止读取`);
    const text = read;
    if (!res.ok) {
      const snippet = text.slice(0, 300);
      if (res.status === 400 && /image|vision|multimodal/i.test(snippet)) {
        throw new EditorError(
          'unsupported',
          `视觉模型“${this.opts.model}”不接受图像输入（HTTP 400）：${snippet}`,
          {
            hint: '在 ATELIER_VISION_MODEL 中配置支持图像的模型',
          },
        );
      }
      throw new EditorError('io_error', `视觉模型服务返回 HTTP ${res.status}：${snippet}`, {
        ...(res.status === 401 || res.status === 403 ? { hint: '检查 ATELIER_VISION_API_KEY' } : {}),
        details: { status: res.status },
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      bad('响应不是 JSON');
    }
    const choice = (body as { choices?: { message?: { content?: unknown }; finish_reason?: unknown }[] })
      .choices?.[0];
    const message = choice?.message?.content;
    if (choice?.finish_reason === 'length') bad(`回答超过了 ${maxTokens} 个 token 的输出上限，被截断`);
    if (typeof message !== 'string') bad('缺少 choices[0].message.content');
    const json = message
      .trim()
      .replace(/^```(?:json)?\s*/i, '')
      .replace(/\s*```$/, '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      bad(`内容不是 JSON：${message.slice(0, 120)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) bad('内容不是 JSON 对象');
    return parsed as Record<string, unknown>;
  }

  /**
   * The doctor's check: one tiny request of the same kind the tools send (an image, a JSON object asked for),
   * whose answer must be {"colour": "red"} for a red square — so a server that answers, but not what was asked
   * (plain text, another shape, a model that cannot see), is told apart from one that works.
   */
  async probe(): Promise<string> {
    const red = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    const answer = await this.ask(
      'You name the colour of an image. Answer with a JSON object {"colour": string} using one lower-case English colour word.',
      [
        { type: 'text', text: 'What colour is this square?' },
        imagePart({ mime: 'image/png', base64: red.toString('base64') }),
      ],
      PROBE_TOKENS,
    );
    const colour = answer.colour ?? answer.color;
    if (typeof colour !== 'string') bad(`探测请求的回答缺少 colour：${JSON.stringify(answer).slice(0, 120)}`);
    if (!/\bred\b/i.test(colour))
      bad(`一个红色方块被回答为“${colour.slice(0, 40)}”：模型看不到图像或答非所问`);
    return colour;
  }

  async identify(input: IdentifyInput): Promise<PieceInfo[]> {
    const base = classifyPieces(input.shapes, undefined, input.confirmed);
    const names = new Set(base.map((p) => p.name));
    const facts = input.shapes.map((s, i) => ({
      number: i + 1,
      layer: s.name,
      bounds: s.bounds,
      area: s.area,
      symmetry: s.symmetry,
      neckline_depth: s.neckDepth,
    }));
    const answer = await this.ask(
      `You identify garment cut pieces. Parts: ${PARTS.map((p) => `${p} (${PART_LABELS[p]})`).join(', ')}. ` +
        'Answer with a JSON object {"pieces":[{"layer":string,"part":string,"confidence":number 0..1,"reason":string}]} with one entry per layer.',
      [
        { type: 'text', text: `Layers (numbered in the image):\n${JSON.stringify(facts)}` },
        imagePart(await input.marks()),
      ],
      TOKENS_BASE + TOKENS_PER_PIECE * input.shapes.length,
    );
    const list = answer.pieces;
    if (!Array.isArray(list)) bad('缺少 pieces 数组');
    const byName = new Map<string, { part: Part; confidence: number; reason: string }>();
    for (const e of list as unknown[]) {
      const o = e as { layer?: unknown; part?: unknown; confidence?: unknown; reason?: unknown };
      if (typeof o.layer !== 'string' || !names.has(o.layer)) bad(`未知的图层 ${JSON.stringify(o.layer)}`);
      if (typeof o.part !== 'string' || !(PARTS as readonly string[]).includes(o.part))
        bad(`图层“${o.layer}”的部位 ${JSON.stringify(o.part)} 无效`);
      const confidence =
        typeof o.confidence === 'number' && o.confidence >= 0 && o.confidence <= 1 ? o.confidence : 0.7;
      byName.set(o.layer, {
        part: o.part as Part,
        confidence,
        reason: typeof o.reason === 'string' ? o.reason : '',
      });
    }
    return base.map((p) => {
      const v = byName.get(p.name);
      // What the user confirmed is not the model's to change.
      if (p.decidedBy === 'user') return p;
      if (!v || v.part === p.part) return v ? { ...p, confidence: Math.max(p.confidence, v.confidence) } : p;
      // The two readings disagree: the shape model's part is what the piece may be instead, then its own
      // alternative when that is yet another part (never the part the vision model chose).
      const next = p.doubt && p.doubt.part !== v.part ? p.doubt : p.doubt?.next;
      return {
        ...p,
        part: v.part,
        confidence: v.confidence,
        decidedBy: 'vision',
        reason: `视觉模型：${v.reason}`,
        doubt: {
          part: p.part,
          confidence: p.confidence,
          ...(next && next.part !== v.part ? { next: { part: next.part, confidence: next.confidence } } : {}),
        },
      };
    });
  }

  async review(input: VerifyInput): Promise<VerifyOpinion> {
    const answer = await this.ask(
      'You judge how well a print was applied to garment cut pieces compared with the original garment photo. ' +
        'Answer with a JSON object {"score": number 1..10, "suggestions": [string in Chinese]}.',
      [
        {
          type: 'text',
          text: `Image 1: the original garment photo. Image 2: the document with the print applied. Measured evidence: ${JSON.stringify(
            input.measures.map((m) => ({ measure: m.key, score: m.score, value: m.value })),
          )}`,
        },
        imagePart(await input.photo()),
        imagePart(await input.canvas()),
      ],
      REVIEW_TOKENS,
    );
    const score = answer.score;
    if (typeof score !== 'number' || !Number.isFinite(score) || score < 1 || score > 10)
      bad(`score ${JSON.stringify(score)} 不在 1 到 10 之间`);
    const suggestions = answer.suggestions;
    if (!Array.isArray(suggestions) || !suggestions.every((s) => typeof s === 'string'))
      bad('suggestions 必须是字符串数组');
    return { score, suggestions: suggestions as string[] };
  }
}
