import type { Cells } from '../cells';
import { athenaName, bindAwsLineItem } from './aws';
import { defineFormat } from './types';

/**
 * AWS CUR 2.0 (Data Exports, table COST_AND_USAGE_REPORT). Column names are the legacy CUR's in Athena spelling
 * (`line_item_unblended_cost`); tags and the less common product attributes are map columns: `resource_tags`
 * (`{"user_team": "web", "aws_createdBy": ...}`) and `product` (`{"product_name": "Amazon Elastic Compute Cloud", ...}`),
 * a Parquet MAP or, in CSV exports, JSON text. User tag keys lose their `user_` prefix.
 */
export const cur2Format = defineFormat('cur2', false, (pick) => {
  const resourceTags = pick.optional('resource_tags');
  const product = pick.optional('product');
  return bindAwsLineItem(pick, athenaName, {
    tags: (cells: Cells) => {
      const out: Record<string, string> = {};
      const map = cells.map(resourceTags);
      if (map !== null) {
        for (const key in map) out[key.startsWith('user_') ? key.slice(5) : key] = map[key]!;
      }
      return out;
    },
    productName: (cells: Cells) => cells.map(product)?.product_name ?? null,
  });
});
