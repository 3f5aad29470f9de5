// berth's own version and build, read once from package.json and the build's stamp.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

interface BuildInfo {
  gitCommit: string;
  buildTime: string;
}

function readBuildInfo(): BuildInfo {
  try {
    return JSON.parse(readFileSync(new URL('../build-info.json', import.meta.url), 'utf8')) as BuildInfo;
  } catch {
    return { gitCommit: '', buildTime: '' };
  }
}

export const BERTH_VERSION = pkg.version;
export const BUILD_INFO = readBuildInfo();
