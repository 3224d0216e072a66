import { PluginSettingTab, Setting, type App } from "obsidian";
import type GroovePlugin from "./main";
import { MAX_LIMIT, type TriState } from "./settings";

const TRI_OPTIONS: Record<TriState, string> = { default: "Vault default (groove.toml)", on: "On", off: "Off" };

export class GrooveSettingTab extends PluginSettingTab {
  private plugin: GroovePlugin;

  constructor(app: App, plugin: GroovePlugin) {
    super(app, plugin);
    this.plugin = plugin;
  }

  display(): void {
    const { containerEl } = this;
    containerEl.replaceChildren();
    const s = this.plugin.settings;

    new Setting(containerEl)
      .setName("groove executable")
      .setDesc('Path to the "groove" command. A bare name is searched on PATH and in ~/.local/bin, /opt/homebrew/bin, /usr/local/bin.')
      .addText((t) =>
        t
          .setPlaceholder("groove")
          .setValue(s.executable)
          .onChange(async (v) => {
            s.executable = v.trim() || "groove";
            await this.plugin.saveSettings(true);
          }),
      );

    new Setting(containerEl)
      .setName("Auto-start daemon")
      .setDesc("Start `groove serve` for this vault when none is running.")
      .addToggle((t) =>
        t.setValue(s.autoStart).onChange(async (v) => {
          s.autoStart = v;
          await this.plugin.saveSettings(true);
        }),
      );

    new Setting(containerEl)
      .setName("Default result limit")
      .setDesc(`Results per search (the daemon answers at most ${MAX_LIMIT}).`)
      .addSlider((sl) =>
        sl
          .setLimits(5, MAX_LIMIT, 5)
          .setValue(s.limit)
          .setDynamicTooltip()
          .onChange(async (v) => {
            s.limit = v;
            await this.plugin.saveSettings();
          }),
      );

    const tri = (name: string, desc: string, key: "rerank" | "mmr" | "parentRetriever") =>
      new Setting(containerEl)
        .setName(name)
        .setDesc(desc)
        .addDropdown((d) =>
          d
            .addOptions(TRI_OPTIONS)
            .setValue(s[key])
            .onChange(async (v) => {
              s[key] = v as TriState;
              await this.plugin.saveSettings();
            }),
        );
    tri("Reranker", "Cross-encoder reranking of the top hits.", "rerank");
    tri("MMR", "Diversify results across notes.", "mmr");
    tri("Parent retriever", "Return the enclosing section around small chunks (shown as context).", "parentRetriever");

    const toggle = (name: string, desc: string, key: "showContext" | "explain") =>
      new Setting(containerEl)
        .setName(name)
        .setDesc(desc)
        .addToggle((t) =>
          t.setValue(s[key]).onChange(async (v) => {
            s[key] = v;
            await this.plugin.saveSettings();
          }),
        );
    toggle("Show context by default", "Expand hits to their surrounding context (expanded_from) when available.",
      "showContext");
    toggle("Explain rankings",
      "Under each hit, a line saying which searches found it (meaning, words, note, name) and how it was ranked.",
      "explain");

    new Setting(containerEl)
      .setName("Rebuild index")
      .setDesc("Re-index every note of this vault (reindex with force).")
      .addButton((b) =>
        b
          .setButtonText("Rebuild index")
          .setCta()
          .onClick(async () => {
            b.setDisabled(true);
            try {
              await this.plugin.rebuildIndex();
            } finally {
              b.setDisabled(false);
            }
          }),
      );
  }
}
