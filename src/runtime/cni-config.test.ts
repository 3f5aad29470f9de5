// What each plugin of a list reads on stdin, after the CNI 1.0.0 spec's section 3 and its
// appendix's examples, and the names the spec refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cniArgs, executionConfig, validateAttachment, type CniNetworkConfigList, type CniResult } from './cni-config.js';

const list: CniNetworkConfigList = {
  cniVersion: '1.0.0',
  name: 'dbnet',
  plugins: [
    { type: 'bridge', bridge: 'cni0', keyA: ['some more', 'plugin specific', 'configuration'], ipam: { type: 'host-local', subnet: '10.1.0.0/16', gateway: '10.1.0.1' }, dns: { nameservers: ['10.1.0.1'] } },
    { type: 'tuning', capabilities: { mac: true }, sysctl: { 'net.core.somaxconn': '500' } },
    { type: 'portmap', capabilities: { portMappings: true, bandwidth: false } },
  ],
};
const prevResult: CniResult = {
  cniVersion: '1.0.0',
  ips: [{ address: '10.1.0.5/16', gateway: '10.1.0.1', interface: 2 }],
  routes: [{ dst: '0.0.0.0/0' }],
  interfaces: [{ name: 'cni0', mac: '00:11:22:33:44:55' }, { name: 'veth3243', mac: '55:44:33:22:11:11' }, { name: 'eth0', mac: '99:88:77:66:55:44', sandbox: '/var/run/netns/blue' }],
  dns: { nameservers: ['10.1.0.1'] },
};
const capabilityArgs = { mac: '00:11:22:33:44:66', portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }], bandwidth: { ingressRate: 1 }, ips: ['10.1.0.9/16'] };

describe('CNI execution configuration', () => {
  it('gives the first plugin its entry with the name and version, and no prevResult', () => {
    assert.deepEqual(executionConfig(list, list.plugins[0], undefined, capabilityArgs), {
      cniVersion: '1.0.0',
      name: 'dbnet',
      type: 'bridge',
      bridge: 'cni0',
      keyA: ['some more', 'plugin specific', 'configuration'],
      ipam: { type: 'host-local', subnet: '10.1.0.0/16', gateway: '10.1.0.1' },
      dns: { nameservers: ['10.1.0.1'] },
    });
  });

  it('gives a chained plugin the previous result and the capability arguments it declares, without its capabilities', () => {
    assert.deepEqual(executionConfig(list, list.plugins[1], prevResult, capabilityArgs), {
      cniVersion: '1.0.0',
      name: 'dbnet',
      type: 'tuning',
      sysctl: { 'net.core.somaxconn': '500' },
      runtimeConfig: { mac: '00:11:22:33:44:66' },
      prevResult,
    });
    // a capability set to false is not one it takes
    assert.deepEqual(executionConfig(list, list.plugins[2], prevResult, capabilityArgs).runtimeConfig, { portMappings: capabilityArgs.portMappings });
  });

  it('leaves runtimeConfig out when the caller gives none of what the plugin declares', () => {
    const conf = executionConfig(list, list.plugins[2], prevResult, { mac: 'x' });
    assert.equal('runtimeConfig' in conf, false);
    assert.equal('capabilities' in conf, false);
  });

  it('joins CNI_ARGS with semicolons', () => {
    assert.equal(cniArgs({ IgnoreUnknown: '1', K8S_POD_NAME: 'web' }), 'IgnoreUnknown=1;K8S_POD_NAME=web');
    assert.equal(cniArgs(), '');
  });

  it('refuses the names the spec forbids', () => {
    const ok = { containerId: 'abc123', netns: '/run/berth/netns/abc123', ifName: 'eth0' };
    validateAttachment(list, ok);
    validateAttachment(list, { ...ok, ifName: 'a23456789012345', args: { IgnoreUnknown: '1' } });
    const refused: Array<[CniNetworkConfigList, typeof ok & { args?: Record<string, string> }, RegExp]> = [
      [{ ...list, name: '-net' }, ok, /^invalid CNI network name "-net"/],
      [{ ...list, plugins: [] }, ok, /^CNI network dbnet has no plugins$/],
      [{ ...list, plugins: [{ type: '../bin/sh' }] }, ok, /^invalid CNI plugin type "..\/bin\/sh"/],
      [list, { ...ok, containerId: 'a b' }, /^invalid container ID for CNI "a b"$/],
      [list, { ...ok, ifName: 'a234567890123456' }, /^invalid interface name "a234567890123456"/],
      [list, { ...ok, ifName: 'eth0:1' }, /^invalid interface name/],
      [list, { ...ok, ifName: '..' }, /^invalid interface name/],
      [list, { ...ok, args: { A: 'b;C=d' } }, /^invalid CNI argument "A=b;C=d"/],
    ];
    for (const [l, a, message] of refused) {
      assert.throws(() => validateAttachment(l, a), (err: Error & { kind?: string }) => message.test(err.message) && err.kind === 'invalidParameter', message.source);
    }
  });
});
