// npm run fuzz -- [--seed N] [--runs M] [--only REGEX] [--short]: a fuzz run against a berthd of
// its own; prints progress, then the report as JSON, and exits 1 when it found failures.
import { parseArgs } from 'node:util';
import { runFuzz, startTarget, stopTarget } from './harness.js';
import { LONG_TRANSPORT, SHORT_TRANSPORT } from './transport.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    runs: { type: 'string', default: '2000' },
    only: { type: 'string' },
    short: { type: 'boolean', default: false },
    report: { type: 'string' },
  },
});
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const d = await startTarget();
console.log(`fuzzing berthd (pid ${d.proc.pid}) on ${d.socket}, seed ${seed}, ${values.runs} runs`);
let exitCode = 1;
try {
  const report = await runFuzz(d, {
    seed,
    runs: Number(values.runs),
    only: values.only === undefined ? undefined : new RegExp(values.only),
    transport: values.short ? SHORT_TRANSPORT : LONG_TRANSPORT,
    log: (line) => console.log(line),
  });
  const text = JSON.stringify(report, null, 2);
  if (values.report !== undefined) (await import('node:fs')).writeFileSync(values.report, text);
  console.log(text);
  const leaks = report.after.fds > report.baseline.fds + 5 || report.after.rssKiB > report.baseline.rssKiB + 100 * 1024;
  exitCode = report.failures.length === 0 && report.dockerRun.code === 0 && !leaks ? 0 : 1;
  console.log(`${report.requests} requests, ${report.transportCases.length} transport cases, ${report.failures.length} distinct failures, docker run exit ${report.dockerRun.code}${leaks ? ', LEAK' : ''}`);
} finally {
  await stopTarget(d);
}
process.exit(exitCode);
