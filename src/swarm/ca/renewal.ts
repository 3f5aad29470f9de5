// When a node renews its certificate: once half its life has passed (swarmkit renews somewhere
// between half and four fifths of it), so that a node that was down a while still renews in time.
import { X509Certificate } from 'node:crypto';

export function renewalDue(certPem: string, nowMs = Date.now()): boolean {
  const cert = new X509Certificate(certPem);
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  return nowMs >= from + (to - from) / 2;
}
