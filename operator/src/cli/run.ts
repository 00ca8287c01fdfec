import { ZERO_VERSION } from '../manifests/index.js';
import { commandOf, parseFlags } from './args.js';
import type { Command } from './commands/command.js';
import { installCommand } from './commands/install.js';
import { instrumentCommand } from './commands/instrument.js';
import { statusCommand } from './commands/status.js';
import { uninstrumentCommand } from './commands/uninstrument.js';
import { CliError, UsageError } from './errors.js';
import type { CliIo } from './io.js';

export { processIo, type CliIo } from './io.js';

const COMMANDS: readonly Command[] = [instrumentCommand, uninstrumentCommand, statusCommand, installCommand];

const USAGE = `svc-zero ${ZERO_VERSION}: cluster auto-instrumentation for svc (operator, admission webhook, agents)

Usage: svc-zero <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(14)}${command.summary}`).join('\n')}

Global options:
  --kubeconfig=<path>   kubeconfig file (default: KUBECONFIG, then ~/.kube/config, then the pod's service account)
  --context=<name>      kubeconfig context (default: its current context)
  -h, --help            help (svc-zero <command> --help for a command's options)
  --version             print the version

Exit codes: 0 done, 1 failed (the message says why), 2 bad usage.
Guide: docs/zero.md`;

/**
 * The whole CLI as a function: parses `argv` (without node and the script), runs the command, writes through `io`, and
 * resolves to the exit code. Failures are printed as one message, never as a stack trace.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { command: name, rest } = commandOf(argv);
    if (name === undefined || name === 'help') {
      const topic = name === 'help' ? commandOf(rest).command : undefined;
      if (rest.includes('--version')) {
        io.out(`svc-zero ${ZERO_VERSION}`);
        return 0;
      }
      const command = topic === undefined ? undefined : COMMANDS.find((candidate) => candidate.name === topic);
      if (command) {
        io.out(command.usage);
        return 0;
      }
      if (name === 'help' || rest.includes('--help') || rest.includes('-h')) {
        io.out(USAGE);
        return 0;
      }
      io.err(USAGE);
      return 2;
    }
    const command = COMMANDS.find((candidate) => candidate.name === name);
    if (!command)
      throw new UsageError(
        `unknown command "${name}"; commands: ${COMMANDS.map((candidate) => candidate.name).join(', ')} (svc-zero --help)`,
      );
    const flags = parseFlags(command.name, rest, command.options);
    if (flags.boolean('help')) {
      io.out(command.usage);
      return 0;
    }
    if (flags.boolean('version')) {
      io.out(`svc-zero ${ZERO_VERSION}`);
      return 0;
    }
    return await command.run(flags, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`svc-zero: ${error.message}`);
      return error.exitCode;
    }
    // A bug, not a user error: keep the stack so it can be reported.
    io.err(`svc-zero: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
