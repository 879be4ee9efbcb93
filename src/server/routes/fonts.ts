/** The fonts text can be set in (create_text_layer's and set_text_font's font_name): the type tool's choice. */
import { Hono } from 'hono';
import { availableFonts, BUNDLED_FAMILIES, BUNDLED_FONT } from '../../engine/text.js';

export function fontRoutes(): Hono {
  const app = new Hono();
  // The bundled font's weights first (they hold every CJK glyph), then the machine's own, by name.
  app.get('/v1/fonts', (c) => {
    const others = availableFonts().filter((f) => !BUNDLED_FAMILIES.includes(f));
    return c.json({ default: BUNDLED_FONT, fonts: [...BUNDLED_FAMILIES, ...others] });
  });
  return app;
}
