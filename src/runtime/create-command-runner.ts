// The runtime's part of the daemon's start: the command runner (command-runner.ts), through which
// every command run to its end goes from then on. The returned function stops that.
import type { Logger } from 'pino';
import { useCommandExecutor } from './child-process.js';
import { CommandRunner } from './command-runner.js';

export function createCommandRunner({ log }: { log: Logger }): () => void {
  const runner = CommandRunner.start((why) => log.warn({ why }, 'command runner lost; the next command starts another'));
  useCommandExecutor(runner.execute);
  return () => {
    useCommandExecutor(undefined);
    runner.close();
  };
}
