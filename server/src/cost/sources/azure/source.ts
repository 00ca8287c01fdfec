import type { BillingPeriod, BillingSource, CostLineItem, LineItemBatches } from '../../model';
import type { SourceEnv } from '../types';
import { CostQueryApi, type AzureTransport } from './client';
import type { AzureConfig, AzureSecrets } from './config';
import { costQuery, dimensionsFor, type CostType, type Dimension } from './query';
import { parseQueryRows, type CostRow } from './result';
import { azureLineItem } from './row';

const LEFTOVER_BATCH = 1000;

/**
 * Reads a connection's months from the Cost Management Query API: daily cost grouped by the dimensions a line item
 * needs (query.ts), once as ActualCost (billed) and once as AmortizedCost (effective), the two joined on their
 * groups. The ActualCost groups are held while the AmortizedCost pages stream past them — a month's grouped rows, not
 * its raw usage records — and each AmortizedCost page is yielded as one batch.
 */
export function azureBillingSource(
  config: AzureConfig,
  secrets: AzureSecrets,
  env: SourceEnv,
  transport?: AzureTransport,
): BillingSource {
  const api = new CostQueryApi(secrets, env.endpoints, transport);
  return { read: (period, signal) => readPeriod(api, config, period, signal, env.log) };
}

async function* readPeriod(
  api: CostQueryApi,
  config: AzureConfig,
  period: BillingPeriod,
  signal: AbortSignal,
  log: (line: string) => void,
): LineItemBatches {
  const dimensions = dimensionsFor(config.scope_kind);
  const billed = new Map<string, CostRow>();
  for await (const rows of queryRows(api, config.scope, 'ActualCost', period, dimensions, signal)) {
    for (const row of rows) {
      const key = groupKey(row, dimensions);
      const seen = billed.get(key);
      billed.set(key, seen ? { ...seen, cost: seen.cost + row.cost } : row);
    }
  }
  let count = 0;
  for await (const rows of queryRows(api, config.scope, 'AmortizedCost', period, dimensions, signal)) {
    const batch = rows.map((row) => {
      const key = groupKey(row, dimensions);
      const actual = billed.get(key);
      billed.delete(key);
      return azureLineItem(row, actual?.cost ?? 0, row.cost, period);
    });
    count += batch.length;
    if (batch.length > 0) yield batch;
  }
  // Billed but with no amortized cost: purchases of reservations and savings plans, whose cost the amortized view
  // spreads over the usage they cover.
  let batch: CostLineItem[] = [];
  for (const row of billed.values()) {
    batch.push(azureLineItem(row, row.cost, 0, period));
    if (batch.length === LEFTOVER_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
  log(`azure: read ${count + billed.size} line items of ${period} for ${config.scope}`);
}

async function* queryRows(
  api: CostQueryApi,
  scope: string,
  type: CostType,
  period: BillingPeriod,
  dimensions: Dimension[],
  signal: AbortSignal,
): AsyncGenerator<CostRow[]> {
  for await (const page of api.pages(scope, costQuery(type, period, dimensions), signal)) {
    if (page !== null) yield parseQueryRows(page, dimensions);
  }
}

/** The group a row sums: its day, currency and every grouped dimension (tags describe the resource, not the group). */
function groupKey(row: CostRow, dimensions: Dimension[]): string {
  return [row.day, row.currency, ...dimensions.map((d) => row.dimensions[d].toLowerCase())].join('\u0000');
}
