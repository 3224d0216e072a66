/**
 * @groove/editor-client — the one protocol client the editor plugins build
 * from. Node-only parts (the socket client) live in ./client; everything else
 * is plain TypeScript that also runs in a browser bundle.
 */
export * from "./protocol";
export * from "./offsets";
export * from "./errors";
export * from "./hits";
export * from "./session";
export * from "./emitter";
export { GrooveClient, runConnectInfo, parseConnectInfo, needsTheUser } from "./client";
export { commandLineSetup, checkCrashed, readModelStatus, pullDefaultModel, fileTail, resolveExecutable } from "./setup";
export type { SetupOptions } from "./setup";
export type { ClientState, ClientEvents, GrooveClientOptions, RequestOptions, PendingRequest, ConnectInfoOptions } from "./client";
export * from "./connection";
export * from "./snippet";
export * from "./explain";
export * from "./exclusions";
export * from "./display";
export * from "./related";
