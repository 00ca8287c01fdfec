import type { CostLineItem } from '../model';
import { CellError, type Cells } from './cells';
import type { ColumnPlan } from './formats/types';

/** A row whose cells cannot be read: which row (1-based, header excluded) and which column. */
export class ReportRowError extends Error {
  constructor(
    readonly row: number,
    readonly column: string,
    problem: string,
  ) {
    super(`data row ${row}, ${problem}`);
  }
}

/**
 * Maps decoded rows to line items, `batchSize` at a time: `push` returns full batches to yield, `flush` the rest.
 */
export class ItemBatcher<R> {
  private batch: CostLineItem[] = [];
  private rowNumber = 0;

  constructor(
    private readonly plan: ColumnPlan,
    private readonly cells: Cells & { row: readonly R[] },
    private readonly batchSize: number,
  ) {}

  push(rows: readonly (readonly R[])[]): CostLineItem[][] {
    const full: CostLineItem[][] = [];
    const { plan, cells } = this;
    for (const row of rows) {
      this.rowNumber += 1;
      cells.row = row;
      try {
        this.batch.push(plan.toItem(cells));
      } catch (err) {
        if (err instanceof CellError) throw new ReportRowError(this.rowNumber, err.column, err.message);
        throw err;
      }
      if (this.batch.length >= this.batchSize) {
        full.push(this.batch);
        this.batch = [];
      }
    }
    return full;
  }

  flush(): CostLineItem[] | null {
    const rest = this.batch;
    this.batch = [];
    return rest.length > 0 ? rest : null;
  }
}
