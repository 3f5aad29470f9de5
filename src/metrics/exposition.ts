// Prometheus' text exposition format (version 0.0.4): each family's HELP and TYPE, then its
// samples; a histogram as cumulative _bucket series (le, ending at +Inf), _sum and _count.

export type Labels = Readonly<Record<string, string>>;

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricFamily =
  | { name: string; help: string; type: 'counter' | 'gauge'; samples: ReadonlyArray<{ labels: Labels; value: number }> }
  | { name: string; help: string; type: 'histogram'; samples: ReadonlyArray<{ labels: Labels; buckets: readonly number[]; counts: readonly number[]; sum: number; count: number }> };

export function formatExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const f of families) {
    lines.push(`# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${f.name} ${f.type}`);
    if (f.type !== 'histogram') {
      for (const s of f.samples) lines.push(`${f.name}${labelText(s.labels)} ${numberText(s.value)}`);
      continue;
    }
    for (const s of f.samples) {
      // counts[i] are the observations in bucket i alone; the format wants them cumulative
      let cumulative = 0;
      s.buckets.forEach((le, i) => {
        cumulative += s.counts[i];
        lines.push(`${f.name}_bucket${labelText({ ...s.labels, le: numberText(le) })} ${cumulative}`);
      });
      lines.push(`${f.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${f.name}_sum${labelText(s.labels)} ${numberText(s.sum)}`);
      lines.push(`${f.name}_count${labelText(s.labels)} ${s.count}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function numberText(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}
