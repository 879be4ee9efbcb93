/** What the route modules share: the settings, the session store and the MCP endpoint. */
import type { McpHttpEndpoint } from '../mcp/http.js';
import type { SessionStore } from '../service/sessions.js';
import type { ServerConfig } from './config.js';

export interface AppParts {
  readonly config: ServerConfig;
  readonly store: SessionStore;
  readonly mcp: McpHttpEndpoint;
}
