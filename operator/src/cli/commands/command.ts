import type { Flags, OptionSpecs } from '../args.js';
import type { CliIo } from '../io.js';

/** One `svc-zero <name>` command: its flags, its help, and what it does (resolving to the exit code). */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: OptionSpecs;
  run(flags: Flags, io: CliIo): Promise<number>;
}
