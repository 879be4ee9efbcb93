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
  resolve: {
    // The font package exports only its JS entry; the OTF files are reached through this alias.
    alias: { '@fonts-sc': here('./node_modules/@embedpdf/fonts-sc/fonts') },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('./dist/web'),
    emptyOutDir: true,
    // The font is served as it is (8 MB, cached for a year once loaded); inlining it would be absurd.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
    reportCompressedSize: false,
  },
});
