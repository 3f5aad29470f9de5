// berth's firewall rules, kept in chains of its own (BERTH-ISOLATION-STAGE-1...) that built-in
// chains jump to, as dockerd keeps DOCKER-*: each call makes one rule or chain be there or be gone,
// checking first, so repeating one (at every daemon start) changes nothing. iptables waits for the
// xtables lock another program holds (-w) rather than failing at once; a failure is a CommandError
// in iptables' words. With `enabled: false` (dockerd's --iptables=false) every call does nothing,
// so callers need no branch of their own.
import { runCommand, type CommandResult } from './child-process.js';
import { inNetns } from './netns.js';

export type IptablesTable = 'filter' | 'nat' | 'mangle' | 'raw';

/** where a missing rule goes: first or last in its chain */
export type RulePosition = 'top' | 'bottom';

export interface IptablesOptions {
  /** false: every call does nothing; true by default */
  enabled?: boolean;
  /** the network namespace (a file) whose tables change, berthd's own by default: the tests use theirs */
  netns?: string;
}

/** how long iptables waits for the xtables lock before it fails saying who holds it */
const LOCK_WAIT_SECONDS = 10;
const IPTABLES_TIMEOUT_MS = 20_000;

export class Iptables {
  private readonly enabled: boolean;
  private readonly netns: string | undefined;

  constructor(opts: IptablesOptions = {}) {
    this.enabled = opts.enabled ?? true;
    this.netns = opts.netns;
  }

  /** Creates `chain` in `table` unless it exists. */
  async ensureChain(table: IptablesTable, chain: string): Promise<void> {
    if (!this.enabled || (await this.chainExists(table, chain))) return;
    await this.run(table, ['-N', chain]);
  }

  /**
   * Makes `from` (a built-in chain) jump to `to` once. 'top' also moves the jump back to the top
   * when another rule was inserted before it, as dockerd does for DOCKER-USER: a jump meant to see
   * every packet first must stay first.
   */
  async ensureJump(table: IptablesTable, from: string, to: string, position: RulePosition): Promise<void> {
    if (!this.enabled) return;
    const jump = ['-j', to];
    if (position === 'bottom') return this.ensureRule(table, from, jump, 'bottom');
    // `-S chain 1` prints the chain's first rule (nothing for an empty chain)
    const first = (await this.run(table, ['-S', from, '1'])).stdout.toString().trim();
    if (first === `-A ${from} -j ${to}`) return;
    await this.deleteRule(table, from, jump);
    await this.run(table, ['-I', from, '1', ...jump]);
  }

  /** Adds `rule` (iptables' match and target arguments, e.g. ['-i', 'br0', '-j', 'DROP']) to `chain` unless it is there. */
  async ensureRule(table: IptablesTable, chain: string, rule: readonly string[], position: RulePosition = 'bottom'): Promise<void> {
    if (!this.enabled) return;
    // -C exits 1 both for a missing rule and a missing chain: -A then says which
    if ((await this.run(table, ['-C', chain, ...rule], [1])).exitCode === 0) return;
    await this.run(table, position === 'top' ? ['-I', chain, '1', ...rule] : ['-A', chain, ...rule]);
  }

  /** Deletes `rule` from `chain`, every copy of it; none, or no such chain, is no error. */
  async deleteRule(table: IptablesTable, chain: string, rule: readonly string[]): Promise<void> {
    // iptables-nft fails -D on a missing chain with status 2, as it fails bad arguments
    if (!this.enabled || !(await this.chainExists(table, chain))) return;
    for (;;) {
      // -D exits 1 when there is no such rule (or chain) left
      if ((await this.run(table, ['-D', chain, ...rule], [1])).exitCode !== 0) return;
    }
  }

  /** Flushes and deletes `chain`; a missing one is no error. Rules that jump to it must go first (deleteRule). */
  async removeChain(table: IptablesTable, chain: string): Promise<void> {
    if (!this.enabled || !(await this.chainExists(table, chain))) return;
    await this.run(table, ['-F', chain]);
    await this.run(table, ['-X', chain]);
  }

  private async chainExists(table: IptablesTable, chain: string): Promise<boolean> {
    // exit 1: no such chain; the output is at most one rule, however long the chain
    return (await this.run(table, ['-S', chain, '1'], [1])).exitCode === 0;
  }

  private run(table: IptablesTable, args: readonly string[], allowExitCodes: readonly number[] = []): Promise<CommandResult> {
    const [file, fullArgs] = inNetns(this.netns, 'iptables', ['-w', String(LOCK_WAIT_SECONDS), '-t', table, ...args]);
    return runCommand(file, fullArgs, { timeoutMs: IPTABLES_TIMEOUT_MS, allowExitCodes });
  }
}
