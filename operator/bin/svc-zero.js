#!/usr/bin/env node
// The `svc-zero` command. npm links a bin only if its file exists at `npm install` time, before dist/ is built, so the
// bin names this committed launcher (server/bin/svc-server.js does the same for svc-server).
try {
  await import('../dist/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
  console.error('svc-zero: the operator is not built; run `npm run build` in the repository first.');
  process.exit(1);
}
