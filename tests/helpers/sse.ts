/**
 * Reads a server-sent event stream as EventSource does, calling `onEvent` with each event's name and data,
 * until the stream ends (resolves) or the connection fails (rejects).
 */
export async function readServerSentEvents(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  onEvent: (event: string, data: string) => void,
): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      if (event) onEvent(event, /^data: (.*)$/m.exec(block)?.[1] ?? '');
    }
  }
}
