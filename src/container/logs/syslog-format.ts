// The bytes of one syslog message as dockerd's syslog driver sends it (daemon/logger/syslog and
// its srslog): the formatter the syslog-format option names, the content with a newline added when
// it has none (srslog's Writer.write), then the framer.
//
//   ""            <PRI>Mmm _d hh:mm:ss TAG[PID]: MSG\n                     (srslog.UnixFormatter)
//   rfc3164       <PRI>Mmm _d hh:mm:ss HOSTNAME TAG[PID]: MSG\n            (srslog.RFC3164Formatter)
//   rfc5424       <PRI>1 YYYY-MM-DDThh:mm:ssZ HOSTNAME TAG PID TAG - MSG\n (the tag is also the app name)
//   rfc5424micro  the same with six fraction digits
//
// Times are the sender's local time when the message goes (time.Now() in the formatter), with the
// zone as Go's Z07:00 writes it. PRI is the facility with the severity: info for stdout, err for
// stderr. Over tcp+tls, rfc5424 messages are framed with their length (RFC 5425's octet count).

export type SyslogFormat = '' | 'rfc3164' | 'rfc5424' | 'rfc5424micro';

export const SYSLOG_FORMATS: readonly SyslogFormat[] = ['', 'rfc3164', 'rfc5424', 'rfc5424micro'];

export const SEVERITY_ERR = 3;
export const SEVERITY_INFO = 6;

export interface SyslogHeader {
  format: SyslogFormat;
  /** facility << 3, as parseFacility gives it */
  facility: number;
  hostname: string;
  tag: string;
  pid: number;
  /** octet-count framing (tcp+tls with an rfc5424 format) */
  octetCounted: boolean;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The message's bytes, framed, for `content` (a line without its newline) sent at `nowUs` (microseconds since the epoch). */
export function syslogMessage(h: SyslogHeader, severity: number, content: Buffer, nowUs: number): Buffer {
  const pri = (h.facility & ~7) | (severity & 7);
  let head: string;
  switch (h.format) {
    case '':
      head = `<${pri}>${stampTime(nowUs)} ${h.tag}[${h.pid}]: `;
      break;
    case 'rfc3164':
      head = `<${pri}>${stampTime(nowUs)} ${h.hostname} ${h.tag}[${h.pid}]: `;
      break;
    case 'rfc5424':
    case 'rfc5424micro':
      head = `<${pri}>1 ${rfc3339Time(nowUs, h.format === 'rfc5424micro')} ${h.hostname} ${h.tag} ${h.pid} ${h.tag} - `;
      break;
  }
  const newline = content.length > 0 && content[content.length - 1] === 0x0a ? '' : '\n';
  const message = Buffer.concat([Buffer.from(head, 'utf8'), content, Buffer.from(newline)]);
  return h.octetCounted ? Buffer.concat([Buffer.from(`${message.length} `), message]) : message;
}

/** Go's time.Stamp in local time: "Jan _2 15:04:05". */
export function stampTime(nowUs: number): string {
  const d = new Date(Math.floor(nowUs / 1000));
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${clock(d)}`;
}

/** Go's time.RFC3339 in local time, or with six fraction digits ("2006-01-02T15:04:05.000000Z07:00"). */
export function rfc3339Time(nowUs: number, micro: boolean): string {
  const d = new Date(Math.floor(nowUs / 1000));
  const date = `${String(d.getFullYear()).padStart(4, '0')}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  const fraction = micro ? `.${String(((nowUs % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0')}` : '';
  const offsetMin = -d.getTimezoneOffset();
  const zone = offsetMin === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offsetMin) / 60))}:${two(Math.abs(offsetMin) % 60)}`;
  return `${date}T${clock(d)}${fraction}${zone}`;
}

function clock(d: Date): string {
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}
