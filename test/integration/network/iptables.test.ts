// iptables.ts for real, in a network namespace of the test's own (the host's tables are never
// touched): chains, jumps and rules made once however often asked, moved back to the top, deleted,
// and nothing else changed; with `enabled: false`, nothing at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CommandError } from '../../../src/runtime/child-process.js';
import { Iptables, type IptablesTable } from '../../../src/runtime/iptables.js';
import { createTestNetns, execIn, removeTestNetns } from '../../helpers/netns.js';

let netns: string;
let iptables: Iptables;

before(() => {
  netns = createTestNetns('iptables');
  iptables = new Iptables({ netns });
});

after(() => removeTestNetns(netns));

/** The table as iptables-save prints it, without its comments and counters. */
function save(table: IptablesTable): string[] {
  return execIn(netns, 'iptables-save', ['-t', table]).split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.replace(/ \[\d+:\d+\]$/, ''));
}

function rules(table: IptablesTable, chain: string): string[] {
  return save(table).filter((l) => l.startsWith(`-A ${chain} `));
}

describe('iptables', () => {
  it('creates a chain once, however often asked', async () => {
    for (let i = 0; i < 3; i++) await iptables.ensureChain('filter', 'BERTH-ONCE');
    assert.deepEqual(save('filter').filter((l) => l.includes('BERTH-ONCE')), [':BERTH-ONCE -']);
  });

  it('adds a rule once, at the bottom or the top', async () => {
    await iptables.ensureChain('filter', 'BERTH-RULES');
    const drop = ['-i', 'berth0', '-o', 'berth1', '-j', 'DROP'];
    for (let i = 0; i < 3; i++) await iptables.ensureRule('filter', 'BERTH-RULES', drop);
    await iptables.ensureRule('filter', 'BERTH-RULES', ['-j', 'RETURN'], 'bottom');
    await iptables.ensureRule('filter', 'BERTH-RULES', ['-s', '10.88.0.0/16', '-j', 'ACCEPT'], 'top');
    await iptables.ensureRule('filter', 'BERTH-RULES', ['-s', '10.88.0.0/16', '-j', 'ACCEPT'], 'top');
    assert.deepEqual(rules('filter', 'BERTH-RULES'), [
      '-A BERTH-RULES -s 10.88.0.0/16 -j ACCEPT',
      '-A BERTH-RULES -i berth0 -o berth1 -j DROP',
      '-A BERTH-RULES -j RETURN',
    ]);
  });

  it('jumps from a built-in chain once, keeping a jump at the top first', async () => {
    await iptables.ensureChain('filter', 'BERTH-FIRST');
    await iptables.ensureChain('nat', 'BERTH-LAST');
    for (let i = 0; i < 3; i++) {
      await iptables.ensureJump('filter', 'FORWARD', 'BERTH-FIRST', 'top');
      await iptables.ensureJump('nat', 'POSTROUTING', 'BERTH-LAST', 'bottom');
    }
    assert.deepEqual(rules('filter', 'FORWARD'), ['-A FORWARD -j BERTH-FIRST']);
    assert.deepEqual(rules('nat', 'POSTROUTING'), ['-A POSTROUTING -j BERTH-LAST']);
    // another program put rules above it, and a copy below: it goes back to the top, once
    execIn(netns, 'iptables', ['-w', '-I', 'FORWARD', '1', '-j', 'ACCEPT']);
    execIn(netns, 'iptables', ['-w', '-A', 'FORWARD', '-j', 'BERTH-FIRST']);
    await iptables.ensureJump('filter', 'FORWARD', 'BERTH-FIRST', 'top');
    assert.deepEqual(rules('filter', 'FORWARD'), ['-A FORWARD -j BERTH-FIRST', '-A FORWARD -j ACCEPT']);
    execIn(netns, 'iptables', ['-w', '-D', 'FORWARD', '-j', 'ACCEPT']);
  });

  it('deletes a rule, every copy, and a missing rule or chain is no error', async () => {
    await iptables.ensureChain('filter', 'BERTH-DELETE');
    const rule = ['-p', 'tcp', '--dport', '8080', '-j', 'ACCEPT'];
    await iptables.ensureRule('filter', 'BERTH-DELETE', ['-j', 'RETURN']);
    for (let i = 0; i < 2; i++) execIn(netns, 'iptables', ['-w', '-A', 'BERTH-DELETE', ...rule]);
    await iptables.deleteRule('filter', 'BERTH-DELETE', rule);
    assert.deepEqual(rules('filter', 'BERTH-DELETE'), ['-A BERTH-DELETE -j RETURN']);
    await iptables.deleteRule('filter', 'BERTH-DELETE', rule);
    await iptables.deleteRule('filter', 'BERTH-NO-SUCH-CHAIN', rule);
  });

  it('flushes and deletes a chain once nothing jumps to it; a missing one is no error', async () => {
    await iptables.ensureChain('filter', 'BERTH-GONE');
    await iptables.ensureRule('filter', 'BERTH-GONE', ['-j', 'DROP']);
    await iptables.ensureJump('filter', 'INPUT', 'BERTH-GONE', 'bottom');
    // still jumped to: iptables' own words
    await assert.rejects(iptables.removeChain('filter', 'BERTH-GONE'), (err: unknown) => err instanceof CommandError && /BERTH-GONE/.test(err.message) && err.kind === 'system');
    await iptables.deleteRule('filter', 'INPUT', ['-j', 'BERTH-GONE']);
    await iptables.removeChain('filter', 'BERTH-GONE');
    assert.equal(save('filter').some((l) => l.includes('BERTH-GONE')), false);
    await iptables.removeChain('filter', 'BERTH-GONE');
  });

  it("fails in iptables' words for a rule in a chain that does not exist", async () => {
    await assert.rejects(iptables.ensureRule('filter', 'BERTH-NO-SUCH-CHAIN', ['-j', 'DROP']), (err: unknown) => err instanceof CommandError && /No chain\/target\/match by that name/.test(err.message));
  });

  it('changes nothing else, and leaves the tables as they were once its chains are removed', async () => {
    const tables: IptablesTable[] = ['filter', 'nat'];
    const before = tables.map(save);
    await iptables.ensureChain('filter', 'BERTH-ISOLATION-STAGE-1');
    await iptables.ensureJump('filter', 'FORWARD', 'BERTH-ISOLATION-STAGE-1', 'top');
    await iptables.ensureRule('filter', 'BERTH-ISOLATION-STAGE-1', ['-i', 'berth0', '!', '-o', 'berth0', '-j', 'DROP']);
    await iptables.ensureChain('nat', 'BERTH-POSTROUTING');
    await iptables.ensureJump('nat', 'POSTROUTING', 'BERTH-POSTROUTING', 'bottom');
    await iptables.ensureRule('nat', 'BERTH-POSTROUTING', ['-s', '10.88.0.0/16', '!', '-o', 'berth0', '-j', 'MASQUERADE']);
    assert.notDeepEqual(tables.map(save), before);
    await iptables.deleteRule('filter', 'FORWARD', ['-j', 'BERTH-ISOLATION-STAGE-1']);
    await iptables.removeChain('filter', 'BERTH-ISOLATION-STAGE-1');
    await iptables.deleteRule('nat', 'POSTROUTING', ['-j', 'BERTH-POSTROUTING']);
    await iptables.removeChain('nat', 'BERTH-POSTROUTING');
    assert.deepEqual(tables.map(save), before);
  });

  it('does nothing at all when disabled', async () => {
    const off = new Iptables({ enabled: false, netns });
    const before = save('filter');
    await off.ensureChain('filter', 'BERTH-OFF');
    await off.ensureJump('filter', 'FORWARD', 'BERTH-OFF', 'top');
    await off.ensureRule('filter', 'BERTH-OFF', ['-j', 'DROP']);
    await off.ensureRule('filter', 'BERTH-NO-SUCH-CHAIN', ['-j', 'DROP']);
    await off.deleteRule('filter', 'BERTH-ONCE', ['-j', 'DROP']);
    await off.removeChain('filter', 'BERTH-ONCE');
    assert.deepEqual(save('filter'), before);
  });
});
