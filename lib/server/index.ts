/**
 * The OpenAI-compatible server: `createServer(options)` (and `tagmask serve`). Nothing here loads
 * fastify or node-llama-cpp until a server is created.
 */
export { createServer, resolveFamily } from "./server.js";
export type { ServerOptions, TagmaskServer } from "./server.js";
export type { ServerMetrics } from "./server-metrics.js";
export type { MaskFill } from "./mask-batcher.js";
export { REMOTE_SERVERS, remoteRequestBodies } from "./remote-request.js";
export type { RemoteRequestBody, RemoteRequestOptions, RemoteServer } from "./remote-request.js";
