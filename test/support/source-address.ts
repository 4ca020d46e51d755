/**
 * HTTP requests from a chosen loopback source address (all of 127.0.0.0/8 is loopback on
 * Linux), so tests can be several callers: fetch cannot bind a source address, node:http can.
 */
import { request } from 'node:http';

export interface SourcedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<SourcedResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
