// An RFC 1123 label, the rule for a service port's name, which will stand in the DNS SRV name
// `_<name>._<proto>.<service>`: 1–63 letters, digits and hyphens, starting and ending with a letter
// or digit. Upper case is a label's (DNS compares names without case). An underscore is not: SRV
// names put one before the label themselves, and RFC 6335 service names have none.
const DNS_LABEL = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

export const DNS_LABEL_RULE = 'at most 63 letters, digits and hyphens, starting and ending with a letter or digit';

export function isDnsLabel(name: string): boolean {
  return DNS_LABEL.test(name);
}
