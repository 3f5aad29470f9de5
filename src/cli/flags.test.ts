import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFlags } from './flags.js';

describe('parseFlags', () => {
  it('has dockerd-like defaults and reports nothing as given', () => {
    const { config, fromFlags } = parseFlags([], {});
    assert.equal(config.dataRoot, '/var/lib/berth');
    assert.equal(config.execRoot, '/run/berth');
    assert.equal(config.configFile, '/etc/berth/daemon.json');
    assert.deepEqual(config.hosts, []);
    assert.equal(config.tls, undefined);
    assert.equal(config.tlsVerify, false);
    assert.deepEqual(fromFlags, {});
  });
  it('takes repeatable -H and --label, and records what was given', () => {
    const { config, fromFlags } = parseFlags(['-H', 'unix:///a.sock', '--host=tcp://127.0.0.1:2375', '--label', 'a=b', '--data-root', '/d'], {});
    assert.deepEqual(config.hosts, ['unix:///a.sock', 'tcp://127.0.0.1:2375']);
    assert.deepEqual(config.labels, ['a=b']);
    assert.deepEqual(Object.keys(fromFlags).sort(), ['dataRoot', 'hosts', 'labels']);
  });
  it('takes the node port ranges, defaulting to swarm\'s', () => {
    assert.deepEqual([parseFlags([], {}).config.nodePortRange, parseFlags([], {}).config.dynamicNodePortRange], ['1-65535', '30000-32767']);
    const { config, fromFlags } = parseFlags(['--node-port-range', '1000-2000', '--dynamic-node-port-range=1500-1600'], {});
    assert.deepEqual([config.nodePortRange, config.dynamicNodePortRange], ['1000-2000', '1500-1600']);
    assert.deepEqual(Object.keys(fromFlags).sort(), ['dynamicNodePortRange', 'nodePortRange']);
  });
  it('reads booleans as pflag does', () => {
    assert.equal(parseFlags(['--tls=false'], {}).config.tls, false);
    assert.equal(parseFlags(['--tlsverify'], {}).config.tlsVerify, true);
    assert.equal(parseFlags(['-D'], {}).config.debug, true);
    assert.equal(parseFlags(['--debug=0'], {}).config.debug, false);
  });
  it('takes DOCKER_TLS_VERIFY and DOCKER_CERT_PATH from the environment', () => {
    const { config } = parseFlags([], { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/certs' });
    assert.equal(config.tlsVerify, true);
    assert.equal(config.tlsCaCert, '/certs/ca.pem');
    assert.equal(config.tlsKey, '/certs/key.pem');
  });
});
