// The JSON message stream of load and import, as dockerd writes it (jsonmessage): text lines as {"stream": ...}.

export function streamLine(text: string): string {
  return JSON.stringify({ stream: text });
}
