// A set of berth's chains in one namespace made exactly as wanted in one iptables-restore: the
// tables are read (iptables-save), and only what differs is written, in one transaction: a chain
// whose rules changed is rewritten whole (declaring a chain in --noflush mode empties it), a new
// one made, one the set no longer has emptied and deleted with every jump to it, a missing jump
// added. Nothing that differs, no restore: repeating a set (at every daemon start) changes nothing.
// Rules are spelled as iptables-save prints them (`-d 10.0.0.2/32`, `-p tcp -m tcp --dport 80`),
// so that they compare equal once made.
import { iptablesRestore, iptablesSave } from '../../runtime/iptables-restore.js';
import { parseIptablesSave, type NatOrFilter, type SavedTables } from './saved-tables.js';

export interface OwnedChain {
  table: NatOrFilter;
  name: string;
  /** each rule's text after `-A name ` */
  rules: string[];
}

/** A rule in a chain of someone else's (a built-in one) that leads to one of the set's. */
export interface Jump {
  table: NatOrFilter;
  from: string;
  /** its text after `-A from `, ending in `-j <the set's chain>` */
  rule: string;
  /** 'top': inserted first in `from` when it is missing */
  position: 'top' | 'bottom';
}

export interface ChainSet {
  /** whether a chain is the set's: one it owns but no longer lists is deleted, with the jumps to it */
  owns(chain: string): boolean;
  chains: OwnedChain[];
  jumps: Jump[];
}

const TABLES: readonly NatOrFilter[] = ['nat', 'filter'];

/** iptables-restore's input that turns `saved` into `wanted`; undefined when they already agree. */
export function restoreText(saved: SavedTables, wanted: ChainSet): string | undefined {
  const out: string[] = [];
  for (const table of TABLES) out.push(...tableChanges(saved, wanted, table));
  return out.length === 0 ? undefined : `${out.join('\n')}\n`;
}

function tableChanges(saved: SavedTables, wanted: ChainSet, table: NatOrFilter): string[] {
  const { chains, rules } = saved[table];
  const wantedChains = wanted.chains.filter((c) => c.table === table);
  const wantedNames = new Set(wantedChains.map((c) => c.name));
  const rewritten = wantedChains.filter((c) => !chains.has(c.name) || (rules.get(c.name) ?? []).join('\n') !== c.rules.join('\n'));
  const stale = [...chains].filter((name) => wanted.owns(name) && !wantedNames.has(name));

  // jumps from chains not the set's, by where they are and what they say: extra copies go too
  const wantedJumps = wanted.jumps.filter((j) => j.table === table);
  const isWanted = (from: string, rule: string) => wantedJumps.some((j) => j.from === from && j.rule === rule);
  const deletions: string[] = [];
  const present = new Set<string>();
  for (const [from, list] of rules) {
    if (wanted.owns(from)) continue;
    for (const rule of list) {
      const target = / -j (\S+)$/.exec(` ${rule}`)?.[1];
      if (target === undefined || !wanted.owns(target)) continue;
      const key = `${from} ${rule}`;
      if (isWanted(from, rule) && !present.has(key)) present.add(key);
      else deletions.push(`-D ${key}`);
    }
  }
  const additions = wantedJumps.filter((j) => !present.has(`${j.from} ${j.rule}`)).map((j) => (j.position === 'top' ? `-I ${j.from} 1 ${j.rule}` : `-A ${j.from} ${j.rule}`));

  if (rewritten.length + stale.length + deletions.length + additions.length === 0) return [];
  return [
    `*${table}`,
    // declaring empties: the rewritten chains and the stale ones, which must be empty to be deleted
    ...[...rewritten.map((c) => c.name), ...stale].map((name) => `:${name} - [0:0]`),
    ...deletions,
    ...rewritten.flatMap((c) => c.rules.map((r) => `-A ${c.name} ${r}`)),
    ...additions,
    ...stale.map((name) => `-X ${name}`),
    'COMMIT',
  ];
}

/** restores in flight, by namespace: a set's read and write must not interleave with another's */
const pending = new Map<string, Promise<unknown>>();

/** Makes the namespace's tables hold `wanted` (berthd's own namespace without `netns`); whether anything changed. */
export function applyChainSet(netns: string | undefined, wanted: ChainSet): Promise<boolean> {
  const key = netns ?? '';
  const run = (pending.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      const text = restoreText(parseIptablesSave(await iptablesSave(netns)), wanted);
      if (text !== undefined) await iptablesRestore(netns, text);
      return text !== undefined;
    });
  pending.set(key, run);
  void run.finally(() => {
    if (pending.get(key) === run) pending.delete(key);
  }).catch(() => undefined);
  return run;
}
