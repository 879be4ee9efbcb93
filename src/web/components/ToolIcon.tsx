/** The canvas toolbox's pictures, drawn small after Photoshop's own; the options bar shows some of them too. */
import type { SelectionOptions } from './selection-options.js';

export type CanvasTool =
  | 'move'
  | 'marquee'
  | 'lasso'
  | 'wand'
  | 'crop'
  | 'eyedropper'
  | 'brush'
  | 'gradient'
  | 'text';

/** Which marquee and lasso a picture shows (the other options do not change a picture). */
type Shown = Pick<SelectionOptions, 'shape' | 'lasso'>;

/** Photoshop's pictures of its Move, Marquee, Lasso, Magic Wand, Crop, Eyedropper, Brush, Gradient and Type tools. */
export function ToolIcon({ tool, options }: { tool: CanvasTool; options: Shown }) {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      {tool === 'move' ? (
        <path d="M3 2l9 5.5-4 .9 2.6 4.6-1.7 1-2.6-4.6L3 12z" fill="currentColor" />
      ) : tool === 'marquee' && options.shape === 'ellipse' ? (
        <ellipse
          cx="8"
          cy="8"
          rx="6"
          ry="4.8"
          fill="none"
          stroke="currentColor"
          stroke-width="1.2"
          stroke-dasharray="2 1.6"
        />
      ) : tool === 'lasso' ? (
        options.lasso === 'polygon' ? (
          <path
            d="M2.5 6.5L7 2.5l6.5 3-1.5 5.5-6 1.5z"
            fill="none"
            stroke="currentColor"
            stroke-width="1.2"
            stroke-linejoin="round"
          />
        ) : (
          <path
            d="M5.5 11.5C2 10.5 1.5 6 4.5 4s8-2 9 1.5-3 6-6.5 5.5c-1.5 1.5-1 3 .5 3.5"
            fill="none"
            stroke="currentColor"
            stroke-width="1.2"
            stroke-linecap="round"
          />
        )
      ) : tool === 'wand' ? (
        <path
          d="M2 14l7.5-7.5M11 1.5v2.5M11 7.5v2M7 5.5h2M13 5.5h2M8.5 2.5l1.2 1.2M13.5 2.5l-1.2 1.2M13.5 8.5l-1.2-1.2"
          fill="none"
          stroke="currentColor"
          stroke-width="1.3"
          stroke-linecap="round"
        />
      ) : tool === 'crop' ? (
        <path d="M4 1v11h11M1 4h11v11" fill="none" stroke="currentColor" stroke-width="1.5" />
      ) : tool === 'eyedropper' ? (
        <path
          d="M11.5 1.5l3 3-2 2-.8-.8-6.4 6.4-2.6.9-1 1-.7-.7 1-1 .9-2.6 6.4-6.4-.8-.8z"
          fill="none"
          stroke="currentColor"
          stroke-width="1.2"
          stroke-linejoin="round"
        />
      ) : tool === 'brush' ? (
        <path
          d="M14 2.2c.4.4.2 1-.3 1.5L8.4 9.2 6.8 7.6l5.5-5.3c.5-.5 1.2-.6 1.7-.1zM6 8.5l1.5 1.5c-.3 1.8-1.5 3.5-4.5 3.8.9-.8.8-1.8 1-2.8.2-1.2.9-2.3 2-2.5z"
          fill="currentColor"
        />
      ) : tool === 'gradient' ? (
        <>
          <defs>
            <linearGradient id="tool-gradient-fill">
              <stop offset="0" stop-color="currentColor" />
              <stop offset="1" stop-color="currentColor" stop-opacity="0" />
            </linearGradient>
          </defs>
          <rect x="2" y="3" width="12" height="10" fill="url(#tool-gradient-fill)" />
          <rect x="2" y="3" width="12" height="10" fill="none" stroke="currentColor" stroke-width="1" />
        </>
      ) : tool === 'text' ? (
        <path
          d="M3 3h10v2.5h-1.2l-.4-1.3H8.7V12l1.4.4V13H5.9v-.6l1.4-.4V4.2H4.6l-.4 1.3H3z"
          fill="currentColor"
        />
      ) : (
        <rect
          x="2.5"
          y="3.5"
          width="11"
          height="9"
          fill="none"
          stroke="currentColor"
          stroke-width="1.2"
          stroke-dasharray="2 1.6"
        />
      )}
    </svg>
  );
}
