// Reads Prometheus' text exposition format with the Prometheus project's own parser (its Python
// client's, Debian's python3-prometheus-client): a scrape berth serves must be what Prometheus reads.
import { execFileSync } from 'node:child_process';

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  /** as the parser names it: a counter's without its _total */
  name: string;
  type: string;
  help: string;
  samples: ParsedSample[];
}

// Debian's python, which has Debian's python3-prometheus-client (the PATH may lead to another)
const PYTHON = '/usr/bin/python3';
const SCRIPT = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({'name': f.name, 'type': f.type, 'help': f.documentation,
                'samples': [{'name': s.name, 'labels': s.labels, 'value': s.value if math.isfinite(s.value) else str(s.value)} for s in f.samples]})
print(json.dumps(out))
`;

/** The families of an exposition; throws with the parser's message when the text is not valid. */
export function parsePrometheusText(text: string): ParsedFamily[] {
  return JSON.parse(execFileSync(PYTHON, ['-c', SCRIPT], { input: text, encoding: 'utf8' })) as ParsedFamily[];
}
