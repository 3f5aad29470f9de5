// A Dockerfile dockerd refuses: it cannot be parsed, an instruction is malformed, or a word
// cannot be expanded. The message is dockerd's, word for word (the CLI shows it as is).
import { EngineError } from '../../errors.js';

export class DockerfileError extends EngineError {
  constructor(message: string) {
    super('invalidParameter', message);
    this.name = 'DockerfileError';
  }
}
