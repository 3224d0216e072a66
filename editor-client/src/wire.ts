/**
 * The wire's hand logic: the version handshake (with the shapes older and
 * newer daemons announce) and reading a hello's capabilities. Every type is
 * generated (./protocol.ts, from backend/groove/wire: connect-info, the
 * JSON-RPC envelope, the error codes, the `explain` objects).
 * Type-only imports from ./protocol: it re-exports this module.
 */
import type { HelloResult, ProtocolVersion } from "./protocol";

/** The protocol this client speaks: `major` must equal the daemon's; a
 * daemon with a newer `minor` only adds methods, params and fields. A test
 * keeps `major` equal to the schema's `SCHEMA_PROTOCOL_VERSION`. */
export const CLIENT_PROTOCOL: ProtocolVersion = { major: 1, minor: 0 };
/** What the client sends as `protocol_version` in hello (the major). */
export const PROTOCOL_VERSION = CLIENT_PROTOCOL.major;

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
