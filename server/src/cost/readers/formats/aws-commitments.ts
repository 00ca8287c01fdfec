import type { PricingCategory } from '../../model';
import { CellError, type Cells } from '../cells';

/**
 * What AWS reservations (RIs) and savings plans change about a line item: its effective cost and its pricing category.
 *
 * Effective (amortized) cost follows AWS's amortization as Cost Explorer's "amortized cost" and AWS's own CUR query
 * library compute it (the same CASE the FinOps Foundation's FOCUS converter uses for EffectiveCost), by line item type:
 *   SavingsPlanCoveredUsage   savingsPlan/SavingsPlanEffectiveCost (the share of the commitment this usage consumed)
 *   SavingsPlanRecurringFee   savingsPlan/TotalCommitmentToDate − savingsPlan/UsedCommitment (the unused commitment)
 *   SavingsPlanNegation       0 (it cancels the covered usage's on-demand cost, which the effective cost replaces)
 *   SavingsPlanUpfrontFee     0 (the upfront payment is spread over the covered usage instead)
 *   DiscountedUsage           reservation/EffectiveCost (amortized upfront + recurring fee for the hours used)
 *   RIFee                     reservation/UnusedAmortizedUpfrontFeeForBillingPeriod + reservation/UnusedRecurringFee
 *   Fee with a reservation ARN 0 (an RI's upfront fee, spread over its DiscountedUsage)
 *   anything else             lineItem/UnblendedCost (Usage, Tax, Credit, Refund, Fee, discounts, ...)
 */

/** Slots of the reservation and savings plan columns; -1 for those the report lacks. */
export interface CommitmentColumns {
  riEffective: number;
  riArn: number;
  riUnusedUpfront: number;
  riUnusedRecurring: number;
  spEffective: number;
  spTotal: number;
  spUsed: number;
}

/** AWS writes reservation and savings plan columns only into reports of accounts that have them: all optional. */
export function commitmentColumns(col: (csvName: string) => number): CommitmentColumns {
  return {
    riEffective: col('reservation/EffectiveCost'),
    riArn: col('reservation/ReservationARN'),
    riUnusedUpfront: col('reservation/UnusedAmortizedUpfrontFeeForBillingPeriod'),
    riUnusedRecurring: col('reservation/UnusedRecurringFee'),
    spEffective: col('savingsPlan/SavingsPlanEffectiveCost'),
    spTotal: col('savingsPlan/TotalCommitmentToDate'),
    spUsed: col('savingsPlan/UsedCommitment'),
  };
}

/**
 * The row's effective cost by the table above, from its line item type and billed cost. A line item type whose
 * amortization needs a column the report lacks is an error naming the column (`spell`ed as the report spells it).
 */
export function bindEffectiveCost(
  a: CommitmentColumns,
  spell: (csvName: string) => string,
): (cells: Cells, lineItemType: string, billed: number) => number {
  const needed = (cells: Cells, slot: number, csvName: string, lineItemType: string) => {
    if (slot < 0)
      throw new CellError(spell(csvName), `a ${lineItemType} line item needs this column, which the report lacks`);
    return cells.number(slot);
  };
  return (cells, lineItemType, billed) => {
    switch (lineItemType) {
      case 'SavingsPlanCoveredUsage':
        return needed(cells, a.spEffective, 'savingsPlan/SavingsPlanEffectiveCost', lineItemType);
      case 'SavingsPlanRecurringFee':
        return (
          needed(cells, a.spTotal, 'savingsPlan/TotalCommitmentToDate', lineItemType) -
          needed(cells, a.spUsed, 'savingsPlan/UsedCommitment', lineItemType)
        );
      case 'SavingsPlanNegation':
      case 'SavingsPlanUpfrontFee':
        return 0;
      case 'DiscountedUsage':
        return needed(cells, a.riEffective, 'reservation/EffectiveCost', lineItemType);
      case 'RIFee':
        return (
          needed(cells, a.riUnusedUpfront, 'reservation/UnusedAmortizedUpfrontFeeForBillingPeriod', lineItemType) +
          needed(cells, a.riUnusedRecurring, 'reservation/UnusedRecurringFee', lineItemType)
        );
      case 'Fee':
        return cells.text(a.riArn) !== null ? 0 : billed;
      default:
        return billed;
    }
  };
}

const COMMITMENT_TYPES = new Set([
  'DiscountedUsage',
  'SavingsPlanCoveredUsage',
  'SavingsPlanNegation',
  'RIFee',
  'SavingsPlanRecurringFee',
  'SavingsPlanUpfrontFee',
]);

/**
 * FOCUS PricingCategory: commitments and what they cover are `Committed`, as is an RI's fee (a `Fee` with a reservation
 * ARN); usage is `Dynamic` on spot, `Standard` on demand, `Committed` when reserved; anything else has none.
 */
export function bindPricingCategory(
  riArn: number,
  term: number,
  usageType: number,
): (cells: Cells, lineItemType: string) => PricingCategory | null {
  return (cells, lineItemType) => {
    if (COMMITMENT_TYPES.has(lineItemType)) return 'Committed';
    if (lineItemType === 'Fee') return cells.text(riArn) !== null ? 'Committed' : null;
    if (lineItemType !== 'Usage') return null;
    const pricingTerm = cells.text(term);
    if (pricingTerm === 'Spot' || cells.text(usageType)?.includes('SpotUsage')) return 'Dynamic';
    if (pricingTerm === 'OnDemand') return 'Standard';
    if (pricingTerm === 'Reserved') return 'Committed';
    return null;
  };
}
