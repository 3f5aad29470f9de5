// npm run crash -- [--seed N] [--kills K] [--clients C] [--min-run-ms A] [--max-run-ms B] [--report FILE]
// npm run soak -- [--seed N] [--minutes M] [--clients C] [--sample-s S] [--cpu-prof DIR] [--report FILE]
// The long runs of the crash and soak harnesses (test/crash/README.md): progress lines, then the
// report as JSON and a table; exit 1 when a check failed or the daemon misbehaved.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runCrash } from './harness.js';
import { crashTable, crashVerdict, soakTable, soakVerdict } from './report.js';
import { runSoak } from './soak.js';

const mode = process.argv[2];
const { values } = parseArgs({
  args: process.argv.slice(3),
  options: {
    seed: { type: 'string' },
    kills: { type: 'string', default: '50' },
    clients: { type: 'string', default: '20' },
    'min-run-ms': { type: 'string', default: '1000' },
    'max-run-ms': { type: 'string', default: '6000' },
    minutes: { type: 'string', default: '30' },
    'sample-s': { type: 'string', default: '10' },
    report: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const clients = Number(values.clients);
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

let failures: string[];
let text: string;
if (mode === 'crash') {
  log(`crash run: seed ${seed}, ${values.kills} kills, ${clients} clients`);
  const report = await runCrash({ seed, clients, kills: Number(values.kills), minRunMs: Number(values['min-run-ms']), maxRunMs: Number(values['max-run-ms']), log });
  text = JSON.stringify(report, null, 2);
  console.log(text);
  console.log(crashTable(report));
  failures = crashVerdict(report);
} else if (mode === 'soak') {
  log(`soak run: seed ${seed}, ${values.minutes} minutes, ${clients} clients`);
  const report = await runSoak({ seed, clients, minutes: Number(values.minutes), sampleEveryS: Number(values['sample-s']), cpuProfileDir: values['cpu-prof'], log });
  text = JSON.stringify(report, null, 2);
  console.log(text);
  console.log(soakTable(report));
  failures = soakVerdict(report);
} else {
  console.error('usage: run.js crash|soak [options] (test/crash/README.md)');
  process.exit(2);
}
if (values.report !== undefined) writeFileSync(values.report, text);
for (const f of failures) console.log(`FAILED: ${f}`);
console.log(failures.length === 0 ? 'PASSED' : `${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
