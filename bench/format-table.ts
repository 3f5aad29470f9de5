// The human-readable report: one line per figure, notes underneath.
import { describeTarget, type Result } from './evaluate.js';
import type { Unit } from './figure.js';

const DECIMALS: Record<Unit, number> = { 'req/s': 0, 'records/s': 0, ms: 2, s: 3, MiB: 1, 'MB/s': 0 };
const HEADER = ['figure', 'berth', 'reference', 'ratio', 'target', 'status'];

export function formatTable(results: Result[]): string {
  const notes: string[] = [];
  const lines = results.map((r) => {
    const figure = r.note ? `${r.figure} [${notes.push(r.note)}]` : r.figure;
    return [
      figure,
      formatValue(r.berth, r.unit),
      r.reference === null ? 'n/a' : formatValue(r.reference, r.unit),
      r.ratio === null ? 'n/a' : r.ratio.toFixed(2),
      describeTarget(r) || '-',
      r.status ?? '-',
    ];
  });
  const widths = HEADER.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  // Text left, numbers right.
  const render = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 || i >= 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [
    render(HEADER),
    render(widths.map((w) => '-'.repeat(w))),
    ...lines.map(render),
    ...(notes.length > 0 ? ['', ...notes.map((n, i) => `[${i + 1}] ${n}`)] : []),
  ].join('\n');
}

function formatValue(value: number, unit: Unit): string {
  return `${value.toFixed(DECIMALS[unit])} ${unit}`;
}
