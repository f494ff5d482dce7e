/**
 * `tagmask/server`: the OpenAI-compatible server. It generates with node-llama-cpp (an optional
 * peer dependency) and serves with fastify, so it is an entry of its own and `import "tagmask"`
 * works without either being loaded: `import { createServer } from "tagmask/server"`.
 *
 * @example
 * import { createServer } from "tagmask/server";
 *
 * const server = await createServer({ model: "model.gguf", parallel: 8 });
 * await server.listen({ port: 8080 });
 */
export { createServer, remoteRequestBodies } from "./server/index.js";
export type { MaskFill, RemoteRequestOptions, RemoteServer, ServerMetrics, ServerOptions, TagmaskServer } from "./server/index.js";
