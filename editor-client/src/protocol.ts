/**
 * TypeScript types of the groove socket protocol, version 1
 * (docs/protocol.md; JSON Schemas in backend/groove/schemas/protocol.json).
 * Offsets named `byte_*` / `match_spans` are UTF-8 byte offsets: convert with
 * ./offsets.ts before touching a JS string.
 */

/** The protocol this client speaks: `major` must equal the daemon's; a
 * daemon with a newer `minor` only adds methods, params and fields. */
export const CLIENT_PROTOCOL: ProtocolVersion = { major: 1, minor: 0 };
/** What the client sends as `protocol_version` in hello (the major). */
export const PROTOCOL_VERSION = CLIENT_PROTOCOL.major;

export interface ProtocolVersion {
  major: number;
  minor: number;
}

/** `[start, end)` UTF-8 byte offsets. */
export type ByteSpan = [number, number];
/** 1-based inclusive line numbers. */
export type LineRange = [number, number];

/** Output of `groove connect-info [--vault PATH] [--start]`. */
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

export interface HelloParams {
  token: string;
  client?: string;
  /** The client's protocol version (informational). */
  protocol_version?: number;
}

export interface HelloResult {
  /** 1 (v1 daemons), "1.2" or {major, minor}: see `parseProtocolVersion`. */
  protocol_version: number | string | ProtocolVersion;
  /** Newer daemons may send the version as an object here. */
  protocol?: ProtocolVersion;
  server_version: string;
  vault: string;
  /** Methods this daemon serves (missing ones answer -32601). A daemon may
   * send an object instead (e.g. `{methods: [...], ...}`); absent = unknown. */
  capabilities?: string[] | { methods?: string[]; [feature: string]: unknown };
  pid?: number;
}

/** `null` or absent means "use the vault's groove.toml setting". */
export interface SearchParams {
  query: string;
  limit?: number | null;
  rerank?: boolean | null;
  reranker?: string | null;
  mmr?: boolean | null;
  mmr_lambda?: number | null;
  mmr_same_doc_penalty?: number | null;
  parent_retriever?: boolean | null;
  path_globs?: string[];
  tags_any?: string[];
  tags_all?: string[];
  date_from?: string | null;
  date_to?: string | null;
  min_confidence_ratio?: number | null;
  /** Give each hit an `explain` object (docs/protocol.md). */
  explain?: boolean | null;
}

export interface ExpandedRange {
  chunk_id: number;
  byte_range: ByteSpan;
  line_range: LineRange;
}

export interface SearchHit {
  /** Vault-relative path with "/" separators. */
  path: string;
  title: string;
  heading_path: string[];
  level: number;
  /** The returned text: the chunk, or the merged `expanded_from` ranges. */
  content: string;
  score: number;
  rank: number;
  /** Sorted, non-overlapping `[start, end)` UTF-8 byte offsets into `content`. */
  match_spans: ByteSpan[];
  /** Non-empty when `content` was widened (parent retriever); file order. */
  expanded_from: ExpandedRange[];
  /** Where the hit's own chunk sits in the source file (bytes). */
  byte_range: ByteSpan;
  line_range: LineRange;
  chunk_id: number;
  /** Why the hit ranked here, only when the search set `explain`. */
  explain?: HitExplain;
}

/** One retrieval leg's part in a hit's rank (docs/protocol.md, SearchParams). */
export interface LegExplain {
  rank: number;
  rrf: number;
  cosine?: number;
  coverage?: number;
}

export interface HitExplain {
  legs: Partial<Record<"vector" | "full_text" | "title" | "note" | "named_note", LegExplain>>;
  fused_score: number;
  stage1_rank: number;
  rerank?: { score: number; rank: number };
  mmr?: { rank_before: number | null; rank_after: number };
  final_rank?: number;
  expanded?: boolean;
}

/** Why `low_confidence` is what it is; only when the search set `explain` (docs/protocol.md). */
export interface ConfidenceExplain {
  low_confidence: boolean;
  rule: "calibrated" | "margin" | "off" | "empty" | "no-vector";
  score?: number;
  threshold?: number;
  best_passage_z?: number;
  known_share?: number;
  across_languages?: boolean;
}

export interface SearchResponse {
  results: SearchHit[];
  low_confidence: boolean;
  filter_applied: Record<string, unknown>;
  warnings: string[];
  confidence?: ConfidenceExplain | null;
}

export interface CancelParams {
  id: number;
}
export interface CancelResult {
  cancelled: boolean;
}

export interface GetDocumentParams {
  path: string;
  line_start?: number;
  line_end?: number;
  heading?: string;
}
export interface GetDocumentResult {
  path: string;
  title: string;
  content: string;
  frontmatter: Record<string, unknown>;
  links: unknown[];
  line_range: LineRange;
  truncated: boolean;
}

export interface RelatedNotesParams {
  path: string;
  limit?: number;
}
export interface RelatedNotesResult {
  path: string;
  similar: Array<{ path: string; title: string; score: number }>;
  backlinks: Array<{ path: string; title: string; line: number }>;
  /** `block` is sent by newer daemons (the `^id` of `[[Note#^id]]`). */
  outgoing: Array<{ target: string; path: string | null; heading: string | null; block?: string | null; line: number }>;
}

export interface ResolveLinkParams {
  /** e.g. "[[Note#Heading|alias]]", "Note#Heading", "Note^block". */
  link: string;
  from_path?: string;
}
export interface ResolveLinkResult {
  path: string | null;
  heading: string | null;
  block: string | null;
  line_range: LineRange | null;
  exists: boolean;
}

export interface IndexProgress {
  phase: "scan" | "embed" | "done";
  done: number;
  total: number;
  path?: string;
}

export interface IndexStatusResult {
  documents: number;
  chunks: number;
  model: string;
  dim: number;
  /** Unix seconds. */
  last_indexed: number | null;
  stale_files: number;
  /** A job runs or is queued. */
  indexing: boolean;
  progress: IndexProgress | null;
  index_path: string;
  vault?: string;
  last_indexed_iso?: string | null;
  model_load_seconds?: number | null;
  groove_version?: string;
  /** From the daemon: the file watcher runs. */
  watching?: boolean;
  /** Note paths waiting for the next watcher batch. */
  pending_changes?: string[] | number;
  /** The last index job's failure. */
  last_error?: string | null;
}

export interface ReindexParams {
  force?: boolean;
}
export interface ReindexResult {
  indexed: number;
  unchanged: number;
  deleted: number;
  skipped: Array<{ path: string; reason: string }>;
  renamed?: number | unknown[];
  warnings?: string[];
  chunks_embedded?: number;
  seconds?: number;
}

export type EventName = "index.progress" | "index.changed";

export interface SubscribeParams {
  events: EventName[];
}
export interface SubscribeResult {
  subscribed: EventName[];
}

export interface IndexChanged {
  paths: string[];
  deleted: string[];
  documents: number;
  chunks: number;
}

export interface NotificationParams {
  "index.progress": IndexProgress;
  "index.changed": IndexChanged;
}

/** Method name -> [params, result]; lets `client.request` be fully typed. */
export interface Methods {
  hello: [HelloParams, HelloResult];
  search: [SearchParams, SearchResponse];
  cancel: [CancelParams, CancelResult];
  get_document: [GetDocumentParams, GetDocumentResult];
  related_notes: [RelatedNotesParams, RelatedNotesResult];
  resolve_link: [ResolveLinkParams, ResolveLinkResult];
  index_status: [Record<string, never>, IndexStatusResult];
  reindex: [ReindexParams, ReindexResult];
  subscribe: [SubscribeParams, SubscribeResult];
}
export type MethodName = keyof Methods;

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
export function capabilityMethods(hello: Pick<HelloResult, "capabilities"> | null | undefined): Set<string> | null {
  const c = hello?.capabilities;
  const list = Array.isArray(c) ? c : c && typeof c === "object" && Array.isArray(c.methods) ? c.methods : null;
  if (!list) return null;
  const names = list.filter((m): m is string => typeof m === "string");
  return names.length ? new Set(names) : null;
}
