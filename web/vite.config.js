// Vite builds web/ into build/www (mk/web.mk passes --outDir): index.html
// plus content-hashed files under assets/, which the gateway caches for a
// year.  No inline script or style is emitted, so the gateway's
// Content-Security-Policy can forbid them.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    assetsDir: 'assets',
    target: 'es2020',
    sourcemap: false,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
  },
});
