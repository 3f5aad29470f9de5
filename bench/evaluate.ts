// A row's ratio to the reference and whether it meets its target.
import type { Row } from './figure.js';

export type Status = 'met' | 'not met' | 'n/a';

export interface Result extends Row {
  /** berth / reference. */
  ratio: number | null;
  /** null when the row has no target. */
  status: Status | null;
}

export function evaluate(row: Row): Result {
  const ratio = row.reference === null || row.reference === 0 ? null : row.berth / row.reference;
  return { ...row, ratio, status: status(row, ratio) };
}

export function describeTarget(row: Row): string {
  switch (row.target?.kind) {
    case undefined:
      return '';
    case 'atLeastReference':
      return `ratio ≥ ${(row.target.ratio ?? 1).toFixed(1)}`;
    case 'atMostReference':
      return `ratio ≤ ${(row.target.ratio ?? 1).toFixed(1)}`;
    case 'below':
      return `< ${row.target.limit} ${row.unit}`;
    case 'atLeast':
      return `≥ ${row.target.limit} ${row.unit}`;
  }
}

function status(row: Row, ratio: number | null): Status | null {
  switch (row.target?.kind) {
    case undefined:
      return null;
    case 'atLeastReference':
      return ratio === null ? 'n/a' : ratio >= (row.target.ratio ?? 1) ? 'met' : 'not met';
    case 'atMostReference':
      return ratio === null ? 'n/a' : ratio <= (row.target.ratio ?? 1) ? 'met' : 'not met';
    case 'below':
      return row.berth < row.target.limit ? 'met' : 'not met';
    case 'atLeast':
      return row.berth >= row.target.limit ? 'met' : 'not met';
  }
}
