// Stamps the build with its commit and time, for GET /version.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

let gitCommit = '';
try {
  gitCommit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
} catch {
  // not a git checkout, or no commit yet
}
writeFileSync(new URL('../dist/build-info.json', import.meta.url), JSON.stringify({ gitCommit, buildTime: new Date().toISOString() }) + '\n');
