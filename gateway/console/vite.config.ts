import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console, served by the gateway at /app (gateway/src/console.ts): hashed asset names under
 * /app/assets/ (cached for a year), index.html not cached. `npm run dev -w @helpdesk/console` serves it
 * with hot reload and the API of a platform started with `npm start` on :8080.
 */
export default defineConfig({
  base: '/app/',
  plugins: [react()],
  build: {
    target: 'es2022',
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
