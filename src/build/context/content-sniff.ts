// What a remote build context is when its server does not say (no Content-Type, or
// application/octet-stream): dockerd asks Go's http.DetectContentType of its first 100 bytes. Only
// what decides the build is kept of Go's table: text (a Dockerfile), gzip (a context), the types
// dockerd refuses (HTML and XML pages, PDF, PostScript, images, zip and rar archives, wasm), and
// anything else binary (a tar, bzip2, xz: a context).

const SIGNATURES: Array<[string, Buffer]> = [
  ['application/pdf', Buffer.from('%PDF-')],
  ['application/postscript', Buffer.from('%!PS-Adobe-')],
  ['text/plain', Buffer.from([0xfe, 0xff])],
  ['text/plain', Buffer.from([0xff, 0xfe])],
  ['text/plain', Buffer.from([0xef, 0xbb, 0xbf])],
  ['image/gif', Buffer.from('GIF87a')],
  ['image/gif', Buffer.from('GIF89a')],
  ['image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff])],
  ['image/bmp', Buffer.from('BM')],
  ['application/x-gzip', Buffer.from([0x1f, 0x8b, 0x08])],
  ['application/zip', Buffer.from('PK\x03\x04', 'latin1')],
  ['application/x-rar-compressed', Buffer.from('Rar!\x1a\x07\x00', 'latin1')],
  ['application/x-rar-compressed', Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1')],
  ['application/wasm', Buffer.from('\x00asm', 'latin1')],
];

const HTML_TAGS = ['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'];

/** The media type (without parameters) Go's sniffing gives the data. */
export function detectContentType(data: Buffer): string {
  const text = data.toString('latin1');
  const trimmed = text.replace(/^[\t\n\x0c\r ]+/, '');
  for (const tag of HTML_TAGS) {
    const next = trimmed[tag.length];
    if (trimmed.slice(0, tag.length).toUpperCase() === tag && (next === ' ' || next === '>')) return 'text/html';
  }
  if (trimmed.startsWith('<?xml')) return 'text/xml';
  for (const [type, magic] of SIGNATURES) if (data.subarray(0, magic.length).equals(magic)) return type;
  return isBinary(data) ? 'application/octet-stream' : 'text/plain';
}

/** Go's test for text: none of the control bytes that text never has. */
function isBinary(data: Buffer): boolean {
  return data.some((b) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f));
}
