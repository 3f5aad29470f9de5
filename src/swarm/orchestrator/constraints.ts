// Whether a node meets placement constraints (parsed by services/placement-constraints.ts when the
// service was made), as swarmkit's constraint.NodeMatches: the key one of node.id,
// node.hostname, node.role, node.platform.os, node.platform.arch, node.labels.<name>,
// engine.labels.<name>, its prefix read in any case, a label's name exactly; values compared
// without regard to case; a label the node lacks meets `!=` only.
import type { NodeRecord } from '../cluster/records.js';
import { parseConstraints, type Constraint } from '../services/placement-constraints.js';

/** The spec's constraints; none that match anything when they cannot be read (the create checked them). */
export function constraintsOf(exprs: readonly string[]): Constraint[] | undefined {
  try {
    return parseConstraints(exprs);
  } catch {
    return undefined;
  }
}

function nodeValue(node: NodeRecord, key: string): string | undefined {
  const lower = key.toLowerCase();
  switch (lower) {
    case 'node.id':
      return node.id;
    case 'node.hostname':
      return node.description.hostname;
    case 'node.role':
      return node.role;
    case 'node.platform.os':
      return node.description.platform.os;
    case 'node.platform.arch':
      return node.description.platform.architecture;
  }
  const label = (labels: Record<string, string>, name: string) => (Object.hasOwn(labels, name) ? labels[name] : undefined);
  if (lower.startsWith('node.labels.')) return label(node.spec.labels, key.slice('node.labels.'.length));
  if (lower.startsWith('engine.labels.')) return label(node.description.engine.labels, key.slice('engine.labels.'.length));
  return undefined;
}

export function nodeMeets(node: NodeRecord, constraints: readonly Constraint[] | undefined): boolean {
  if (constraints === undefined) return false;
  return constraints.every((c) => {
    const have = nodeValue(node, c.key);
    const same = have !== undefined && have.toLowerCase() === c.value.toLowerCase();
    return c.operator === '==' ? same : !same;
  });
}
