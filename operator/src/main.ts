/**
 * Entry of the operator's image (`node dist/main.js`): starts the operator (operator.ts) from the environment the
 * manifests write, and runs until SIGTERM (a rolling update) or SIGINT.
 */
import { createLogger, parseLogLevel } from './log.js';
import { OPERATOR_ENV } from './manifests/index.js';
import { startOperator, type RunningOperator } from './operator.js';

async function main(): Promise<void> {
  const logger = createLogger({ level: parseLogLevel(process.env[OPERATOR_ENV.logLevel]) ?? 'info' });
  let operator: RunningOperator;
  try {
    operator = await startOperator({ env: process.env, logger });
  } catch (error) {
    logger.error('svc-zero operator could not start', { error });
    process.exit(1);
  }
  const shutdown = (signal: string) => {
    logger.info(`${signal} received: stopping`);
    operator.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stopping failed', { error });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

void main();
