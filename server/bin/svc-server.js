#!/usr/bin/env node
// The `svc-server` command. npm links a workspace's bin into node_modules/.bin at `npm install` time, and only when
// the file the bin names exists then; dist/ is built later (`npm start`, `npm run build`). So the bin names this
// committed file, which is always there, and it runs the build or says how to make it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error(
    `svc-server: the server is not built (${fileURLToPath(cli)} is missing).\n` +
      'Run `npm run build` (or `npm start`, which builds and starts it) in the repository first.',
  );
  process.exit(1);
}
await import(cli.href);
