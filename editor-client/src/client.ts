/**
 * Node socket client for `groove serve` (docs/protocol.md): newline-delimited
 * JSON-RPC 2.0 over a unix socket (or 127.0.0.1 TCP on Windows), token
 * authentication with `hello`, id correlation, notifications as events,
 * reconnect after a daemon restart, cancellable requests.
 *
 * Used by the Obsidian plugin (desktop: Electron exposes Node's `net`) and
 * the VS Code extension host.
 */
import { execFile } from "node:child_process";
import * as net from "node:net";

import { Emitter } from "./emitter";
import { GrooveError, parseCliError, type CliErrorCode } from "./errors";
import {
  announcedProtocol,
  capabilityMethods,
  checkProtocol,
  CLIENT_PROTOCOL,
  ErrorCode,
  formatProtocol,
  PROTOCOL_VERSION,
  type ConnectInfo,
  type EventName,
  type HelloResult,
  type IndexChanged,
  type IndexProgress,
  type JsonRpcResponse,
  type MethodName,
  type Methods,
  type SearchParams,
  type SearchResponse,
} from "./protocol";

// ---------------------------------------------------------------- connect-info

export interface ConnectInfoOptions {
  /** The `groove` executable (absolute path or a name on PATH). */
  executable: string;
  vault: string;
  /** Pass `--start`: start the daemon if none runs and wait until it accepts. */
  start: boolean;
  env?: NodeJS.ProcessEnv;
  /** Starting a daemon loads models; give it time. */
  timeoutMs?: number;
}

/** Runs `groove connect-info --vault V [--start]` and parses its JSON. */
export function runConnectInfo(opts: ConnectInfoOptions): Promise<ConnectInfo> {
  const args = ["connect-info", "--vault", opts.vault];
  if (opts.start) args.push("--start");
  return new Promise((resolve, reject) => {
    execFile(
      opts.executable,
      args,
      { env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 120_000, windowsHide: true, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT" || code === "EACCES") {
            reject(
              new GrooveError(
                "not-installed",
                `groove executable not found or not executable: "${opts.executable}". Install the groove backend ` +
                  `or set the full path to "groove" in the settings.`,
                { cause: err, data: { executable: opts.executable } },
              ),
            );
            return;
          }
          const output = String(stderr || stdout || err.message).trim();
          // connect-info prints its failure as {"error": {code, message, ...}}: the
          // connection state names the cause by `code`, never by the words.
          const failure = parseCliError(String(stdout));
          const tail = failure?.message.split("\n")[0] ?? output.split("\n").slice(-3).join(" ");
          const timedOut = !!(err as { killed?: boolean }).killed;
          const what = timedOut ? "timed out" : "failed";
          reject(
            new GrooveError("connect-info", `"groove ${args.join(" ")}" ${what}: ${tail}`, {
              cause: err,
              data: {
                code: failure?.code ?? null,
                logTail: failure?.log_tail || undefined,
                stderr: output,
                exitCode: typeof err.code === "number" ? err.code : null,
                timedOut,
              },
            }),
          );
          return;
        }
        try {
          resolve(parseConnectInfo(String(stdout)));
        } catch (e) {
          reject(new GrooveError("connect-info", `"groove connect-info" printed no connection info: ${String(stdout).slice(0, 200)}`, { cause: e }));
        }
      },
    );
  });
}

/**
 * Failures a background retry cannot fix — only the user can (install groove,
 * update, download the model, restart a crashed daemon): no reconnect loop.
 */
export function needsTheUser(e: GrooveError): boolean {
  const d = e.data as { crashed?: boolean; code?: CliErrorCode | null } | undefined;
  return e.kind === "not-installed" || e.kind === "protocol" || !!d?.crashed || d?.code === "model-download-needed";
}

/** Takes the last line of output that is a JSON object (tolerates log lines before it). */
export function parseConnectInfo(stdout: string): ConnectInfo {
  const lines = stdout.trim().split(/\r?\n/).reverse();
  let lastErr: unknown = new Error("empty output");
  for (const candidate of [stdout.trim(), ...lines]) {
    if (!candidate.startsWith("{")) continue;
    try {
      const info = JSON.parse(candidate) as ConnectInfo;
      if (typeof info.address === "string" && typeof info.transport === "string") return info;
      lastErr = new Error("missing address/transport");
    } catch (e) {
      lastErr = e;
    }
  }
  throw lastErr;
}

// ---------------------------------------------------------------- client

export type ClientState = "idle" | "connecting" | "connected" | "disconnected" | "closed";

export interface ClientEvents {
  state: (state: ClientState, error?: GrooveError) => void;
  connected: (hello: HelloResult, info: ConnectInfo) => void;
  notification: (method: string, params: unknown) => void;
  "index.progress": (p: IndexProgress) => void;
  "index.changed": (c: IndexChanged) => void;
  /** Background failures (reconnect attempts, malformed lines). */
  error: (e: GrooveError) => void;
}

export interface GrooveClientOptions {
  /** How to find the daemon. Either a provider, or executable + vault (spawns `groove connect-info`). */
  connectInfo?: (start: boolean) => Promise<ConnectInfo>;
  executable?: string;
  vault?: string;
  env?: NodeJS.ProcessEnv;
  /** Start the daemon when none runs (`connect-info --start`). */
  autoStart?: boolean;
  /** Sent in hello, e.g. "obsidian-groove/0.1.0". */
  clientName?: string;
  /** Events to (re)subscribe to after every connect. */
  subscribe?: EventName[];
  /** Reconnect in the background after the connection drops (default true). */
  reconnect?: boolean;
  /** Backoff between reconnect attempts (default 250 ms doubling to 30 s). */
  reconnectDelayMs?: { initial: number; max: number };
  /**
   * After the socket to a daemon dropped, before reconnecting (which may start
   * a new daemon): an error to stop with instead, e.g. "it crashed" (see
   * `checkCrashed` in ./setup). `pid` is the lost daemon's.
   */
  checkLost?: (pid: number | null) => Promise<GrooveError | null>;
  helloTimeoutMs?: number;
  /** Default timeout for requests other than search/reindex (ms, 0 = none). */
  requestTimeoutMs?: number;
}

export interface RequestOptions {
  /** 0 = no timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A request that can be cancelled while pending. */
export interface PendingRequest<T> {
  promise: Promise<T>;
  /** Rejects `promise` with a cancelled error now and, if the request was
   * already sent, tells the daemon to stop working on it (`cancel`). */
  cancel(): void;
}

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: GrooveError) => void;
  timer?: ReturnType<typeof setTimeout>;
}

let nextId = 1; // process-wide: ids stay unique across reconnects and clients

export class GrooveClient extends Emitter<ClientEvents> {
  private readonly opts: GrooveClientOptions;
  private socket: net.Socket | null = null;
  private buffer = "";
  private pending = new Map<number, Pending>();
  private connecting: Promise<HelloResult> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private reconnectDelay: number;
  private _state: ClientState = "idle";
  private _hello: HelloResult | null = null;
  private _info: ConnectInfo | null = null;
  /** The pid of the daemon whose socket dropped (undefined: none dropped since the last connect). */
  private lostPid: number | null | undefined = undefined;
  private forceStart = false;

  constructor(opts: GrooveClientOptions) {
    super();
    if (!opts.connectInfo && !(opts.executable && opts.vault)) {
      throw new Error("GrooveClient needs connectInfo or executable + vault");
    }
    this.opts = opts;
    this.reconnectDelay = opts.reconnectDelayMs?.initial ?? 250;
  }

  get state(): ClientState {
    return this._state;
  }
  get hello(): HelloResult | null {
    return this._hello;
  }
  get info(): ConnectInfo | null {
    return this._info;
  }

  private setState(s: ClientState, err?: GrooveError): void {
    if (this._state === s && !err) return;
    this._state = s;
    this.emit("state", s, err);
  }

  private fetchInfo(start: boolean): Promise<ConnectInfo> {
    if (this.opts.connectInfo) return this.opts.connectInfo(start);
    return runConnectInfo({ executable: this.opts.executable!, vault: this.opts.vault!, start, env: this.opts.env });
  }

  /** Connects and authenticates (idempotent; concurrent callers share one attempt). */
  connect(): Promise<HelloResult> {
    if (this._state === "closed") return Promise.reject(new GrooveError("closed", "groove client was closed"));
    if (this._state === "connected" && this._hello) return Promise.resolve(this._hello);
    if (!this.connecting) {
      if (this.reconnectTimer) {
        clearTimeout(this.reconnectTimer);
        this.reconnectTimer = null;
      }
      this.setState("connecting");
      this.connecting = this.establish().then(
        (hello) => {
          this.connecting = null;
          this.reconnectDelay = this.opts.reconnectDelayMs?.initial ?? 250;
          return hello;
        },
        (err: GrooveError) => {
          this.connecting = null;
          if (this._state !== "closed") {
            this.setState("disconnected", err);
            // Retrying cannot fix a missing executable, a version mismatch, a
            // missing model or a crash; the user's "check again" / "restart" does.
            if (!needsTheUser(err)) this.scheduleReconnect();
          }
          throw err;
        },
      );
    }
    return this.connecting;
  }

  /**
   * Starts the daemon (whatever `autoStart` says) and connects: the user's
   * "Restart" after a crash, or "Start" when auto-start is off.
   */
  async restart(): Promise<HelloResult> {
    if (this._state === "connected" && this._hello) return this._hello;
    // A background reconnect in flight asked connect-info without --start:
    // joining it would fail "not running" again. Let it settle, then start.
    if (this.connecting) await this.connecting.catch(() => {});
    if (this._state === "connected" && this._hello) return this._hello;
    this.lostPid = undefined;
    this.forceStart = true;
    try {
      return await this.connect();
    } finally {
      this.forceStart = false;
    }
  }

  private async establish(): Promise<HelloResult> {
    const autoStart = this.forceStart || !!this.opts.autoStart;
    if (this.lostPid !== undefined && this.opts.checkLost && !this.forceStart) {
      const crashed = await this.opts.checkLost(this.lostPid);
      if (crashed) throw crashed;
    }
    let info = await this.fetchInfo(autoStart);
    // Stale address or token (daemon restarted between connect-info and our
    // connect) shows up as refused / closed-at-hello: ask again once.
    for (let attempt = 0; ; attempt++) {
      this.checkInfo(info);
      try {
        return await this.handshake(info);
      } catch (e) {
        const err = toGrooveError(e);
        if (attempt >= 1 || this._state === "closed" || !(err.kind === "auth" || err.kind === "disconnected")) throw err;
        info = await this.fetchInfo(autoStart);
      }
    }
  }

  private checkInfo(info: ConnectInfo): void {
    if (!info.running) {
      throw new GrooveError(
        "not-running",
        `groove daemon is not running for ${info.vault}. Enable "auto-start daemon" or run: groove serve --vault "${info.vault}"`,
        { data: { vault: info.vault } },
      );
    }
    // An unreadable connect-info version is left to hello, which is authoritative.
    const v = announcedProtocol(info);
    if (v) checkVersion(v);
  }

  /** Method names the daemon announced in hello (null: it announced none). */
  get capabilities(): Set<string> | null {
    return capabilityMethods(this._hello);
  }

  /** False only when the daemon listed its methods and `method` is not among them. */
  supports(method: string): boolean {
    const caps = this.capabilities;
    return method === "hello" || method === "cancel" || !caps || caps.has(method);
  }

  private handshake(info: ConnectInfo): Promise<HelloResult> {
    return new Promise<HelloResult>((resolve, reject) => {
      const sock = openSocket(info);
      let settled = false;
      let authed = false;
      const fail = (err: GrooveError) => {
        if (settled) return;
        settled = true;
        sock.destroy();
        reject(err);
      };
      const helloTimer = setTimeout(
        () => fail(new GrooveError("timeout", `groove daemon at ${info.address} did not answer hello`)),
        this.opts.helloTimeoutMs ?? 10_000,
      );

      sock.setEncoding("utf8"); // the decoder keeps multi-byte characters split across chunks intact
      sock.on("error", (e: NodeJS.ErrnoException) => {
        if (!authed) {
          clearTimeout(helloTimer);
          fail(new GrooveError("disconnected", `cannot connect to groove daemon at ${info.address}: ${e.code ?? e.message}`, { cause: e }));
        }
      });
      sock.on("close", () => {
        if (!authed) {
          clearTimeout(helloTimer);
          if (this.socket === sock) {
            this.socket = null;
            for (const [id, p] of this.pending) {
              if (p.method === "hello") {
                this.pending.delete(id);
                p.reject(new GrooveError("auth", "closed at hello"));
              }
            }
          }
          // The daemon closes without a word on a bad token (protocol.md).
          fail(new GrooveError("auth", "groove daemon closed the connection at hello (token rejected or daemon restarting)"));
        } else if (this.socket === sock) {
          this.onSocketLost();
        }
      });
      sock.on("data", (chunk: string) => {
        if (this.socket === sock) this.onData(chunk);
      });
      sock.once("connect", () => {
        this.socket = sock;
        this.buffer = "";
        this.sendRaw<"hello">("hello", { token: info.token, client: this.opts.clientName, protocol_version: PROTOCOL_VERSION }, { timeoutMs: 0 }).then(
          async (hello) => {
            clearTimeout(helloTimer);
            authed = true;
            if (settled) return;
            try {
              // connect-info may be older than the daemon it found (or absent): hello is authoritative.
              checkVersion(announcedProtocol(hello) ?? announcedProtocol(info));
            } catch (e) {
              if (this.socket === sock) this.socket = null; // not a lost connection: no reconnect loop
              fail(toGrooveError(e));
              return;
            }
            this._hello = hello;
            this._info = info;
            try {
              if (this.opts.subscribe?.length) await this.sendRaw("subscribe", { events: this.opts.subscribe }, { timeoutMs: 10_000 });
            } catch (e) {
              this.emit("error", toGrooveError(e));
            }
            settled = true;
            this.lostPid = undefined;
            this.setState("connected");
            this.emit("connected", hello, info);
            resolve(hello);
          },
          (e) => {
            clearTimeout(helloTimer);
            if (this.socket === sock) this.socket = null;
            const err = toGrooveError(e);
            fail(err.kind === "disconnected" ? new GrooveError("auth", "groove daemon closed the connection at hello (token rejected or daemon restarting)") : err);
          },
        );
      });
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line) this.onLine(line);
    }
  }

  private onLine(line: string): void {
    let msg: JsonRpcResponse & { method?: string; params?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      this.emit("error", new GrooveError("protocol", `groove daemon sent a line that is not JSON: ${line.slice(0, 120)}`));
      return;
    }
    if (typeof msg.method === "string" && (msg.id === undefined || msg.id === null)) {
      this.emit("notification", msg.method, msg.params);
      if (msg.method === "index.progress") this.emit("index.progress", msg.params as IndexProgress);
      else if (msg.method === "index.changed") this.emit("index.changed", msg.params as IndexChanged);
      return;
    }
    if (typeof msg.id !== "number") {
      if (msg.error) this.emit("error", GrooveError.fromRpc(msg.error));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return; // cancelled or timed out locally: a late answer is dropped
    this.pending.delete(msg.id);
    if (p.timer) clearTimeout(p.timer);
    if (msg.error) p.reject(GrooveError.fromRpc(msg.error, p.method));
    else p.resolve(msg.result);
  }

  private onSocketLost(): void {
    this.lostPid = this._hello?.pid ?? this._info?.pid ?? null;
    this.socket = null;
    this._hello = null;
    const err = new GrooveError("disconnected", "lost the connection to the groove daemon");
    for (const [id, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(id);
    }
    if (this._state === "closed") return;
    this.setState("disconnected", err);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.opts.reconnect === false || this._state === "closed" || this.reconnectTimer) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(delay * 2, this.opts.reconnectDelayMs?.max ?? 30_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this._state === "connected" || this._state === "closed" || this.connecting) return;
      this.connect().catch((e) => this.emit("error", toGrooveError(e)));
    }, delay);
    // A pending reconnect must not keep a test runner / CLI process alive.
    (this.reconnectTimer as { unref?: () => void }).unref?.();
  }

  /** Writes one request on the current socket and tracks its id. */
  private sendRaw<M extends MethodName>(method: M, params: Methods[M][0], opts: RequestOptions, onId?: (id: number) => void): Promise<Methods[M][1]> {
    const sock = this.socket;
    if (!sock) return Promise.reject(new GrooveError("disconnected", "not connected to the groove daemon"));
    const id = nextId++;
    onId?.(id);
    return new Promise((resolve, reject) => {
      const p: Pending = { method, resolve: resolve as (v: unknown) => void, reject };
      const timeoutMs = opts.timeoutMs ?? this.opts.requestTimeoutMs ?? 30_000;
      if (timeoutMs > 0) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new GrooveError("timeout", `groove daemon did not answer "${method}" within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
      }
      this.pending.set(id, p);
      sock.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  /** Sends a request, connecting (or reconnecting) first if needed. */
  request<M extends MethodName>(method: M, params: Methods[M][0], opts: RequestOptions = {}): Promise<Methods[M][1]> {
    return this.start(method, params, opts).promise;
  }

  /** Like `request`, with a handle to cancel it (search uses the protocol's `cancel`). */
  start<M extends MethodName>(method: M, params: Methods[M][0], opts: RequestOptions = {}): PendingRequest<Methods[M][1]> {
    let id: number | null = null;
    let cancelled = false;
    let rejectLocal: (e: GrooveError) => void = () => {};
    const cancelledError = () => new GrooveError("rpc", "search cancelled", { code: ErrorCode.Cancelled, serverMessage: "cancelled locally" });

    const promise = new Promise<Methods[M][1]>((resolve, reject) => {
      rejectLocal = reject;
      (async () => {
        await this.connect();
        if (cancelled) throw cancelledError();
        if (!this.supports(method)) {
          throw new GrooveError("rpc", `this groove daemon does not support "${method}" — update groove`, {
            code: ErrorCode.MethodNotFound,
            serverMessage: "not in the daemon's capabilities",
          });
        }
        return this.sendRaw(method, params, opts, (i) => (id = i));
      })().then(resolve, (e) => reject(toGrooveError(e)));
    });

    const cancel = () => {
      if (cancelled) return;
      cancelled = true;
      if (id !== null && this.pending.has(id)) {
        const p = this.pending.get(id)!;
        this.pending.delete(id);
        if (p.timer) clearTimeout(p.timer);
        // Fire and forget: the daemon answers the original id with -32800,
        // which we drop because the id is no longer pending.
        this.sendRaw("cancel", { id }, { timeoutMs: 5_000 }).catch(() => {});
      }
      rejectLocal(cancelledError());
    };

    if (opts.signal) {
      if (opts.signal.aborted) cancel();
      else opts.signal.addEventListener("abort", cancel, { once: true });
    }
    return { promise, cancel };
  }

  // ------------------------------------------------------------ typed helpers

  search(params: SearchParams, opts: RequestOptions = {}): Promise<SearchResponse> {
    return this.request("search", params, { timeoutMs: 0, ...opts });
  }

  /** A cancellable search, the shape `SearchSession` runs. */
  startSearch(params: SearchParams, opts: RequestOptions = {}): PendingRequest<SearchResponse> {
    return this.start("search", params, { timeoutMs: 0, ...opts });
  }

  /** `unlinkedOnly`: leave out the similar notes a link already joins to `path` (either way), before `limit`. */
  relatedNotes(path: string, limit?: number, opts: { unlinkedOnly?: boolean } = {}) {
    return this.request("related_notes", {
      path,
      ...(limit === undefined ? {} : { limit }),
      ...(opts.unlinkedOnly ? { unlinked_only: true } : {}),
    });
  }

  resolveLink(link: string, fromPath?: string) {
    return this.request("resolve_link", fromPath === undefined ? { link } : { link, from_path: fromPath });
  }

  getDocument(params: Methods["get_document"][0]) {
    return this.request("get_document", params);
  }

  /** `why`: a vault-relative path; the answer's `why` names the rule that leaves it out (or null). */
  indexStatus(why?: string) {
    return this.request("index_status", why === undefined ? {} : { why });
  }

  /** Rebuilding can take minutes: no timeout. */
  reindex(force = false) {
    return this.request("reindex", { force }, { timeoutMs: 0 });
  }

  /** Closes the connection for good (pending requests reject with kind "closed"). */
  close(): void {
    if (this._state === "closed") return;
    this._state = "closed";
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const err = new GrooveError("closed", "groove client was closed");
    for (const [, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.socket?.destroy();
    this.socket = null;
    this.emit("state", "closed");
  }
}

/** Throws a "protocol" GrooveError unless the daemon's major version is ours. */
function checkVersion(server: ReturnType<typeof announcedProtocol>): void {
  const c = checkProtocol(server);
  if (c.ok) return;
  const theirs = formatProtocol(c.server);
  const ours = formatProtocol(CLIENT_PROTOCOL);
  const msg =
    c.reason === "daemon-too-old"
      ? `the groove daemon speaks protocol ${theirs}, this editor needs ${CLIENT_PROTOCOL.major}.x — update groove`
      : c.reason === "daemon-too-new"
        ? `the groove daemon speaks protocol ${theirs}, newer than this editor's ${ours} — update the plugin`
        : `the groove daemon did not say which protocol it speaks — update groove`;
  throw new GrooveError("protocol", msg, { data: { reason: c.reason, server: c.server, client: CLIENT_PROTOCOL } });
}

function openSocket(info: ConnectInfo): net.Socket {
  if (info.transport === "tcp") {
    const i = info.address.lastIndexOf(":");
    return net.createConnection({ host: info.address.slice(0, i) || "127.0.0.1", port: Number(info.address.slice(i + 1)) });
  }
  return net.createConnection({ path: info.address });
}

function toGrooveError(e: unknown): GrooveError {
  if (e instanceof GrooveError) return e;
  return new GrooveError("disconnected", e instanceof Error ? e.message : String(e), { cause: e });
}
