import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}
export type OptionSpecs = Record<string, OptionSpec>;

/** Options every command takes. */
export const GLOBAL_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} satisfies OptionSpecs;

/** Parsed flags of one command: typed accessors that say which flag is wrong. */
export class Flags {
  constructor(
    private readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>,
    readonly command: string,
  ) {}

  string(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  /** A required string; `fallback` (an environment variable) is used when the flag is absent. */
  required(name: string, what: string, fallback?: string): string {
    const value = this.string(name) ?? fallback;
    if (value === undefined || value.trim() === '')
      throw new UsageError(`missing --${name}=<${what}> (see svc-zero ${this.command} --help)`);
    return value;
  }

  list(name: string): string[] {
    const value = this.values[name];
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  }

  boolean(name: string): boolean {
    return this.values[name] === true;
  }
}

/**
 * The command word: the first argument that is neither a flag nor the value of a global flag given as `--kubeconfig
 * PATH`, so global flags may come before or after it.
 */
export function commandOf(argv: readonly string[]): { command: string | undefined; rest: string[] } {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if ((arg === '--kubeconfig' || arg === '--context') && index + 1 < argv.length) index++;
      continue;
    }
    return { command: arg, rest: [...argv.slice(0, index), ...argv.slice(index + 1)] };
  }
  return { command: undefined, rest: [...argv] };
}

/** Strict parsing: unknown flags, stray arguments and missing values are usage errors naming the flag. */
export function parseFlags(command: string, argv: readonly string[], options: OptionSpecs): Flags {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { ...GLOBAL_OPTIONS, ...options },
      strict: true,
      allowPositionals: false,
    });
    return new Flags(values, command);
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (!code.startsWith('ERR_PARSE_ARGS')) throw error;
    const message = (error as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message);
    if (unknown)
      throw new UsageError(`unknown option ${unknown[1]} for svc-zero ${command} (see svc-zero ${command} --help)`);
    const positional = /Unexpected argument '([^']+)'/.exec(message);
    if (positional)
      throw new UsageError(
        `unexpected argument "${positional[1]}" for svc-zero ${command} (flags take the form --name=value)`,
      );
    throw new UsageError(`${message.split('.')[0]} (see svc-zero ${command} --help)`);
  }
}
