// The recurring image errors, worded as dockerd words them (clients match on the text).
import { EngineError } from '../errors.js';

export class NoSuchImageError extends EngineError {
  constructor(ref: string) {
    super('notFound', `No such image: ${ref}`);
    this.name = 'NoSuchImageError';
  }
}
