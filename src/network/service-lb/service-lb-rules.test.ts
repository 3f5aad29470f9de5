// The rule sets of the VIPs and the routing mesh, as iptables-restore gets them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { restoreText } from './chain-set.js';
import { ingressHostChains } from './ingress-host.js';
import { ingressSandboxChains } from './ingress-sandbox.js';
import { parseIptablesSave } from './saved-tables.js';
import { serviceVipChains } from './service-vips.js';

const EMPTY = parseIptablesSave('*nat\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n');

describe('service VIP rules', () => {
  it('balances a VIP over its backends in any order, and refuses one without backends', () => {
    const text = restoreText(EMPTY, serviceVipChains([
      { vip: '10.0.1.2', backends: ['10.0.1.4', '10.0.1.3'] },
      { vip: '10.0.1.9', backends: [] },
    ]));
    assert.equal(text, [
      '*nat',
      ':BERTH-VIPS - [0:0]',
      ':BERTH-VIP-10.0.1.2 - [0:0]',
      '-A BERTH-VIPS -d 10.0.1.2/32 -j BERTH-VIP-10.0.1.2',
      '-A BERTH-VIP-10.0.1.2 -m statistic --mode random --probability 0.50000000000 -j DNAT --to-destination 10.0.1.3',
      '-A BERTH-VIP-10.0.1.2 -j DNAT --to-destination 10.0.1.4',
      '-A OUTPUT -j BERTH-VIPS',
      'COMMIT',
      '*filter',
      ':BERTH-VIP-REJECT - [0:0]',
      '-A BERTH-VIP-REJECT -d 10.0.1.9/32 -p tcp -j REJECT --reject-with tcp-reset',
      '-A BERTH-VIP-REJECT -d 10.0.1.9/32 -j REJECT --reject-with icmp-port-unreachable',
      '-I OUTPUT 1 -j BERTH-VIP-REJECT',
      'COMMIT',
      '',
    ].join('\n'));
  });

  it('is nothing at all without VIPs', () => {
    assert.equal(restoreText(EMPTY, serviceVipChains([])), undefined);
  });
});

describe('routing mesh rules', () => {
  it('DNATs each published port in the sandbox to a backend at the target port, SNATs it, refuses ports without backends', () => {
    const text = restoreText(EMPTY, ingressSandboxChains('10.255.0.2', [
      { protocol: 'tcp', publishedPort: 8080, targetPort: 80, backends: ['10.255.0.5', '10.255.0.6'] },
      { protocol: 'udp', publishedPort: 5353, targetPort: 53, backends: [] },
    ]));
    assert.equal(text, [
      '*nat',
      ':BERTH-INGRESS-SBX - [0:0]',
      ':BERTH-INGRESS-SBX-TCP-8080 - [0:0]',
      ':BERTH-INGRESS-SBX-SNAT - [0:0]',
      '-A BERTH-INGRESS-SBX -p tcp -m tcp --dport 8080 -j BERTH-INGRESS-SBX-TCP-8080',
      '-A BERTH-INGRESS-SBX-TCP-8080 -p tcp -m statistic --mode random --probability 0.50000000000 -j DNAT --to-destination 10.255.0.5:80',
      '-A BERTH-INGRESS-SBX-TCP-8080 -p tcp -j DNAT --to-destination 10.255.0.6:80',
      '-A BERTH-INGRESS-SBX-SNAT -m conntrack --ctstate DNAT -j SNAT --to-source 10.255.0.2',
      '-A PREROUTING -j BERTH-INGRESS-SBX',
      '-A POSTROUTING -j BERTH-INGRESS-SBX-SNAT',
      'COMMIT',
      '*filter',
      ':BERTH-INGRESS-SBX-REJECT - [0:0]',
      '-A BERTH-INGRESS-SBX-REJECT -p udp -m udp --dport 5353 -j REJECT --reject-with icmp-port-unreachable',
      '-I INPUT 1 -j BERTH-INGRESS-SBX-REJECT',
      'COMMIT',
      '',
    ].join('\n'));
  });

  it('DNATs the node\'s local addresses on a published port to the sandbox, lets it through, masquerades the node\'s own', () => {
    const text = restoreText(EMPTY, ingressHostChains({ sandboxAddress: '172.18.0.2', sandboxLink: 'berth_gwbridge', ports: [{ protocol: 'tcp', publishedPort: 8080 }] }));
    assert.equal(text, [
      '*nat',
      ':BERTH-INGRESS - [0:0]',
      ':BERTH-INGRESS-LOCAL - [0:0]',
      '-A BERTH-INGRESS -p tcp -m tcp --dport 8080 -j DNAT --to-destination 172.18.0.2:8080',
      '-A BERTH-INGRESS-LOCAL -d 172.18.0.2/32 -o berth_gwbridge -m addrtype --src-type LOCAL -j MASQUERADE',
      '-A PREROUTING -m addrtype --dst-type LOCAL -j BERTH-INGRESS',
      '-A OUTPUT -m addrtype --dst-type LOCAL -j BERTH-INGRESS',
      '-A POSTROUTING -j BERTH-INGRESS-LOCAL',
      'COMMIT',
      '*filter',
      ':BERTH-INGRESS - [0:0]',
      '-A BERTH-INGRESS -d 172.18.0.2/32 -p tcp -m tcp --dport 8080 -j ACCEPT',
      '-A BERTH-INGRESS -s 172.18.0.2/32 -p tcp -m tcp --sport 8080 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
      '-I FORWARD 1 -j BERTH-INGRESS',
      'COMMIT',
      '',
    ].join('\n'));
  });
});
