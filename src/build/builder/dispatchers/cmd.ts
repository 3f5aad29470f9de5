// CMD (dispatchCmd): the shell form runs in the stage's shell; the comment is Go's %q of the list.
import { goQuote } from '../../dockerfile/go-quote.js';
import type { CmdCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchCmd(b: StepRunner, state: DispatchState, c: CmdCommand): Promise<void> {
  const cmd = c.prependShell ? [...state.shell(), ...c.cmdLine] : [...c.cmdLine];
  state.runConfig.Cmd = cmd;
  state.runConfig.ArgsEscaped = false;
  await b.commit(state, `CMD ${goQuoteList(cmd)}`);
  if (c.cmdLine.length > 0) state.cmdSet = true;
}

/** Go's %q of a []string: ["a" "b"]. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(' ')}]`;
}
