// Swarm object IDs as swarmkit makes them (identity.NewID): 16 random bytes, the top bit set so
// that every ID has the same length, written in base 36 and padded to 25 characters.
import { randomBytes } from 'node:crypto';

const ID_LENGTH = 25;

export function newSwarmId(): string {
  const bytes = randomBytes(16);
  bytes[0]! |= 0x80;
  return base36(bytes, ID_LENGTH);
}

/** `bytes` as an unsigned big-endian number in base 36, zero-padded to `width` (Go's %0*s of big.Int.Text(36)). */
export function base36(bytes: Uint8Array, width: number): string {
  return BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`).toString(36).padStart(width, '0');
}
