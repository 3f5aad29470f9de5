import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateExtraHosts, validateNetworkMode, validateNetworkingConfig, validatePortBindings } from './validate-network.js';

const bad = (message: string) => ({ kind: 'invalidParameter', message });

describe('validateNetworkMode', () => {
  it('refuses options the network or UTS mode excludes, in dockerd words', () => {
    const c = 'container:abc';
    assert.throws(() => validateNetworkMode({}, { NetworkMode: 'container:' }), bad('Invalid network mode: invalid container format container:<name|id>'));
    assert.throws(() => validateNetworkMode({ Hostname: 'x' }, { NetworkMode: c }), bad('conflicting options: hostname and the network mode'));
    assert.throws(() => validateNetworkMode({}, { NetworkMode: c, Links: ['a:b'] }), bad("conflicting options: container type network can't be used with links. This would result in undefined behavior"));
    assert.throws(() => validateNetworkMode({}, { NetworkMode: c, Dns: ['1.1.1.1'] }), bad('conflicting options: dns and the network mode'));
    assert.throws(() => validateNetworkMode({}, { NetworkMode: c, ExtraHosts: ['a:1.2.3.4'] }), bad('conflicting options: custom host-to-IP mapping and the network mode'));
    assert.throws(() => validateNetworkMode({ MacAddress: 'x' }, { NetworkMode: 'host' }), bad('conflicting options: mac-address and the network mode'));
    assert.throws(() => validateNetworkMode({}, { NetworkMode: c, PublishAllPorts: true }), bad('conflicting options: port publishing and the container type network mode'));
    assert.throws(() => validateNetworkMode({ ExposedPorts: { '80/tcp': {} } }, { NetworkMode: c }), bad('conflicting options: port exposing and the container type network mode'));
    assert.throws(() => validateNetworkMode({ Hostname: 'x' }, { UTSMode: 'host' }), bad('conflicting options: hostname and the UTS mode'));
    assert.throws(() => validateNetworkMode({}, { NetworkMode: 'host', Links: ['a:b'] }), bad("conflicting options: host type networking can't be used with links. This would result in undefined behavior"));
  });
  it('accepts a named network it has not looked up, as dockerd at create', () => {
    validateNetworkMode({ Hostname: 'x' }, { NetworkMode: 'nosuchnet', Links: ['a:b'] });
  });
});

describe('validatePortBindings', () => {
  it('accepts ports, ranges of host ports and empty host ports', () => {
    validatePortBindings({ '80/tcp': [{ HostPort: '8080-8090' }, { HostPort: '' }, {}], '81': [{ HostPort: '81' }], '82/udp': null });
  });
  it('refuses a bad container or host port', () => {
    assert.throws(() => validatePortBindings({ 'abc/tcp': [{ HostPort: '80' }] }), bad('invalid port specification: "abc"'));
    assert.throws(() => validatePortBindings({ '80/tcp': [{ HostPort: 'abc' }] }), bad('invalid port specification: "abc"'));
    assert.throws(() => validatePortBindings({ '70000/tcp': [] }), bad('invalid port specification: "70000"'));
    assert.throws(() => validatePortBindings({ '80/tcp': [{ HostPort: '90-80' }] }), bad('invalid port specification: "90-80"'));
  });
});

describe('validateExtraHosts', () => {
  it('accepts host:ip and host:host-gateway', () => validateExtraHosts(['h:1.2.3.4', 'g:host-gateway', 'v6:::1']));
  it('refuses a malformed entry or a bad address', () => {
    assert.throws(() => validateExtraHosts(['bad']), bad('bad format for add-host: "bad"'));
    assert.throws(() => validateExtraHosts([':1.2.3.4']), bad('bad format for add-host: ":1.2.3.4"'));
    assert.throws(() => validateExtraHosts(['h:notip']), bad('invalid IP address in add-host: "notip"'));
  });
});

describe('validateNetworkingConfig', () => {
  it('refuses more than one endpoint, a null one and bad addresses', () => {
    assert.throws(() => validateNetworkingConfig({ EndpointsConfig: { a: {}, b: {} } }), bad('Container cannot be connected to network endpoints: a, b'));
    assert.throws(() => validateNetworkingConfig({ EndpointsConfig: { a: null as never } }), bad('no EndpointSettings for a'));
    assert.throws(() => validateNetworkingConfig({ EndpointsConfig: { a: { IPAMConfig: { IPv4Address: 'x' } } } }), bad('invalid IPv4 address: x'));
    assert.throws(() => validateNetworkingConfig({ EndpointsConfig: { a: { IPAMConfig: { IPv6Address: '1.2.3.4' } } } }), bad('invalid IPv6 address: 1.2.3.4'));
  });
  it('accepts one endpoint with good addresses', () => {
    validateNetworkingConfig({ EndpointsConfig: { a: { IPAMConfig: { IPv4Address: '10.0.0.2', IPv6Address: 'fd00::2' } } } });
    validateNetworkingConfig({});
  });
});
