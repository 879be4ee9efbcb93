/** Every tool handler, by tool name: the table is total, so a registry tool without a handler does not compile. */
import { adjustmentsHandlers } from './adjustments.js';
import { arrangeHandlers } from './arrange.js';
import { basicsHandlers } from './basics.js';
import { colorHandlers } from './color.js';
import { documentsHandlers } from './documents.js';
import { effectsHandlers } from './effects.js';
import { filesHandlers } from './files.js';
import { garmentHandlers } from './garment.js';
import { groupingHandlers } from './grouping.js';
import { layerPropsHandlers } from './layer-props.js';
import { masksHandlers } from './masks.js';
import { selectionHandlers } from './selection.js';
import { splitHandlers } from './split.js';
import { textHandlers } from './text.js';
import type { HandlerTable } from './types.js';

export const handlers: HandlerTable = {
  ...adjustmentsHandlers,
  ...arrangeHandlers,
  ...basicsHandlers,
  ...colorHandlers,
  ...documentsHandlers,
  ...effectsHandlers,
  ...filesHandlers,
  ...garmentHandlers,
  ...groupingHandlers,
  ...layerPropsHandlers,
  ...masksHandlers,
  ...selectionHandlers,
  ...splitHandlers,
  ...textHandlers,
};
