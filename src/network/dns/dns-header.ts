// The fixed 12-byte header every DNS message starts with (RFC 1035 4.1.1), read in place. The
// server screens a datagram by it before decoding anything, and checks an upstream's answer by it
// without decoding records it only relays; encoding and decoding messages is dns-packet's.

export const HEADER_BYTES = 12;

/** Header flag bits, in the 16-bit word after the ID. */
export const Flag = {
  response: 0x8000,
  opcode: 0x7800,
  truncated: 0x0200,
  recursionDesired: 0x0100,
  recursionAvailable: 0x0080,
  checkingDisabled: 0x0010,
  rcode: 0x000f,
} as const;

export const Rcode = { noError: 0, formErr: 1, servFail: 2, nxDomain: 3, notImp: 4, refused: 5 } as const;
export type Rcode = (typeof Rcode)[keyof typeof Rcode];

export interface DnsHeader {
  id: number;
  flags: number;
  questions: number;
  answers: number;
  authorities: number;
  additionals: number;
}

/** undefined for a message too short to hold a header. */
export function readHeader(message: Buffer): DnsHeader | undefined {
  if (message.length < HEADER_BYTES) return undefined;
  return {
    id: message.readUInt16BE(0),
    flags: message.readUInt16BE(2),
    questions: message.readUInt16BE(4),
    answers: message.readUInt16BE(6),
    authorities: message.readUInt16BE(8),
    additionals: message.readUInt16BE(10),
  };
}
