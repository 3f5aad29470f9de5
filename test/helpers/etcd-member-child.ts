// A stand-in for berthd in etcd-member tests: starts an etcd member, prints its pid as one JSON
// line (or the error) and then waits to be killed.
// Usage: node etcd-member-child.js '<EtcdMemberOptions as JSON, without log>'
import pino from 'pino';
import { EtcdMember, type EtcdMemberOptions } from '../../src/runtime/etcd-member.js';

const member = new EtcdMember({ ...(JSON.parse(process.argv[2]) as Omit<EtcdMemberOptions, 'log'>), log: pino({ level: 'silent' }) });
try {
  await member.start();
  process.stdout.write(`${JSON.stringify({ pid: member.pid })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ error: String(err) })}\n`);
}
setInterval(() => {}, 60_000);
