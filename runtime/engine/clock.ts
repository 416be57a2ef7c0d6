/** Microseconds since the epoch, comparable between the main thread and the engine worker (trace timestamps). */
export const nowMicros = (): number => Math.round((performance.timeOrigin + performance.now()) * 1000);
