#!/usr/bin/env node
// The `svc-zero` bin: everything lives in cli/run.ts so tests run the same code in-process.
import { processIo, run } from './cli/run.js';

run(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`svc-zero: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
