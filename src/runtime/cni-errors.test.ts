// The standard CNI plugins' own words (Debian 12's containernetworking-plugins 1.1.1), as they
// printed them on stdout when they failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandError } from './child-process.js';
import { CniPluginError, pluginExitError, pluginNotFound, pluginRunError } from './cni-errors.js';

const pretty = (o: object) => JSON.stringify(o, null, 4);

describe('CNI plugin errors', () => {
  it("names the plugin and keeps its message, code and details", () => {
    const stdout = pretty({ code: 999, msg: 'failed to create bridge "averyveryverylongbridgename": could not add "averyveryverylongbridgename": numerical result out of range' });
    const err = pluginExitError('bridge', 'ADD', 1, stdout, '');
    assert.ok(err instanceof CniPluginError);
    assert.equal(err.kind, 'system');
    assert.deepEqual([err.plugin, err.command, err.code, err.details], ['bridge', 'ADD', 999, undefined]);
    assert.equal(err.message, 'bridge: failed to create bridge "averyveryverylongbridgename": could not add "averyveryverylongbridgename": numerical result out of range');
  });

  it("adds the details as Go's types.Error prints them", () => {
    const stdout = pretty({ code: 1, msg: 'incompatible CNI versions', details: 'config is "9.0.0", plugin supports ["0.1.0" "0.2.0" "0.3.0" "0.3.1" "0.4.0" "1.0.0"]' });
    const err = pluginExitError('bridge', 'ADD', 1, stdout, 'a log line\n');
    assert.equal(err.code, 1);
    assert.equal(err.msg, 'incompatible CNI versions');
    assert.equal(err.message, 'bridge: incompatible CNI versions; config is "9.0.0", plugin supports ["0.1.0" "0.2.0" "0.3.0" "0.3.1" "0.4.0" "1.0.0"]');
  });

  it('says where the plugins come from when one is missing, found by berth or by a plugin', () => {
    const delegated = pluginExitError('bridge', 'ADD', 1, pretty({ code: 999, msg: 'failed to find plugin "nosuchipam" in path [/usr/lib/cni]' }), '');
    assert.equal(delegated.msg, 'failed to find plugin "nosuchipam" in path [/usr/lib/cni]');
    assert.equal(delegated.message, "bridge: failed to find plugin \"nosuchipam\" in path [/usr/lib/cni]; the standard plugins come with Debian's containernetworking-plugins, which `node scripts/setup.mjs` installs");
    const own = pluginNotFound('no-such-plugin', 'ADD', ['/usr/lib/cni', '/opt/cni/bin']);
    assert.equal(own.message, "no-such-plugin: failed to find plugin \"no-such-plugin\" in path [/usr/lib/cni /opt/cni/bin]; the standard plugins come with Debian's containernetworking-plugins, which `node scripts/setup.mjs` installs");
    assert.equal(own.code, undefined);
  });

  it('falls back to the last line a plugin printed, then to its exit status', () => {
    assert.equal(pluginExitError('custom', 'DEL', 2, '', 'starting\npanic: runtime error\n').message, 'custom: panic: runtime error');
    assert.equal(pluginExitError('custom', 'DEL', 2, 'not json', '').message, 'custom: not json');
    assert.equal(pluginExitError('custom', 'DEL', 3, '', '').message, 'custom: exit status 3');
  });

  it('tells a plugin that ran out of time or was killed', () => {
    const failure = { exitCode: null, stderr: '', timedOut: true, signal: 'SIGKILL' as const };
    assert.equal(pluginRunError('bridge', 'ADD', new CommandError('/usr/lib/cni/bridge', 'timed out after 50 ms', failure), 50).message, 'bridge: did not finish within 50 ms and was killed');
    const killed = new CommandError('/usr/lib/cni/bridge', 'killed by SIGSEGV', { ...failure, timedOut: false, signal: 'SIGSEGV' });
    assert.equal(pluginRunError('bridge', 'ADD', killed, 50).message, 'bridge: killed by SIGSEGV');
    const notStarted = new CommandError('/usr/lib/cni/bridge', 'cannot be started', { ...failure, timedOut: false, signal: null }, { cause: new Error('spawn /usr/lib/cni/bridge EACCES') });
    assert.equal(pluginRunError('bridge', 'ADD', notStarted, 50).message, 'bridge: could not be started: spawn /usr/lib/cni/bridge EACCES');
  });

  it("keeps the ADD's error when undoing it failed too, and says so", () => {
    const add = pluginExitError('bridge', 'ADD', 1, pretty({ code: 999, msg: "failed to add route '{0.0.0.0 00000000} via 10.88.0.1 dev eth1': network is unreachable" }), '');
    const undo = pluginExitError('bridge', 'DEL', 1, pretty({ code: 999, msg: 'unknown FS magic on "/tmp/proto/stale": ef53' }), '');
    const err = add.withUndoError(undo);
    assert.deepEqual([err.plugin, err.command, err.code, err.msg, err.undoError], ['bridge', 'ADD', 999, add.msg, undo]);
    assert.equal(err.message, `${add.message} (undoing the ADD failed as well: ${undo.message})`);
    // a missing IPAM plugin fails the bridge plugin's DEL too
    const missing = pluginExitError('bridge', 'ADD', 1, pretty({ code: 999, msg: 'failed to find plugin "nosuchipam" in path [/usr/lib/cni]' }), '');
    const missingAgain = pluginExitError('bridge', 'DEL', 1, pretty({ code: 999, msg: 'failed to find plugin "nosuchipam" in path [/usr/lib/cni]' }), '');
    assert.equal(missing.withUndoError(missingAgain).message, `${missing.message} (undoing the ADD failed the same way)`);
  });
});
