import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeImageConfig, type ImageRuntimeConfig } from './merge-image-config.js';
import type { ContainerConfig } from './types.js';

// the bb:full image the reference engine built for these checks
const full: ImageRuntimeConfig = {
  User: 'nobody',
  ExposedPorts: { '53/udp': {}, '80/tcp': {} },
  Env: ['PATH=/usr/bin:/bin', 'A=1', 'B=2'],
  Cmd: ['sh', '-c', 'echo hi'],
  Volumes: { '/data': {} },
  WorkingDir: '/srv',
  Labels: { both: 'img', img: '1' },
  StopSignal: 'SIGUSR1',
  Healthcheck: { Test: ['CMD-SHELL', 'true'], Interval: 5000000000, Retries: 4 },
  OnBuild: ['RUN echo x'],
  Shell: ['/bin/sh', '-xc'],
};
const withEntrypoint: ImageRuntimeConfig = { Entrypoint: ['/bin/echo', 'ep'], Cmd: ['a'] };

function merged(c: ContainerConfig, image: ImageRuntimeConfig | null = full): ContainerConfig {
  mergeImageConfig(c, image);
  return c;
}

describe('mergeImageConfig', () => {
  it("takes the image's settings when the container gives none", () => {
    const c = merged({ Image: 'bb:full' });
    assert.equal(c.User, 'nobody');
    assert.equal(c.WorkingDir, '/srv');
    assert.equal(c.StopSignal, 'SIGUSR1');
    assert.deepEqual(c.Cmd, ['sh', '-c', 'echo hi']);
    assert.deepEqual(c.Env, full.Env);
    assert.deepEqual(c.Volumes, { '/data': {} });
    assert.deepEqual(c.Healthcheck, full.Healthcheck);
  });
  it("keeps the container's own User, WorkingDir and StopSignal", () => {
    const c = merged({ User: 'root', WorkingDir: '/w', StopSignal: 'SIGINT' });
    assert.deepEqual([c.User, c.WorkingDir, c.StopSignal], ['root', '/w', 'SIGINT']);
  });
  it('merges Env by key, the container first and winning (a bare name counts as its key)', () => {
    assert.deepEqual(merged({ Env: ['A=9', 'C=3', 'B'] }).Env, ['A=9', 'C=3', 'B', 'PATH=/usr/bin:/bin']);
    assert.deepEqual(merged({ Env: ['PATH=/x', 'a=1'] }).Env, ['PATH=/x', 'a=1', 'A=1', 'B=2']);
  });
  it("takes the image's Env, ExposedPorts and Volumes for empty ones", () => {
    const c = merged({ Env: [], ExposedPorts: {}, Volumes: {} });
    assert.deepEqual(c.Env, full.Env);
    assert.deepEqual(c.ExposedPorts, full.ExposedPorts);
    assert.deepEqual(c.Volumes, full.Volumes);
  });
  it('unites ExposedPorts and Volumes', () => {
    const c = merged({ ExposedPorts: { '8080/tcp': {} }, Volumes: { '/v2': {} } });
    assert.deepEqual(Object.keys(c.ExposedPorts ?? {}).sort(), ['53/udp', '80/tcp', '8080/tcp']);
    assert.deepEqual(Object.keys(c.Volumes ?? {}).sort(), ['/data', '/v2']);
  });
  it("lays the container's labels over the image's, and makes Labels an object", () => {
    assert.deepEqual(merged({ Labels: { both: 'ctr', c: 'x' } }).Labels, { both: 'ctr', img: '1', c: 'x' });
    assert.deepEqual(merged({ Labels: null }, { Cmd: ['sh'] }).Labels, {});
  });
  it("fills the container's Healthcheck fields that are unset from the image's", () => {
    assert.deepEqual(merged({ Healthcheck: { Timeout: 2000000000 } }).Healthcheck, {
      Test: ['CMD-SHELL', 'true'], Interval: 5000000000, Timeout: 2000000000, StartPeriod: undefined, Retries: 4,
    });
    assert.deepEqual(merged({ Healthcheck: { Test: ['NONE'] } }).Healthcheck?.Test, ['NONE']);
  });
  it('does not take Shell or OnBuild from the image (the reference leaves them unset)', () => {
    const c = merged({});
    assert.equal(c.Shell, undefined);
    assert.equal(c.OnBuild, undefined);
  });
  it("keeps the image's entrypoint under a command of the container's own", () => {
    const c = merged({ Cmd: ['b'] }, withEntrypoint);
    assert.deepEqual([c.Entrypoint, c.Cmd], [['/bin/echo', 'ep'], ['b']]);
  });
  it("drops the image's command under an entrypoint of the container's own", () => {
    const c = merged({ Entrypoint: ['x'] }, withEntrypoint);
    assert.deepEqual([c.Entrypoint, c.Cmd], [['x'], undefined]);
  });
  it("keeps an empty entrypoint, which takes the image's command but not its entrypoint", () => {
    const c = merged({ Entrypoint: [], Cmd: [] }, withEntrypoint);
    assert.deepEqual([c.Entrypoint, c.Cmd], [[], ['a']]);
  });
  it('resets an entrypoint of one empty string, which leaves no command (as on the reference)', () => {
    assert.throws(() => merged({ Entrypoint: [''] }, withEntrypoint), { kind: 'invalidParameter', message: 'No command specified' });
    const c = merged({ Entrypoint: [''], Cmd: ['sh'] }, withEntrypoint);
    assert.deepEqual([c.Entrypoint, c.Cmd], [null, ['sh']]);
  });
  it('refuses a container with no command at all', () => {
    assert.throws(() => merged({}, {}), { kind: 'invalidParameter', message: 'No command specified' });
    assert.throws(() => merged({}, null), { kind: 'invalidParameter', message: 'No command specified' });
  });
  it('takes ArgsEscaped along with the image command', () => {
    assert.equal(merged({}, { Cmd: ['x'], ArgsEscaped: true }).ArgsEscaped, true);
  });
});
