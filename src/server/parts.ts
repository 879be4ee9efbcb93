/**
 * What the route modules share: the settings, the session store, the MCP endpoint, the chat rooms and the
 * sessions' event streams to their other tabs.
 */
import type { McpHttpEndpoint } from '../mcp/http.js';
import type { SessionStore } from '../service/sessions.js';
import type { ChatRooms } from './chat-rooms.js';
import type { ServerConfig } from './config.js';
import type { SessionEvents } from './session-events.js';

export interface AppParts {
  readonly config: ServerConfig;
  readonly store: SessionStore;
  readonly mcp: McpHttpEndpoint;
  readonly chat: ChatRooms;
  readonly events: SessionEvents;
}
