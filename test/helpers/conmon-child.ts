// A stand-in for berthd in runtime tests: starts a container under conmon, starts it with runc,
// prints the result as one JSON line and then waits to be killed.
// Usage: node conmon-child.js '<ConmonOptions as JSON>'
import { execFileSync } from 'node:child_process';
import { startUnderConmon, type ConmonOptions } from '../../src/runtime/conmon.js';

const opts = JSON.parse(process.argv[2]) as ConmonOptions;
try {
  const started = await startUnderConmon(opts);
  execFileSync(opts.runtimePath, ['--root', opts.runtimeRoot, 'start', opts.containerId]);
  process.stdout.write(`${JSON.stringify(started)}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ error: String(err) })}\n`);
}
setInterval(() => {}, 60_000);
