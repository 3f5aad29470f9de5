import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { decodeNetworkCreate } from './create-request.js';

function failure(body: unknown): { kind: string; message: string } {
  try {
    decodeNetworkCreate(body);
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return { kind: err.kind, message: err.message };
  }
  assert.fail('no error');
}

describe('decodeNetworkCreate', () => {
  it('reads every field, keys without case, a later key winning', () => {
    const req = decodeNetworkCreate({
      name: 'n',
      CheckDuplicate: true,
      DRIVER: 'macvlan',
      EnableIPv6: true,
      IPAM: { Driver: 'default', Config: [{ Subnet: '10.0.0.0/24', IPRange: '10.0.0.128/25', Gateway: '10.0.0.1', AuxiliaryAddresses: { a: '10.0.0.2' } }, null], Options: { x: 'y' } },
      Internal: true,
      attachable: true,
      Options: { parent: 'eth0' },
      labels: { a: 'b' },
      Labels: null,
      Unknown: 5,
    });
    assert.deepEqual(req, {
      name: 'n',
      checkDuplicate: true,
      driver: 'macvlan',
      scope: '',
      enableIPv6: true,
      ipam: {
        driver: 'default',
        config: [
          { subnet: '10.0.0.0/24', ipRange: '10.0.0.128/25', gateway: '10.0.0.1', auxAddresses: { a: '10.0.0.2' } },
          { subnet: '', ipRange: '', gateway: '', auxAddresses: null },
        ],
        options: { x: 'y' },
      },
      internal: true,
      attachable: true,
      ingress: false,
      configOnly: false,
      configFrom: null,
      options: { parent: 'eth0' },
      labels: null,
    });
  });

  it("answers a missing body and JSON of the wrong type in dockerd's words", () => {
    assert.deepEqual(failure(undefined), { kind: 'invalidParameter', message: 'got EOF while reading request body' });
    assert.equal(decodeNetworkCreate(null).name, '');
    const cases: Array<[unknown, string]> = [
      [[], 'json: cannot unmarshal array into Go value of type types.NetworkCreateRequest'],
      [{ Name: 5 }, 'json: cannot unmarshal number into Go struct field NetworkCreateRequest.Name of type string'],
      [{ Internal: 'yes' }, 'json: cannot unmarshal string into Go struct field NetworkCreateRequest.Internal of type bool'],
      [{ Labels: { a: 1 } }, 'json: cannot unmarshal number into Go struct field NetworkCreateRequest.Labels of type string'],
      [{ IPAM: { Config: {} } }, 'json: cannot unmarshal object into Go struct field IPAM.IPAM.Config of type []network.IPAMConfig'],
      [{ IPAM: { Config: [{ Subnet: 1 }] } }, 'json: cannot unmarshal number into Go struct field IPAMConfig.IPAM.Config.Subnet of type string'],
      [{ IPAM: 'x' }, 'json: cannot unmarshal string into Go struct field NetworkCreateRequest.IPAM of type network.IPAM'],
    ];
    for (const [body, message] of cases) assert.deepEqual(failure(body), { kind: 'invalidParameter', message }, JSON.stringify(body));
  });
});
