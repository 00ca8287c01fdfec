import { round, type CostRow } from '../store/costs';

/**
 * Usage is the use of a resource, the only cost that belongs to a service (or, untagged, to "Unattributed"). Every
 * other charge category — tax, credits and discounts, refunds and adjustments, fees, purchases and support — is a
 * charge of its own, which reports show apart by charge type (as Cost Explorer's "Charge type" and Vantage do) rather
 * than let a reader take it for untagged resources.
 */
export const isUsage = (row: Pick<CostRow, 'charge_category'>): boolean => row.charge_category === 'Usage';

export interface CostSum {
  cost: number;
  billed: number;
}

/** Sums rows' effective and billed cost into groups. */
export function sumBy<K>(rows: readonly CostRow[], key: (row: CostRow) => K): Map<K, CostSum> {
  const groups = new Map<K, CostSum>();
  for (const row of rows) {
    const k = key(row);
    const g = groups.get(k) ?? { cost: 0, billed: 0 };
    g.cost += row.effective;
    g.billed += row.billed;
    groups.set(k, g);
  }
  return groups;
}

export interface ChargeTypeCost {
  /** The provider's name (`Tax`, `EdpDiscount`, `SUSTAINED_USAGE_DISCOUNT`, `Refund`, ...). */
  charge_type: string;
  /** Its FOCUS ChargeCategory (`Purchase`, `Tax`, `Credit`, `Adjustment`), to group types across providers. */
  charge_category: string;
  cost: number;
  billed_cost: number;
}

export interface Charges {
  /** Effective cost of every non-usage charge (credits negative). */
  cost: number;
  billed_cost: number;
  /** Largest amount first (by absolute value: a large credit matters as much as a large fee). */
  by_type: ChargeTypeCost[];
}

/** The non-usage charges among `rows`, by charge type. Rows stored before charge types were kept show their category. */
export function chargeBreakdown(rows: readonly CostRow[]): Charges {
  const charges = rows.filter((r) => !isUsage(r));
  const byType = sumBy(
    charges,
    (r) => `${r.charge_category}\n${r.charge_type === '' ? r.charge_category : r.charge_type}`,
  );
  const total = [...byType.values()].reduce((sum, g) => ({ cost: sum.cost + g.cost, billed: sum.billed + g.billed }), {
    cost: 0,
    billed: 0,
  });
  return {
    cost: round(total.cost),
    billed_cost: round(total.billed),
    by_type: [...byType]
      .map(([key, g]) => {
        const [category, type] = key.split('\n') as [string, string];
        return { charge_type: type, charge_category: category, cost: round(g.cost), billed_cost: round(g.billed) };
      })
      .sort(
        (a, b) =>
          Math.abs(b.cost) - Math.abs(a.cost) ||
          Math.abs(b.billed_cost) - Math.abs(a.billed_cost) ||
          a.charge_type.localeCompare(b.charge_type),
      ),
  };
}
