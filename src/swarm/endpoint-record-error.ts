import { EngineError } from '../errors.js';

/**
 * An EndpointRecord (or a PortConfig inside one) that cannot be decoded, encoded or admitted.
 * A bad record is bad input wherever it comes from, so it maps to 400.
 */
export class InvalidEndpointRecordError extends EngineError {
  /** Where in the input the problem lies, for binary input. */
  readonly offset: number | undefined;

  constructor(message: string, offset?: number) {
    super('invalidParameter', offset === undefined ? message : `${message} (at byte ${offset})`);
    this.name = 'InvalidEndpointRecordError';
    this.offset = offset;
  }
}
