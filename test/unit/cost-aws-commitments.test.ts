/**
 * Reservations and savings plans in an AWS line item (server/src/cost/readers/formats/aws-commitments.ts), on cells
 * given by hand. Whole reports with every line item type: cost-readers "AWS amortization (effective cost)".
 */
import { describe, expect, it } from 'vitest';
import type { Cells } from '../../server/src/cost/readers/cells';
import {
  bindEffectiveCost,
  bindPricingCategory,
  commitmentColumns,
} from '../../server/src/cost/readers/formats/aws-commitments';

/** Cells of one row: slot i holds values[i] ('' is empty). */
const row = (...values: string[]): Cells => ({
  text: (slot) => (values[slot] ? values[slot]! : null),
  number: (slot) => Number(values[slot] || 0),
  time: () => 0,
  month: () => '',
  map: () => null,
});

describe('bindPricingCategory', () => {
  // Slots: 0 reservation ARN, 1 pricing term, 2 usage type.
  const pricing = bindPricingCategory(0, 1, 2);

  it('calls commitments and what they cover Committed, an RI fee too, other fees none', () => {
    expect(pricing(row(), 'SavingsPlanNegation')).toBe('Committed');
    expect(pricing(row(), 'RIFee')).toBe('Committed');
    expect(pricing(row('arn:aws:ec2:us-east-1:1:reserved-instances/r'), 'Fee')).toBe('Committed');
    expect(pricing(row(), 'Fee')).toBeNull();
    expect(pricing(row('', 'OnDemand'), 'Tax')).toBeNull();
  });

  it('tells usage by its term, spot also by its usage type', () => {
    expect(pricing(row('', 'OnDemand', 'BoxUsage:m5.large'), 'Usage')).toBe('Standard');
    expect(pricing(row('', 'Spot'), 'Usage')).toBe('Dynamic');
    expect(pricing(row('', '', 'USE1-SpotUsage:m5.large'), 'Usage')).toBe('Dynamic');
    expect(pricing(row('', 'Reserved'), 'Usage')).toBe('Committed');
    expect(pricing(row(), 'Usage')).toBeNull();
  });
});

describe('bindEffectiveCost', () => {
  const present = ['reservation/ReservationARN', 'savingsPlan/TotalCommitmentToDate', 'savingsPlan/UsedCommitment'];
  const columns = commitmentColumns((name) => present.indexOf(name));
  const effective = bindEffectiveCost(columns, (name) => name.toLowerCase());

  it('takes the unused commitment of a recurring fee, and nothing of a fee paying for a reservation', () => {
    expect(effective(row('', '100', '80'), 'SavingsPlanRecurringFee', 100)).toBe(20);
    expect(effective(row('arn'), 'Fee', 1000)).toBe(0);
    expect(effective(row(), 'Fee', 12)).toBe(12);
    expect(effective(row(), 'Usage', 3.5)).toBe(3.5);
  });

  it('names the column, as the report spells it, when a line item type needs one the report lacks', () => {
    expect(columns.riEffective).toBe(-1);
    expect(() => effective(row(), 'DiscountedUsage', 0)).toThrow(
      'column reservation/effectivecost: a DiscountedUsage line item needs this column, which the report lacks',
    );
  });
});
