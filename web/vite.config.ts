/**
 * The dashboard build: `web/` is the Vite root, the output goes to `web/dist/` (served by
 * `mountUi` in src/api/ui.ts). Hashed file names under `assets/` let the server cache them for a
 * year; uPlot gets its own chunk so an app change does not re-download it.
 */
import { defineConfig } from 'vite';

// The folder of this file, whatever the working directory (no node types needed).
const root = decodeURIComponent(new URL('.', import.meta.url).pathname);

export default defineConfig({
  root,
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 300,
    rollupOptions: {
      output: {
        manualChunks: (id: string) => (id.includes('node_modules/uplot') ? 'uplot' : undefined),
      },
    },
  },
  server: {
    // `npx vite --config web/vite.config.ts` against `inferlens serve` on :7070.
    proxy: { '/v1': 'http://127.0.0.1:7070' },
  },
});
