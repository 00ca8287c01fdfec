import type { Cells } from '../cells';
import { athenaName, bindAwsLineItem, tagColumns } from './aws';
import { defineFormat } from './types';

/**
 * Legacy AWS Cost and Usage Report. AWS writes it in two spellings: CSV headers `lineItem/UnblendedCost`, one column
 * per cost allocation tag (`resourceTags/user:team`, `resourceTags/aws:createdBy`); and, for Parquet (the Athena
 * integration), the same columns lower-cased with underscores (`line_item_unblended_cost`, `resource_tags_user_team`).
 * The spelling is told by the header: CSV names contain a `/`. User tag keys lose their `user:` prefix; AWS-generated
 * tags keep theirs (`aws:createdBy`). Parquet tag keys come out lower-cased, as AWS writes them (`Name` → `name`).
 */
export const curFormat = defineFormat('cur', false, (pick) => {
  const csv = pick.header.some((name) => name.includes('/'));
  const spell = csv ? (name: string) => name : athenaName;
  const productName = pick.optional(spell('product/ProductName'));
  return bindAwsLineItem(pick, spell, {
    tags: csv
      ? tagColumns(pick.prefixed('resourceTags/'), 'user:')
      : tagColumns(pick.prefixed('resource_tags_'), 'user_'),
    productName: (cells: Cells) => cells.text(productName),
  });
});
