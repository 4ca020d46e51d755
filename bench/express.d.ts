/**
 * express 5 is a devDependency for bench/reference-seller.ts only, installed without
 * @types/express (one more package for one file): the part of its API the reference seller uses.
 */
declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  export type Request = IncomingMessage;
  export interface Response extends ServerResponse {
    status(code: number): Response;
    json(body: unknown): Response;
  }
  export type NextFunction = (error?: unknown) => void;
  type Handler = (req: Request, res: Response, next: NextFunction) => unknown;
  export interface Application {
    use(handler: Handler): Application;
    get(path: string, handler: Handler): Application;
    listen(port: number, host: string, onListening: () => void): Server;
  }
  export default function express(): Application;
}
