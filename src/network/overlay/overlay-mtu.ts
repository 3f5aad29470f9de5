// An overlay network's MTU from its driver option, as libnetwork's overlay driver reads it: a
// decimal integer, 0 or absent meaning the default, 1500 less VXLAN's 50 bytes of encapsulation.
import { invalidParameter } from '../../errors.js';

export const MTU_OPTION = 'com.docker.network.driver.mtu';
const DEFAULT_MTU = 1450;

export function overlayMtu(options: Readonly<Record<string, string>>): number {
  const text = options[MTU_OPTION];
  if (text === undefined) return DEFAULT_MTU;
  if (!/^[+-]?\d+$/.test(text)) throw invalidParameter(`failed to parse ${text}: strconv.Atoi: parsing "${text}": invalid syntax`);
  const mtu = Number(text);
  if (mtu < 0) throw invalidParameter(`invalid MTU value: ${mtu}`);
  return mtu === 0 ? DEFAULT_MTU : mtu;
}
