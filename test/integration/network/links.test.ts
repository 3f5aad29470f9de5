// Legacy links, as the reference engine (dockerd 20.10) gives them: on the default bridge `--link
// db1:db` puts the alias in /etc/hosts (alias, hostname, name) and the environment variables of
// links.Link.ToEnv (DB_PORT_5432_TCP_ADDR…, DB_NAME=/web1/db, DB_ENV_FOO); `docker rm --link
// web1/db` takes the link away (the running parent's /etc/hosts too, as dockerd refreshes its
// sandbox); on a user-defined network a link is a name the linking container's DNS answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { addressOn, httpd, runDetached, sh, untilServed } from '../../helpers/network-probes.js';

describe('links', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox({ config: { dns: ['192.0.2.53'] } });
  });
  after(async () => {
    await teardown(d);
  });

  describe('on the default bridge', () => {
    let dbIp: string;
    let dbHostname: string;
    before(async () => {
      await runDetached(d, ['--name', 'db1', '-e', 'FOO=bar', '--expose', '5432', 'busybox', ...httpd('from-db')]);
      await runDetached(d, ['--name', 'web1', '--link', 'db1:db', 'busybox', 'sleep', '600']);
      dbIp = await addressOn(d, 'db1', 'bridge');
      dbHostname = (await inspectContainer(d, 'db1')).Config.Hostname;
    });

    it('gives the alias, hostname and name a line in /etc/hosts, and the alias reaches the container', async () => {
      const hosts = await sh(d, 'web1', 'cat /etc/hosts');
      assert.ok(hosts.stdout.split('\n').includes(`${dbIp}\tdb ${dbHostname} db1`), hosts.stdout);
      await untilServed(d, 'web1', 'http://db/', 'from-db');
      const ping = await sh(d, 'web1', 'ping -c1 -W2 db');
      assert.equal(ping.code, 0, ping.stderr);
      assert.deepEqual((await inspectContainer(d, 'web1')).HostConfig.Links, ['/db1:/web1/db']);
    });

    it("sets the link's environment variables", async () => {
      const env = (await sh(d, 'web1', 'env')).stdout.split('\n').filter((l) => l.startsWith('DB_')).sort();
      assert.deepEqual(env, [
        'DB_ENV_FOO=bar',
        'DB_NAME=/web1/db',
        `DB_PORT=tcp://${dbIp}:5432`,
        `DB_PORT_5432_TCP=tcp://${dbIp}:5432`,
        `DB_PORT_5432_TCP_ADDR=${dbIp}`,
        'DB_PORT_5432_TCP_PORT=5432',
        'DB_PORT_5432_TCP_PROTO=tcp',
      ]);
    });

    it('docker rm --link removes the link and leaves both containers running; a second time it is no such container', async () => {
      await runDetached(d, ['--name', 'web2', '--link', 'db1:db', 'busybox', 'sleep', '600']);
      const rm = await d.docker(['rm', '--link', 'web2/db']);
      assert.equal(rm.code, 0, rm.stderr);
      assert.equal(rm.stdout.trim(), 'web2/db');
      const web2 = await inspectContainer(d, 'web2');
      assert.equal(web2.HostConfig.Links, null);
      assert.equal(web2.State.Status, 'running');
      assert.equal((await inspectContainer(d, 'db1')).State.Status, 'running');
      const again = await d.docker(['rm', '--link', 'web2/db']);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /Error response from daemon: No such container: web2\/db/);
    });

    it("docker rm --link takes the link's line out of the running parent's /etc/hosts, as dockerd's sandbox refresh does", async () => {
      await runDetached(d, ['--name', 'web3', '--link', 'db1:dbalias', 'busybox', 'sleep', '600']);
      assert.match((await sh(d, 'web3', 'cat /etc/hosts')).stdout, /\tdbalias /);
      assert.equal((await d.docker(['rm', '--link', 'web3/dbalias'])).code, 0);
      const hosts = (await sh(d, 'web3', 'cat /etc/hosts')).stdout;
      assert.doesNotMatch(hosts, /dbalias/, hosts);
    });
  });

  describe('on a user-defined network', () => {
    it("is a name the linking container's DNS answers, and only its", async () => {
      assert.equal((await d.docker(['network', 'create', 'linknet'])).code, 0);
      await runDetached(d, ['--name', 'target', '--network', 'linknet', 'busybox', ...httpd('from-target')]);
      await runDetached(d, ['--name', 'linker', '--network', 'linknet', '--link', 'target:tgt', 'busybox', 'sleep', '600']);
      await runDetached(d, ['--name', 'bystander', '--network', 'linknet', 'busybox', 'sleep', '600']);
      const ip = await addressOn(d, 'target', 'linknet');
      const lookup = await sh(d, 'linker', 'nslookup tgt');
      assert.equal(lookup.code, 0, lookup.stdout + lookup.stderr);
      assert.match(lookup.stdout, new RegExp(`Name:\\s+tgt\\nAddress: ${ip.replace(/\./g, '\\.')}\\n`));
      await untilServed(d, 'linker', 'http://tgt/', 'from-target');
      // dockerd writes no /etc/hosts line and no variables for a link on a user-defined network
      assert.doesNotMatch((await sh(d, 'linker', 'cat /etc/hosts')).stdout, /tgt/);
      assert.deepEqual((await sh(d, 'linker', 'env')).stdout.split('\n').filter((l) => l.startsWith('TGT_')), []);
      // the alias is the linker's: another container on the network does not resolve it
      const other = await sh(d, 'bystander', 'ping -c1 -W1 tgt');
      assert.notEqual(other.code, 0);
      assert.match(other.stderr, /bad address 'tgt'/);
    });

    it("is kept on the network's endpoint settings, HostConfig.Links null, as dockerd shows it", async () => {
      const linker = await inspectContainer(d, 'linker');
      assert.deepEqual(linker.NetworkSettings.Networks.linknet.Links, ['target:tgt']);
      assert.equal(linker.HostConfig.Links, null);
    });
  });
});
