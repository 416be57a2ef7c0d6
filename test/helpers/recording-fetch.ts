// A fetch for an outside client under test that records every request it sends and the body
// that came back: assertion messages show the wire, and a test can check what a client sent.

/** One request a client sent and what came back. */
export interface Exchange {
  request: any;
  status: number;
  body: string;
}

/** fetch, recording each exchange into `exchanges` (the body arrives as the client reads it). */
export function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const exchange: Exchange = { request: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body, status: response.status, body: '' };
    exchanges.push(exchange);
    // Read from a copy, not awaited: a client reads a stream as it comes.
    void response.clone().text().then((text) => (exchange.body = text), () => {});
    return response;
  };
}

/** The exchanges as text for an assertion's message, cut short. */
export const wire = (exchanges: Exchange[]) => JSON.stringify(exchanges).slice(0, 4000);
