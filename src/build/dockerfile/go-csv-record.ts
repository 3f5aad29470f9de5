// One record of Go's encoding/csv Reader (default options, Go 1.19) from a single line, with its
// errors ("parse error on line 1, column 3: bare \" in non-quoted-field"; columns count bytes):
// RUN --mount's value is read with it.

const QUOTE = 0x22;
const COMMA = 0x2c;

export function readCsvRecord(text: string): string[] {
  let line = Buffer.from(text, 'utf8');
  // a \r before the end of input is dropped
  if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
  if (line.length === 0) throw new Error('EOF');
  const fields: string[] = [];
  let col = 1;
  for (;;) {
    if (line[0] !== QUOTE) {
      const i = line.indexOf(COMMA);
      const field = i >= 0 ? line.subarray(0, i) : line;
      const j = field.indexOf(QUOTE);
      if (j >= 0) throw csvError(col + j, 'bare " in non-quoted-field');
      fields.push(field.toString('utf8'));
      if (i < 0) return fields;
      line = line.subarray(i + 1);
      col += i + 1;
      continue;
    }
    line = line.subarray(1);
    col += 1;
    const parts: Buffer[] = [];
    for (;;) {
      const i = line.indexOf(QUOTE);
      // no closing quote before the end of input
      if (i < 0) throw csvError(col + line.length, 'extraneous or missing " in quoted-field');
      parts.push(line.subarray(0, i));
      line = line.subarray(i + 1);
      col += i + 1;
      if (line[0] === QUOTE) {
        // "" is a quote
        parts.push(line.subarray(0, 1));
        line = line.subarray(1);
        col += 1;
      } else if (line[0] === COMMA || line.length === 0) break;
      else throw csvError(col - 1, 'extraneous or missing " in quoted-field');
    }
    fields.push(Buffer.concat(parts).toString('utf8'));
    if (line.length === 0) return fields;
    line = line.subarray(1);
    col += 1;
  }
}

function csvError(column: number, message: string): Error {
  return new Error(`parse error on line 1, column ${column}: ${message}`);
}
