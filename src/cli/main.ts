// berthd's entry point: settings from flags and daemon.json, then the daemon, then signals.
import { checkConflicts, readConfigFile } from '../config/config-file.js';
import { effectiveLogLevel, type DaemonConfig } from '../config/daemon-config.js';
import { startDaemon } from '../daemon/daemon.js';
import { createLogger } from '../logging/logger.js';
import { parseMetricsAddress } from '../metrics/metrics-server.js';
import { parseNodePortRanges } from '../swarm/node-port-ranges.js';
import { parseFlags } from './flags.js';

function loadConfig(argv: string[]): { config: DaemonConfig; reread: () => DaemonConfig; validate: boolean } {
  const { config: flagConfig, fromFlags, validate } = parseFlags(argv);
  const read = (): DaemonConfig => {
    const fromFile = readConfigFile(flagConfig.configFile, 'configFile' in fromFlags);
    checkConflicts(flagConfig.configFile, fromFile, fromFlags);
    const config = { ...flagConfig, ...fromFile };
    // checked now, so that a bad range stops berthd at start rather than the first swarm service
    parseNodePortRanges(config.nodePortRange, config.dynamicNodePortRange);
    if (config.metricsAddr !== '') parseMetricsAddress(config.metricsAddr);
    return config;
  };
  return { config: read(), reread: read, validate };
}

async function main(): Promise<void> {
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`berthd: ${(err as Error).message}\n`);
    process.exit(1);
  }
  if (loaded.validate) {
    // dockerd's --validate (Docker 23 on): the settings and daemon.json are fine, and nothing was started
    process.stderr.write('configuration OK\n');
    process.exit(0);
  }
  const log = await createLogger(effectiveLogLevel(loaded.config), loaded.config.logFormat);
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon(loaded.config, log);
  } catch (err) {
    log.fatal({ err }, 'berthd failed to start: %s', (err as Error).message);
    process.exit(1);
  }
  log.info({ pid: process.pid, dataRoot: loaded.config.dataRoot }, 'berthd has started');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    daemon.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => {
    log.info({ file: loaded.config.configFile }, 'got signal to reload configuration');
    try {
      daemon.reload(loaded.reread());
    } catch (err) {
      log.error({ err }, 'configuration not reloaded: %s', (err as Error).message);
    }
  });
}

await main();
