/** What a user turn reports as it runs: the studio's SSE events and `atelier chat`'s lines, one object each. */
import type { ImageOut } from '../tools/types.js';
import type { ChatEventOf } from './event-shapes.js';

export type { ChatErrorCode } from './event-shapes.js';

/** As the loop emits them: result images with their data (a surface maps them to URLs or files). */
export type ChatEvent = ChatEventOf<ImageOut>;
