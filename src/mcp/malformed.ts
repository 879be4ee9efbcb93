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

/**
 * The error answer for a request of `bytes` bytes, beyond what the transport takes (`max`); null for a message
 * without an id, which nobody waits on.
 */
export function oversizedRequest(message: unknown, bytes: number, max: number): JSONRPCError | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const id = requestId(message as Record<string, unknown>);
  if (id === null) return null;
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
  return rpcError(id, INVALID_REQUEST, `Invalid Request: the message is ${mib(bytes)}; at most ${mib(max)}`);
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
