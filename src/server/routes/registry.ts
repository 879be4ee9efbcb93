/** The registry as the API publishes it: every format of `atelier tools`, the label map, and the health check. */
import { Hono } from 'hono';
import { exportTools, type Format, formats, strictFormats } from '../../registry/formats/index.js';
import { labelsOf, toolsOf, type Variant, variants } from '../../registry/index.js';
import { VERSION } from '../../service/version.js';
import { HttpError } from '../errors.js';
import { booleanOf, oneOf } from '../request.js';

export function registryRoutes(): Hono {
  const app = new Hono();

  app.get('/v1/health', (c) => c.json({ status: 'ok', version: VERSION }));

  app.get('/v1/tools', (c) => {
    const variant: Variant = oneOf('variant', c.req.query('variant'), variants, 'full');
    const format: Format = oneOf('format', c.req.query('format'), formats, 'openai');
    const strict = booleanOf('strict', c.req.query('strict'));
    if (strict && !strictFormats.includes(format)) {
      throw new HttpError(400, 'bad_request', `strict 只用于 format ${strictFormats.join(' 或 ')}`, {
        allowed: strictFormats,
      });
    }
    return c.json(exportTools(toolsOf(variant), format, { strict }) as object);
  });

  app.get('/v1/labels', (c) => c.json(labelsOf(oneOf('variant', c.req.query('variant'), variants, 'full'))));

  return app;
}
