// The command runner's process (command-runner.ts): runs each command berthd sends, as its own
// child, and answers with how it ended. It exits the moment berthd goes, as if it were berthd:
// its commands are orphaned then as berthd's own children would be, and those started to die
// with their parent (setpriv --pdeathsig, a volume's copy-up) die.
import { executeHere } from './child-process.js';
import type { RunnerMessage, RunnerReply } from './command-runner.js';

const running = new Map<number, AbortController>();

process.on('message', (message: RunnerMessage) => {
  if ('abort' in message) {
    running.get(message.id)?.abort();
    return;
  }
  const { id, request } = message;
  const aborted = new AbortController();
  running.set(id, aborted);
  void executeHere(request, aborted.signal).then((outcome) => {
    running.delete(id);
    if (process.connected) process.send?.({ id, outcome } satisfies RunnerReply);
  });
});

process.on('disconnect', () => process.exit(0));
