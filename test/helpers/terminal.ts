// Runs a command on a terminal of its own (script(1)), as the docker CLI wants for -it.
import { spawn } from 'node:child_process';

/** Types each input a second apart (the first after 1.5 s); the command's exit code and output. */
export function inTerminal(command: string, inputs: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('close', (code) => resolve({ code, out }));
    inputs.forEach((input, i) => setTimeout(() => p.stdin.write(input), 1500 + i * 1000));
    setTimeout(() => p.stdin.end(), 2500 + inputs.length * 1000);
  });
}
