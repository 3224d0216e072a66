/** Everything except the Node socket client: safe for browser/webview bundles. */
export * from "./protocol";
export * from "./offsets";
export * from "./errors";
export * from "./hits";
export * from "./session";
export * from "./emitter";
export type { PendingRequest } from "./client";
export * from "./connection";
export * from "./snippet";
