// iptables-save's text read back: per table, its chains and each chain's rules in order, every
// rule as the argument text after `-A CHAIN ` (iptables' own canonical spelling of it).
export type NatOrFilter = 'nat' | 'filter';

export interface SavedTable {
  /** every chain of the table, built-in ones included */
  chains: Set<string>;
  rules: Map<string, string[]>;
}

export type SavedTables = Record<NatOrFilter, SavedTable>;

export function parseIptablesSave(text: string): SavedTables {
  const tables: SavedTables = { nat: emptyTable(), filter: emptyTable() };
  let current: SavedTable | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('*')) {
      const name = line.slice(1).trim();
      current = name === 'nat' || name === 'filter' ? tables[name] : undefined;
    } else if (current === undefined) {
      continue;
    } else if (line.startsWith(':')) {
      current.chains.add(line.slice(1).split(' ')[0]);
    } else if (line.startsWith('-A ')) {
      const space = line.indexOf(' ', 3);
      const chain = line.slice(3, space);
      const rules = current.rules.get(chain) ?? [];
      rules.push(line.slice(space + 1));
      current.rules.set(chain, rules);
    }
  }
  return tables;
}

function emptyTable(): SavedTable {
  return { chains: new Set(), rules: new Map() };
}
