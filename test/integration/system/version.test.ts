import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { VERSION_PREFIXES } from '../../helpers/api-versions.js';
import { Berthd } from '../../helpers/berthd.js';

const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };

let d: Berthd;
before(async () => {
  d = await Berthd.start();
});
after(() => d.stop());

for (const prefix of VERSION_PREFIXES) {
  describe(`GET ${prefix}/version`, () => {
    it("answers berth's version and the API range", async () => {
      const r = await d.request('GET', `${prefix}/version`);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      const v = r.json() as Record<string, unknown> & { Components: Array<{ Name: string; Version: string; Details: Record<string, string> }> };
      assert.equal(v.Version, pkg.version);
      assert.equal(v.ApiVersion, '1.41');
      assert.equal(v.MinAPIVersion, '1.25');
      assert.equal(v.Os, 'linux');
      assert.equal(v.Arch, process.arch === 'x64' ? 'amd64' : process.arch);
      assert.equal(v.KernelVersion, os.release());
      assert.deepEqual(v.Platform, { Name: 'berth' });
      const engine = v.Components.find((c) => c.Name === 'Engine');
      assert.ok(engine);
      assert.equal(engine.Version, pkg.version);
      assert.equal(engine.Details.ApiVersion, '1.41');
      assert.equal(engine.Details.MinAPIVersion, '1.25');
      assert.equal(engine.Details.Os, 'linux');
      // every key dockerd's answer has, at the top and in the Engine's details (docker-py looks for GoVersion)
      const dockerdTop = ['Platform', 'Components', 'Version', 'ApiVersion', 'MinAPIVersion', 'GitCommit', 'GoVersion', 'Os', 'Arch', 'KernelVersion', 'BuildTime'];
      assert.deepEqual(dockerdTop.filter((k) => !(k in v)), []);
      const dockerdDetails = ['ApiVersion', 'Arch', 'BuildTime', 'Experimental', 'GitCommit', 'GoVersion', 'KernelVersion', 'MinAPIVersion', 'Os'];
      assert.deepEqual(dockerdDetails.filter((k) => !(k in engine.Details)), []);
      assert.equal(v.GoVersion, `node${process.versions.node}`);
      assert.equal(engine.Details.GoVersion, v.GoVersion);
      // berth's init answers as dockerd's docker-init component
      assert.match(v.Components.find((c) => c.Name === 'docker-init')?.Version ?? '', /catatonit/);
    });
  });
}

it('docker version shows the server through the CLI', async () => {
  const r = await d.docker(['version', '--format', '{{.Server.Platform.Name}} {{.Server.Version}} {{.Server.APIVersion}} {{.Server.MinAPIVersion}} {{.Server.Os}}']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), `berth ${pkg.version} 1.41 1.25 linux`);
});

for (const apiVersion of ['1.25', '1.40']) {
  it(`docker version works with the CLI held to API ${apiVersion}`, async () => {
    const r = await d.docker(['version', '--format', '{{.Client.APIVersion}} {{.Server.Version}}'], { env: { DOCKER_API_VERSION: apiVersion } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `${apiVersion} ${pkg.version}`);
  });
}

it('a CLI asking for a newer API than 1.41 gets dockerd\'s refusal', async () => {
  const r = await d.docker(['version'], { env: { DOCKER_API_VERSION: '1.42' } });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /client version 1\.42 is too new\. Maximum supported API version is 1\.41/);
});

it('dockerode reads the version', async () => {
  const v = await new Docker({ socketPath: d.socket }).version();
  assert.equal(v.ApiVersion, '1.41');
  assert.equal(v.Version, pkg.version);
});
