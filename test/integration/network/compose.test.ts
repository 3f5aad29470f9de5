// docker-compose (Debian's 1.29, through docker-py) against berthd: a project of two services on a
// network of its own comes up, the client finds the web service by its service name, and
// `docker-compose down` removes the containers, the network and its bridge.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { links, sh } from '../../helpers/network-probes.js';
import { until } from '../../helpers/until.js';

const PROJECT = 'berthnet';

const COMPOSE_FILE = `version: "3.8"
services:
  web:
    image: busybox
    command: ["sh", "-c", "mkdir -p /www && echo from-compose-web > /www/index.html && exec httpd -f -p 80 -h /www"]
    networks: [front]
    # httpd as PID 1 ignores SIGTERM: no need to wait the 10 s for SIGKILL
    stop_grace_period: 1s
  client:
    image: busybox
    command: ["sh", "-c", "until wget -qO- http://web/; do sleep 0.2; done; exec sleep 600"]
    depends_on: [web]
    networks: [front]
    stop_grace_period: 1s
networks:
  front: {}
`;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

describe('docker-compose', () => {
  let d: Berthd;
  let file: string;

  function compose(...args: string[]): Promise<Result> {
    return new Promise((resolve) => {
      execFile('docker-compose', ['-p', PROJECT, '-f', file, ...args], { env: { ...process.env, DOCKER_HOST: d.dockerHost, DOCKER_CONFIG: path.join(d.dir, 'docker-config') }, timeout: 120_000 }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      });
    });
  }

  before(async () => {
    d = await startWithBusybox();
    file = path.join(d.dir, 'docker-compose.yml');
    writeFileSync(file, COMPOSE_FILE);
  });
  after(async () => {
    await compose('down');
    await teardown(d);
  });

  it('brings up two services on their network, which find each other by service name', async () => {
    const up = await compose('up', '-d');
    assert.equal(up.code, 0, up.stderr);
    const names = (await d.docker(['ps', '--format', '{{.Names}}'])).stdout.trim().split('\n').sort();
    assert.deepEqual(names, [`${PROJECT}_client_1`, `${PROJECT}_web_1`]);
    const networks = (await d.docker(['network', 'ls', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.Name}}'])).stdout.trim();
    assert.equal(networks, `${PROJECT}_front`);
    // the client's loop ends once the web service answered it by name
    await until('the client to reach web', async () => (await compose('logs', '--no-color', 'client')).stdout, (out) => out.includes('from-compose-web'));
    const got = await sh(d, `${PROJECT}_client_1`, 'wget -qO- http://web/');
    assert.equal(got.stdout.trim(), 'from-compose-web', got.stderr);
    // compose names the container after its service on the network: an alias
    const byContainerName = await sh(d, `${PROJECT}_client_1`, `wget -qO- http://${PROJECT}_web_1/`);
    assert.equal(byContainerName.stdout.trim(), 'from-compose-web', byContainerName.stderr);
  });

  it('down removes the containers, the network and its bridge', async () => {
    const id = (await d.docker(['network', 'inspect', '-f', '{{.Id}}', `${PROJECT}_front`])).stdout.trim();
    const bridge = `br-${id.slice(0, 12)}`;
    assert.ok(links(d.netns!).some((l) => l.ifname === bridge));
    const down = await compose('down');
    assert.equal(down.code, 0, down.stderr);
    assert.equal((await d.docker(['ps', '-a', '-q'])).stdout.trim(), '');
    const left = (await d.docker(['network', 'ls', '--format', '{{.Name}}'])).stdout.trim().split('\n').sort();
    assert.deepEqual(left, ['bridge', 'host', 'none']);
    assert.ok(!links(d.netns!).some((l) => l.ifname === bridge), 'the bridge went with the network');
  });
});
