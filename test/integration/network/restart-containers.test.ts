// Networking across a kill -9 of berthd: restarted on the same data root, exec root and namespace,
// it serves its containers' names again (they still reach each other by name) and holds their
// published ports again (still answered, still refused to another container); a container that
// ended while berthd was dead leaves nothing once berthd is back: no namespace file, no veth on
// the bridge, no DNAT rule, its host port free for another.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, sweep, teardown } from '../../helpers/containers.js';
import { addHostAddress, bridgePorts, httpd, natRulesOf, netnsFiles, runDetached, sh, untilServed, wgetFromHost } from '../../helpers/network-probes.js';
import { until } from '../../helpers/until.js';

const HOST = '10.123.0.1';

describe('networking across a kill -9 of berthd', () => {
  let first: Berthd | undefined;
  let second: Berthd | undefined;
  after(async () => {
    if (second !== undefined) await teardown(second);
    if (first !== undefined) {
      await first.stop('SIGKILL');
      // the first daemon's directory holds the exec root the containers ran from
      sweep(first.dir);
    }
  });

  it('serves names and published ports again, and leaves nothing of a container that ended meanwhile', async () => {
    first = await startWithBusybox({ config: { dns: ['192.0.2.53'] } });
    const netns = first.netns!;
    const execRoot = path.join(first.dir, 'exec');
    addHostAddress(netns, `${HOST}/24`);
    assert.equal((await first.docker(['network', 'create', 'kept'])).code, 0);
    const bridge = `br-${(await first.docker(['network', 'inspect', '-f', '{{.Id}}', 'kept'])).stdout.trim().slice(0, 12)}`;
    await runDetached(first, ['--name', 'web', '--network', 'kept', '-p', '8085:80', 'busybox', ...httpd('web')]);
    await runDetached(first, ['--name', 'client', '--network', 'kept', 'busybox', 'sleep', '600']);
    const victim = await runDetached(first, ['--name', 'victim', '--network', 'kept', '-p', '8086:80', 'busybox', ...httpd('victim')]);
    await untilServed(first, 'client', 'http://web/', 'web');
    await until('the victim on the host', () => wgetFromHost(netns, `http://${HOST}:8086/`), (v) => v === 'victim');
    const victimPid = (await inspectContainer(first, 'victim')).State.Pid;
    assert.equal(bridgePorts(netns, bridge).length, 3);
    assert.ok(netnsFiles(execRoot).includes(victim));
    assert.notDeepEqual(natRulesOf(netns, victim), []);

    await first.stop('SIGKILL');
    // while berthd is dead, the victim's process ends (conmon records it)
    process.kill(victimPid, 'SIGKILL');
    await until('the victim to end', () => {
      try {
        process.kill(victimPid, 0);
        return false;
      } catch {
        return true;
      }
    }, (gone) => gone);

    second = await Berthd.start({ dataRoot: first.dataRoot, socket: first.socket, execRoot, netns });
    const d = second;
    const states = (await d.docker(['ps', '-a', '--format', '{{.Names}} {{.State}}'])).stdout.trim().split('\n').sort();
    assert.deepEqual(states, ['client running', 'victim exited', 'web running']);

    // names served again
    const ping = await sh(d, 'client', 'ping -c1 -W2 web');
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.equal((await sh(d, 'client', 'wget -qO- http://web/')).stdout.trim(), 'web');
    // the published port answers, on 127.0.0.1 and the host address, and is still held
    assert.equal(wgetFromHost(netns, 'http://127.0.0.1:8085/'), 'web');
    assert.equal(wgetFromHost(netns, `http://${HOST}:8085/`), 'web');
    const taken = await d.docker(['run', '-d', '--name', 'usurper', '-p', '8085:80', 'busybox', 'sleep', '600']);
    assert.equal(taken.code, 125);
    assert.match(taken.stderr, /Bind for 0\.0\.0\.0:8085 failed: port is already allocated/);

    // nothing left of the victim
    assert.ok(!netnsFiles(execRoot).includes(victim), 'its namespace file is gone');
    assert.equal(bridgePorts(netns, bridge).length, 2, 'its veth is gone');
    assert.deepEqual(natRulesOf(netns, victim), [], 'its DNAT rules are gone');
    assert.equal(wgetFromHost(netns, `http://${HOST}:8086/`), undefined);
    const kept = JSON.parse((await d.docker(['network', 'inspect', 'kept'])).stdout) as Array<{ Containers: Record<string, unknown> }>;
    assert.equal(kept[0].Containers[victim], undefined, 'its endpoint is gone');
    await runDetached(d, ['--name', 'successor', '-p', '8086:80', 'busybox', ...httpd('successor')]);
    await until('the successor on 8086', () => wgetFromHost(netns, `http://${HOST}:8086/`), (v) => v === 'successor');
    // and the victim starts again, on a port of its own no more: 8086 is the successor's
    const again = await d.docker(['start', 'victim']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Bind for 0\.0\.0\.0:8086 failed: port is already allocated/);
  });
});
