// The small part of polka 0.5 lmforge uses (the package ships no types).
declare module 'polka' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';
  export type Request = IncomingMessage & { path: string; query: Record<string, string | string[]>; params: Record<string, string> };
  export type Handler = (req: Request, res: ServerResponse, next: (error?: unknown) => void) => void;
  export interface Polka {
    server: Server | undefined;
    handler: (req: IncomingMessage, res: ServerResponse) => void;
    use(...handlers: Handler[]): Polka;
    get(pattern: string, ...handlers: Handler[]): Polka;
    head(pattern: string, ...handlers: Handler[]): Polka;
    post(pattern: string, ...handlers: Handler[]): Polka;
    delete(pattern: string, ...handlers: Handler[]): Polka;
    options(pattern: string, ...handlers: Handler[]): Polka;
  }
  export default function polka(options?: {
    server?: Server;
    onError?: (error: unknown, req: Request, res: ServerResponse, next: () => void) => void;
    onNoMatch?: (req: Request, res: ServerResponse) => void;
  }): Polka;
}
