/**
 * What the generated ./protocol.ts cannot say, because protocol.json does not:
 * the version handshake (with the shapes older and newer daemons announce),
 * the JSON-RPC envelope, the error codes' names, the `explain` objects' fields
 * (typed loosely on the wire: they grow with the pipeline) and connect-info.
 * Type-only imports from ./protocol: it re-exports this module.
 */
import type { HelloResult } from "./protocol";

/** The protocol this client speaks: `major` must equal the daemon's; a
 * daemon with a newer `minor` only adds methods, params and fields. A test
 * keeps `major` equal to the schema's `SCHEMA_PROTOCOL_VERSION`. */
export const CLIENT_PROTOCOL: ProtocolVersion = { major: 1, minor: 0 };
/** What the client sends as `protocol_version` in hello (the major). */
export const PROTOCOL_VERSION = CLIENT_PROTOCOL.major;

export interface ProtocolVersion {
  major: number;
  minor: number;
}

/** Output of `groove connect-info [--vault PATH] [--start] --json` on success. */
export interface ConnectInfo {
  vault: string;
  transport: "unix" | "tcp";
  /** Socket path (unix) or "127.0.0.1:PORT" (tcp). */
  address: string;
  token: string;
  pid: number | null;
  running: boolean;
  /** 1, "1.2" or {major, minor}: see `parseProtocolVersion`. */
  protocol_version: number | string | ProtocolVersion;
  protocol?: ProtocolVersion;
}

/** One retrieval leg's part in a hit's rank (docs/protocol.md, SearchParams). */
export interface LegExplain {
  rank: number;
  rrf: number;
  cosine?: number;
  coverage?: number;
}

/** `SearchHit.explain`, as the pipeline writes it today (docs/protocol.md). */
export interface HitExplain {
  legs: Partial<Record<"vector" | "full_text" | "title" | "note" | "named_note", LegExplain>>;
  fused_score: number;
  stage1_rank: number;
  rerank?: { score: number; rank: number };
  mmr?: { rank_before: number | null; rank_after: number };
  final_rank?: number;
  expanded?: boolean;
}

/** `SearchResponse.confidence`: why `low_confidence` is what it is; only when the search set `explain`. */
export interface ConfidenceExplain {
  low_confidence: boolean;
  rule: "calibrated" | "margin" | "off" | "empty" | "no-vector";
  score?: number;
  threshold?: number;
  best_passage_z?: number;
  known_share?: number;
  across_languages?: boolean;
  unknown_names?: string[];
}

/** The JSON-RPC error codes by name; a test keeps them equal to the schema's `ERROR_CODES`. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32000,
  BadQuery: -32001,
  PathNotFound: -32002,
  IndexMissing: -32003,
  Cancelled: -32800,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: number | string;
  method: string;
  params?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: number | null;
  result?: unknown;
  error?: JsonRpcError;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

/**
 * A daemon's protocol version from connect-info or hello, in any of the
 * shapes a daemon may send: `1` (v1: major 1, minor 0), `1.2` / `"1.2"`,
 * or `{major, minor}`. Null when it is none of these.
 */
export function parseProtocolVersion(v: unknown): ProtocolVersion | null {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) {
    if (Number.isInteger(v)) return { major: v, minor: 0 };
    return parseProtocolVersion(String(v));
  }
  if (typeof v === "string") {
    const m = /^\s*(\d+)(?:\.(\d+))?(?:\.\d+)?\s*$/.exec(v);
    return m ? { major: Number(m[1]), minor: Number(m[2] ?? 0) } : null;
  }
  if (v && typeof v === "object") {
    const o = v as { major?: unknown; minor?: unknown };
    if (typeof o.major === "number" && Number.isInteger(o.major)) {
      return { major: o.major, minor: typeof o.minor === "number" && Number.isInteger(o.minor) ? o.minor : 0 };
    }
  }
  return null;
}

/** The version a hello result or connect-info announces (`protocol` wins over `protocol_version`). */
export function announcedProtocol(r: { protocol?: unknown; protocol_version?: unknown }): ProtocolVersion | null {
  return parseProtocolVersion(r.protocol) ?? parseProtocolVersion(r.protocol_version);
}

export type ProtocolCheck =
  | { ok: true; server: ProtocolVersion }
  | { ok: false; reason: "daemon-too-old" | "daemon-too-new" | "unreadable"; server: ProtocolVersion | null };

/** Majors must match; any minor is accepted (a newer daemon only adds things;
 * an older one is asked only for what its capabilities list). */
export function checkProtocol(server: ProtocolVersion | null, client: ProtocolVersion = CLIENT_PROTOCOL): ProtocolCheck {
  if (!server) return { ok: false, reason: "unreadable", server };
  if (server.major < client.major) return { ok: false, reason: "daemon-too-old", server };
  if (server.major > client.major) return { ok: false, reason: "daemon-too-new", server };
  return { ok: true, server };
}

export function formatProtocol(v: ProtocolVersion | null): string {
  return v ? `${v.major}.${v.minor}` : "?";
}

/** The method names a hello result lists, or null when it lists none (then every method is tried). */
export function capabilityMethods(hello: { capabilities?: unknown } | null | undefined): Set<string> | null {
  const c = hello?.capabilities as HelloResult["capabilities"] | { methods?: unknown } | undefined;
  const list = Array.isArray(c) ? c : c && typeof c === "object" && Array.isArray(c.methods) ? c.methods : null;
  if (!list) return null;
  const names = list.filter((m): m is string => typeof m === "string");
  return names.length ? new Set(names) : null;
}
