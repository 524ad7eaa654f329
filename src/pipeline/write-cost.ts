/**
 * How long a queued row waits: the store's write cost per row, measured on its transactions.
 *
 * The estimate is milliseconds per row over transactions of at least `MIN_ROWS_MEASURED` rows
 * (small transactions are dominated by their fixed cost and would overstate the cost of the large
 * group commits that form under load). It rises at once to a slower transaction's cost and falls
 * gradually (an exponentially weighted mean, weight 0.3 for the newest), so a store that slows
 * down shortens the queue at the next transaction while one fast transaction does not lengthen it.
 * Until the first such transaction the estimate is `INITIAL_MS_PER_ROW`, 0.1 ms (10,000 rows/s,
 * below what DuckDB does here: 25–50 k rows/s in 5,000–50,000-row transactions).
 *
 * A write queued behind `queuedRows` others waits queuedRows × cost before its own rows are
 * written (one writer, FIFO; the transaction in flight counts in full, which overstates its
 * remaining time, on the safe side). Worked: 60,000 rows queued at 0.04 ms/row (25 k rows/s) →
 * 2.4 s ahead, under a 3 s bound: admitted; at 80,000 rows queued (3.2 s) every new write is
 * refused with Retry-After 4.
 */

export const INITIAL_MS_PER_ROW = 0.1;
export const MIN_ROWS_MEASURED = 1000;
const NEWEST_WEIGHT = 0.3;

export class WriteCost {
  private msPerRowValue = INITIAL_MS_PER_ROW;

  /** The current estimate, in milliseconds per row. */
  msPerRow(): number {
    return this.msPerRowValue;
  }

  /** Records one store transaction of `rows` rows that took `ms`. */
  observe(rows: number, ms: number): void {
    if (rows < MIN_ROWS_MEASURED || !(ms >= 0)) return;
    const measured = ms / rows;
    this.msPerRowValue = measured >= this.msPerRowValue ? measured : (1 - NEWEST_WEIGHT) * this.msPerRowValue + NEWEST_WEIGHT * measured;
  }

  /** Expected milliseconds until `rows` rows queued now are durable. */
  waitMs(rows: number): number {
    return rows * this.msPerRowValue;
  }
}
