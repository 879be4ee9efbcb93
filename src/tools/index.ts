/** Every tool handler, by tool name. A tool without a handler answers `unsupported`. */
import { basicsHandlers } from './basics.js';
import { documentsHandlers } from './documents.js';
import { filesHandlers } from './files.js';
import { groupingHandlers } from './grouping.js';
import { layerPropsHandlers } from './layer-props.js';
import type { HandlerTable } from './types.js';

export const handlers: HandlerTable = {
  ...basicsHandlers,
  ...documentsHandlers,
  ...filesHandlers,
  ...groupingHandlers,
  ...layerPropsHandlers,
};
