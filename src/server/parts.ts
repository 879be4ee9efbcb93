/** What the route modules share: the settings, the session store, the MCP endpoint and the chat rooms. */
import type { McpHttpEndpoint } from '../mcp/http.js';
import type { SessionStore } from '../service/sessions.js';
import type { ChatRooms } from './chat-rooms.js';
import type { ServerConfig } from './config.js';

export interface AppParts {
  readonly config: ServerConfig;
  readonly store: SessionStore;
  readonly mcp: McpHttpEndpoint;
  readonly chat: ChatRooms;
}
