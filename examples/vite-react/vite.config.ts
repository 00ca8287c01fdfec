import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { echoApi } from './echo-api.ts';

export default defineConfig({
  plugins: [react(), echoApi()],
});
