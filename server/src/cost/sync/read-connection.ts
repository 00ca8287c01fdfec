import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import type { ProviderKind, ProviderName, SourceEnv } from '../sources/types';
import { loadRules } from '../store/mappings';
import { replacePeriod } from '../store/periods';
import type { ProviderRow } from '../store/providers';
import { createAggregator } from './aggregate';
import type { RunResult } from './outcome';
import { periodsToSync } from './periods';

export interface ReadDeps {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  kinds: Record<ProviderName, ProviderKind>;
  env: SourceEnv;
}

/** The connection's credentials, or an error that says why they cannot be read. */
function openSecrets(box: SecretBox, connection: ProviderRow): unknown {
  try {
    return box.open(connection.secrets);
  } catch {
    // The one cause in practice: the server now runs with another --secret-key than the one that sealed them.
    throw new Error(
      "the connection's credentials cannot be unsealed with this server's secret key (--secret-key changed?); create the connection again",
    );
  }
}

/**
 * Reads the billing periods a run covers (periods.ts) and replaces each in one transaction, attributed by the rules in
 * force when it is stored: a failure part way leaves the data of the last good run of the periods not yet replaced.
 */
export async function readConnection(
  deps: ReadDeps,
  connection: ProviderRow,
  hasSucceeded: boolean,
  signal: AbortSignal,
): Promise<RunResult> {
  const kind = deps.kinds[connection.provider as ProviderName];
  const source = kind.source(JSON.parse(connection.config) as unknown, openSecrets(deps.box, connection), deps.env);
  const periods = periodsToSync(deps.clock.now(), hasSucceeded);
  let rows = 0;
  for (const period of periods) {
    const aggregator = createAggregator();
    for await (const batch of source.read(period, signal)) aggregator.add(batch);
    const aggregate = aggregator.result();
    rows += aggregate.lineItems;
    const rules = await loadRules(deps.db, connection.project_id);
    await replacePeriod(deps.db, {
      projectId: connection.project_id,
      providerId: connection.id,
      period,
      aggregate,
      rules,
      nowMs: deps.clock.now(),
    });
  }
  return { rows, periods };
}
