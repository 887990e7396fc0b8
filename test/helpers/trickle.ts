/**
 * Slow request bodies for the server tests (slow-client, slow-store): an upload trickled a byte at a
 * time, and asking again until an answer comes that the test accepts.
 */
import http from 'node:http';
import { jsonOrText } from './server.js';

export interface Answer {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

/** A JSON parse upload that announces 100 kB and sends one byte every 300 ms until answered. */
export function trickle(url: string, key: string): { answer: Promise<Answer>; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let req!: http.ClientRequest;
  const answer = new Promise<Answer>((resolve) => {
    req = http.request(
      new URL('/v4/smart/parse', url),
      { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': '100000' } },
      (res) => {
        clearInterval(timer);
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        const done = (): void => {
          resolve({ status: res.statusCode ?? 0, body: jsonOrText(text), headers: res.headers });
        };
        res.on('end', done);
        res.on('error', done);
      },
    );
    req.on('error', () => {
      clearInterval(timer);
      resolve({ status: 0, body: null, headers: {} });
    });
    req.write('{"pdf_file":"');
    timer = setInterval(() => req.write('A'), 300);
  });
  return {
    answer,
    stop: () => {
      clearInterval(timer);
      req.destroy();
    },
  };
}

export /** Ask until `fn` gives an answer `ok` accepts (or the generous deadline passes): the outcome, not a timing. */
async function until(fn: () => Promise<Answer>, ok: (a: Answer) => boolean, ms = 20_000): Promise<Answer> {
  const t0 = Date.now();
  for (;;) {
    const a = await fn();
    if (ok(a) || Date.now() - t0 > ms) return a;
    await new Promise((r) => setTimeout(r, 200));
  }
}
