import { ErrorCode, type JsonRpcError } from "./protocol";

/** What went wrong, independent of the JSON-RPC code (which only `rpc` has). */
export type GrooveErrorKind =
  | "rpc" // the daemon answered with a JSON-RPC error
  | "not-installed" // the groove executable could not be run
  | "connect-info" // `groove connect-info` failed or printed garbage
  | "not-running" // no daemon and auto-start is off
  | "auth" // connection closed before/at hello: bad token or daemon restarted
  | "disconnected" // connection lost while a request was pending
  | "timeout"
  | "protocol" // incompatible protocol version / malformed line
  | "closed"; // the client was closed by its owner

export class GrooveError extends Error {
  readonly kind: GrooveErrorKind;
  /** JSON-RPC error code for kind "rpc". */
  readonly code?: number;
  readonly data?: unknown;
  /** The daemon's own message (kind "rpc"), untouched. */
  readonly serverMessage?: string;

  constructor(kind: GrooveErrorKind, message: string, opts: { code?: number; data?: unknown; serverMessage?: string; cause?: unknown } = {}) {
    super(message);
    this.name = "GrooveError";
    this.kind = kind;
    this.code = opts.code;
    this.data = opts.data;
    this.serverMessage = opts.serverMessage;
    if (opts.cause !== undefined) (this as { cause?: unknown }).cause = opts.cause;
  }

  get isCancelled(): boolean {
    return this.kind === "rpc" && this.code === ErrorCode.Cancelled;
  }

  static fromRpc(err: JsonRpcError, method?: string): GrooveError {
    return new GrooveError("rpc", rpcMessage(err, method), { code: err.code, data: err.data, serverMessage: err.message });
  }
}

/** A message a user can act on, for a JSON-RPC error from the daemon. */
export function rpcMessage(err: JsonRpcError, method?: string): string {
  const detail = err.message ? `: ${err.message}` : "";
  switch (err.code) {
    case ErrorCode.ParseError:
      return `groove could not parse a request from the editor (please report this bug)${detail}`;
    case ErrorCode.InvalidRequest:
      return `groove rejected the request${detail}`;
    case ErrorCode.MethodNotFound:
      return `this groove daemon does not support "${method ?? "?"}" — update groove`;
    case ErrorCode.InvalidParams:
      return `invalid parameter${detail}`;
    case ErrorCode.Cancelled:
      return "search cancelled";
    case ErrorCode.BadQuery:
      return `bad query${detail}`;
    case ErrorCode.PathNotFound:
      return `not found in the vault${detail}`;
    case ErrorCode.IndexMissing:
      return `the index is missing or was built with another embedding model — rebuild the index${detail}`;
    case ErrorCode.Internal:
      return `groove daemon error${detail}`;
    default:
      return `groove error ${err.code}${detail}`;
  }
}

export function isCancelled(e: unknown): boolean {
  return e instanceof GrooveError && e.isCancelled;
}

/**
 * The stable codes of a failed `groove` command's JSON error object
 * (`{"error": {"code", "message", ...}}` on stdout: connect-info always, any
 * command given `--json`; backend cli/__init__.py). Diagnose by these, never by
 * the message, which may be reworded.
 */
export type CliErrorCode =
  | "model-download-needed" // the default model must be downloaded first (`groove models pull default`)
  | "model-missing" // the daemon could not load its embedding model
  | "daemon-exited" // the daemon exited before accepting connections
  | "start-timeout" // the daemon did not accept connections in time
  | "vault"
  | "usage"
  | "internal"
  | (string & {}); // any other GrooveError's code

export interface CliError {
  code: CliErrorCode;
  message: string;
  /** daemon-exited / model-missing / start-timeout: the daemon log and its last lines. */
  log?: string;
  log_tail?: string;
  exit_status?: number | null;
  [field: string]: unknown;
}

/** The JSON error object a failed `groove` command printed last on stdout, or null (an older groove prints text only). */
export function parseCliError(stdout: string): CliError | null {
  for (const line of stdout.trim().split(/\r?\n/).reverse()) {
    if (!line.startsWith("{")) continue;
    try {
      const err = (JSON.parse(line) as { error?: unknown }).error as CliError | undefined;
      if (err && typeof err.code === "string" && typeof err.message === "string") return err;
    } catch {
      /* not JSON */
    }
  }
  return null;
}
