/**
 * Requests the MCP SDK would drop without an answer. Its transports validate each message against the
 * JSON-RPC schema and, when that fails (`"params": null`, a missing `method`), report the error to the server
 * and send nothing back, so the client waits forever. A request that carries an id always gets an answer:
 * these checks answer it with a JSON-RPC error before the SDK sees it.
 */
import { type JSONRPCError, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
export const PARSE_ERROR = -32700;

export function rpcError(id: string | number | null, code: number, message: string): JSONRPCError {
  return { jsonrpc: '2.0', id: id as string | number, error: { code, message } };
}

function requestId(m: Record<string, unknown>): string | number | null {
  const id = m.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** The id of a request (a message with a method and an id); null for a notification, a response or a batch. */
function idOfRequest(message: unknown): string | number | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const m = message as Record<string, unknown>;
  return 'result' in m || 'error' in m ? null : requestId(m);
}

/**
 * The error answer for a request of `bytes` bytes, beyond what the transport takes (`max`); null for any other
 * message (a notification, a response, a batch), which nobody waits on an answer to: see `droppedMessage`.
 */
export function oversizedRequest(message: unknown, bytes: number, max: number): JSONRPCError | null {
  const id = idOfRequest(message);
  if (id === null) return null;
  return rpcError(id, INVALID_REQUEST, `Invalid Request: the message is ${mib(bytes)}; at most ${mib(max)}`);
}

/**
 * The log line for an oversized message that cannot be answered (JSON-RPC answers no notification or response),
 * so that it is not dropped without a trace: what it was, and its size.
 */
export function droppedMessage(message: unknown, bytes: number, max: number): string {
  const m = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  const what = Array.isArray(message)
    ? `a batch of ${message.length} message${message.length === 1 ? '' : 's'}`
    : typeof m.method === 'string'
      ? `the notification ${JSON.stringify(m.method.slice(0, 100))}`
      : 'result' in m || 'error' in m
        ? `the response to request ${String(JSON.stringify(m.id)).slice(0, 100)}`
        : 'a message';
  return `atelier: mcp: dropped ${what}: it is ${mib(bytes)}, at most ${mib(max)} per message`;
}

/** The error answer for a malformed request that has an id; null for anything the SDK can take. */
export function malformedRequest(message: unknown): JSONRPCError | null {
  if (typeof message !== 'object' || message === null) {
    return rpcError(null, INVALID_REQUEST, 'Invalid Request: a JSON-RPC message is an object');
  }
  if (Array.isArray(message)) return null;
  const m = message as Record<string, unknown>;
  const id = requestId(m);
  // Notifications and responses have no one waiting for an answer.
  if (id === null || 'result' in m || 'error' in m) return null;
  if (m.jsonrpc !== '2.0') return rpcError(id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"');
  if (typeof m.method !== 'string') {
    return rpcError(id, INVALID_REQUEST, 'Invalid Request: "method" must be a string');
  }
  if (
    m.params !== undefined &&
    (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))
  ) {
    return rpcError(id, INVALID_PARAMS, `Invalid params: "params" of ${m.method} must be an object`);
  }
  // tools/call's own params: the SDK answers a wrong shape with -32603 and a raw schema dump.
  if (m.method === 'tools/call') {
    const p = (m.params ?? {}) as Record<string, unknown>;
    if (typeof p.name !== 'string' || p.name === '') {
      return rpcError(
        id,
        INVALID_PARAMS,
        'Invalid params: tools/call needs "name", the tool\'s name (a string)',
      );
    }
    const args = p.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return rpcError(
        id,
        INVALID_PARAMS,
        `Invalid params: "arguments" of tools/call must be an object${typeof args === 'string' ? ' (not a JSON string: send the object itself)' : ''}`,
      );
    }
  }
  const parsed = JSONRPCMessageSchema.safeParse(message);
  if (!parsed.success) {
    return rpcError(id, INVALID_REQUEST, `Invalid Request: ${parsed.error.message.slice(0, 500)}`);
  }
  return null;
}
