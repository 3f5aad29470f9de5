// The swarm's operations on a node outside any swarm, against a real berthd: the codes and
// messages dockerd 20.10 gives on such a node (checked on the reference engine), through the API
// at 1.41 and 1.25, and through the docker CLI as its users see them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';

const NOT_MANAGER = 'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';

const MANAGER_CALLS: Array<[method: string, path: string]> = [
  ['GET', '/swarm'],
  ['POST', '/swarm/update?version=1'],
  ['GET', '/swarm/unlockkey'],
  ['POST', '/swarm/unlock'],
  ['GET', '/nodes'],
  ['GET', '/nodes/x'],
  ['DELETE', '/nodes/x'],
  ['POST', '/nodes/x/update?version=1'],
  ['GET', '/services'],
  ['POST', '/services/create'],
  ['GET', '/services/x'],
  ['DELETE', '/services/x'],
  ['POST', '/services/x/update?version=1'],
  ['GET', '/services/x/logs?stdout=1'],
  ['GET', '/tasks'],
  ['GET', '/tasks/x'],
  ['GET', '/tasks/x/logs?stdout=1'],
  ['GET', '/secrets'],
  ['POST', '/secrets/create'],
  ['GET', '/secrets/x'],
  ['DELETE', '/secrets/x'],
  ['POST', '/secrets/x/update?version=1'],
  ['GET', '/configs'],
  ['POST', '/configs/create'],
  ['GET', '/configs/x'],
  ['DELETE', '/configs/x'],
  ['POST', '/configs/x/update?version=1'],
];

describe('swarm operations on a node outside any swarm', () => {
  let d: Berthd;
  before(async () => {
    d = await Berthd.start();
  });
  after(async () => {
    await d?.stop();
  });

  it("answers every manager call 503 with dockerd's message, at 1.41 and 1.25", async () => {
    for (const prefix of ['', '/v1.41', '/v1.25']) {
      for (const [method, path] of MANAGER_CALLS) {
        const r = await d.request(method, `${prefix}${path}`, { json: {} });
        assert.equal(r.status, 503, `${method} ${prefix}${path}: ${r.body.toString()}`);
        assert.deepEqual(r.json(), { message: NOT_MANAGER }, `${method} ${prefix}${path}`);
      }
    }
  });

  it("answers a leave, and berth's debug view of a network's tables, 503: the node is in no swarm", async () => {
    for (const [method, path] of [['POST', '/swarm/leave?force=1'], ['GET', '/debug/networks/x/tables/endpoint_table']] as const) {
      const r = await d.request(method, path);
      assert.equal(r.status, 503, `${method} ${path}`);
      assert.deepEqual(r.json(), { message: 'This node is not part of a swarm' }, `${method} ${path}`);
    }
  });

  it('says so through the docker CLI, as with dockerd', async () => {
    const cases: Array<[args: string[], stderr: string]> = [
      [['node', 'ls'], NOT_MANAGER],
      [['service', 'ls'], NOT_MANAGER],
      [['secret', 'ls'], NOT_MANAGER],
      [['swarm', 'join-token', 'worker'], NOT_MANAGER],
      [['swarm', 'leave'], 'This node is not part of a swarm'],
    ];
    for (const [args, message] of cases) {
      const r = await d.docker(args);
      assert.notEqual(r.code, 0, `docker ${args.join(' ')} succeeded`);
      assert.match(r.stderr, new RegExp(`Error response from daemon: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `docker ${args.join(' ')}: ${r.stderr}`);
    }
  });
});
