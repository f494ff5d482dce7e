/**
 * Server-sent events on a raw Node response, as OpenAI streams chat completions: one
 * `data: JSON` event per chunk, `data: [DONE]` at the end. Writes after the client went away
 * are dropped (the generation is being cancelled by then).
 */
import type { ServerResponse } from "node:http";

/** One SSE stream. */
export class SseStream {
  private started = false;

  constructor(private readonly res: ServerResponse) {}

  /** Whether the client is gone or the stream was ended. */
  get closed(): boolean {
    return this.res.writableEnded || this.res.destroyed;
  }

  /** Sends the status line and headers. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    this.res.flushHeaders();
  }

  /** Sends one event whose data is `value` as JSON. */
  send(value: unknown): void {
    if (this.closed) return;
    this.start();
    this.res.write(`data: ${JSON.stringify(value)}\n\n`);
  }

  /** Sends `[DONE]` (unless `done` is false) and ends the response. */
  end(done = true): void {
    if (this.closed) return;
    this.start();
    if (done) this.res.write("data: [DONE]\n\n");
    this.res.end();
  }
}
