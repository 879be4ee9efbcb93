/**
 * The studio's build: `src/web` → `dist/web`, served by the HTTP app at `/`. Everything it needs at run time
 * (scripts, styles, the Chinese font) is bundled, so the studio works offline.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('./src/web'),
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('./dist/web'),
    emptyOutDir: true,
    // The font's slices are served as files (fetched only when their characters are shown, cached for a year).
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
    reportCompressedSize: false,
  },
});
