// The seed's create differences between API versions, through raw /v1.25, /v1.40 and /v1.41
// requests, each seen both in inspect and from inside the container: PidsLimit, Env entries
// without '=', HealthConfig minimums, Capabilities (1.40 only) and CgroupnsMode (1.41 only).
import assert from 'node:assert/strict';
import { readlinkSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';

const VERSIONS = ['/v1.25', '/v1.40', '/v1.41'] as const;
type Prefix = (typeof VERSIONS)[number];

describe('create across API versions', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  async function create(prefix: Prefix, body: Record<string, unknown>): Promise<string> {
    const r = await d.request('POST', `${prefix}/containers/create`, { json: { Image: 'busybox', ...body } });
    assert.equal(r.status, 201, `${prefix}: ${r.body}`);
    return (r.json() as { Id: string }).Id;
  }

  async function inspect(prefix: Prefix, id: string): Promise<{ Config: Record<string, unknown>; HostConfig: Record<string, unknown> }> {
    const r = await d.request('GET', `${prefix}/containers/${id}/json`);
    assert.equal(r.status, 200, r.body);
    return r.json() as { Config: Record<string, unknown>; HostConfig: Record<string, unknown> };
  }

  /** Starts the container attached, returns its stdout, and removes it. */
  async function output(id: string): Promise<string> {
    const r = await d.docker(['start', '-a', id]);
    await d.docker(['rm', '-f', id]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  }

  const createError = async (prefix: Prefix, body: Record<string, unknown>) => {
    const r = await d.request('POST', `${prefix}/containers/create`, { json: { Image: 'busybox', Cmd: ['true'], ...body } });
    return { status: r.status, message: (r.json() as { message?: string }).message };
  };

  for (const prefix of VERSIONS) {
    test(`${prefix} PidsLimit: a number limits the pids cgroup; 0 and -1 are unlimited${prefix === '/v1.25' ? '' : ', null leaves it unset'}`, async () => {
      const limits: Array<number | null> = prefix === '/v1.25' ? [20, 0, -1] : [20, 0, -1, null];
      for (const limit of limits) {
        const id = await create(prefix, { Cmd: ['cat', '/sys/fs/cgroup/pids/pids.max'], HostConfig: { PidsLimit: limit } });
        // dockerd keeps no limit for 0 and -1: inspect shows null
        assert.equal((await inspect(prefix, id)).HostConfig.PidsLimit, limit === 20 ? 20 : null, `PidsLimit ${limit}`);
        assert.equal(await output(id), limit === 20 ? '20\n' : 'max\n', `PidsLimit ${limit}`);
      }
    });

    test(`${prefix} Env without '=': kept as sent in Config.Env; in the process ${prefix === '/v1.25' ? 'set empty' : 'removed, also an image variable'}`, async () => {
      const id = await create(prefix, { Cmd: ['/bin/env'], Env: ['FOO', 'PATH', 'KEEP=1'] });
      // Config.Env keeps the entries as sent at every version (docker-py at 1.25 looks for 'FOO'); the rule is the process's
      const configEnv = (await inspect(prefix, id)).Config.Env as string[];
      assert.ok(['FOO', 'PATH', 'KEEP=1'].every((e) => configEnv.includes(e)), configEnv.join(' '));
      const env = (await output(id)).split('\n');
      assert.ok(env.includes('KEEP=1'), env.join('\n'));
      const touched = env.filter((l) => /^(FOO|PATH)\b/.test(l)).sort();
      assert.deepEqual(touched, prefix === '/v1.25' ? ['FOO=', 'PATH='] : [], env.join('\n'));
    });

    test(`${prefix} HealthConfig durations under 1ms: ${prefix === '/v1.25' ? 'accepted' : 'refused'}`, async () => {
      for (const field of ['Interval', 'Timeout', ...(prefix === '/v1.25' ? [] : ['StartPeriod'])]) {
        const body = { Healthcheck: { Test: ['CMD', 'true'], [field]: 1000 } };
        if (prefix === '/v1.25') {
          const id = await create(prefix, { Cmd: ['true'], ...body });
          assert.equal(((await inspect(prefix, id)).Config.Healthcheck as Record<string, unknown>)[field], 1000);
          await d.docker(['rm', id]);
        } else {
          assert.deepEqual(await createError(prefix, body), { status: 400, message: `${field} in Healthcheck cannot be less than 1ms` });
        }
      }
      // 1 ms itself is fine everywhere
      const id = await create(prefix, { Cmd: ['true'], Healthcheck: { Test: ['CMD', 'true'], Interval: 1_000_000 } });
      await d.docker(['rm', id]);
    });

    test(`${prefix} HostConfig.Capabilities: ${prefix === '/v1.40' ? 'the exact set' : 'ignored'}`, async () => {
      const id = await create(prefix, { Cmd: ['grep', 'CapEff', '/proc/self/status'], HostConfig: { Capabilities: ['CAP_CHOWN', 'CAP_KILL'] } });
      const caps = (await inspect(prefix, id)).HostConfig.Capabilities;
      if (prefix === '/v1.40') {
        assert.deepEqual(caps, ['CAP_CHOWN', 'CAP_KILL']);
        // CHOWN is bit 0, KILL bit 5
        assert.equal(await output(id), 'CapEff:\t0000000000000021\n');
        assert.deepEqual(await createError(prefix, { HostConfig: { Capabilities: ['CAP_CHOWN'], CapAdd: ['NET_ADMIN'] } }), { status: 400, message: 'conflicting options: Capabilities and CapAdd' });
        const unknown = await createError(prefix, { HostConfig: { Capabilities: ['NOPE'] } });
        assert.equal(unknown.status, 400);
        assert.match(unknown.message ?? '', /Capabilities: unknown capability: "NOPE"/);
      } else {
        assert.equal(caps ?? null, null);
        // Docker's default set
        assert.equal(await output(id), 'CapEff:\t00000000a80425fb\n');
        const withAdd = await create(prefix, { Cmd: ['true'], HostConfig: { Capabilities: ['NOPE'], CapAdd: ['NET_ADMIN'] } });
        await d.docker(['rm', withAdd]);
      }
    });

    test(`${prefix} HostConfig.CgroupnsMode: ${prefix === '/v1.41' ? 'private gives a namespace of its own, host shares the host\'s' : 'ignored'}`, async () => {
      const hostNs = `${readlinkSync('/proc/self/ns/cgroup')}\n`;
      const nsOf = async (mode: string) => {
        const id = await create(prefix, { Cmd: ['readlink', '/proc/self/ns/cgroup'], HostConfig: { CgroupnsMode: mode } });
        const stored = (await inspect(prefix, id)).HostConfig.CgroupnsMode;
        return { stored, ns: await output(id) };
      };
      const host = await nsOf('host');
      assert.deepEqual(host, { stored: 'host', ns: hostNs });
      const priv = await nsOf('private');
      if (prefix === '/v1.41') {
        assert.equal(priv.stored, 'private');
        assert.match(priv.ns, /^cgroup:\[\d+\]\n$/);
        assert.notEqual(priv.ns, hostNs);
        assert.deepEqual(await createError(prefix, { HostConfig: { CgroupnsMode: 'bogus' } }), { status: 400, message: 'invalid cgroup namespace mode: bogus' });
      } else {
        // the daemon's default on cgroup v1 is host
        assert.deepEqual(priv, { stored: 'host', ns: hostNs });
        const bogus = await create(prefix, { Cmd: ['true'], HostConfig: { CgroupnsMode: 'bogus' } });
        await d.docker(['rm', bogus]);
      }
    });
  }

  test('nothing is left', async () => {
    assert.deepEqual((await d.request('GET', '/containers/json?all=1')).json(), []);
  });
});
